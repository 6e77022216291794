"""Use-cases the UI and the CLI share. Pages and commands call these; nothing above this
module touches the store, the index or PyMuPDF directly.

Sections are owned by area (pdf/ingest, pipeline, store/review, export); each method's
docstring is its contract."""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from functools import cached_property
from pathlib import Path

from workbench.config import Settings, get_settings
from workbench.errors import NotFoundError, WorkbenchError
from workbench.models import (
    NO_AUTHORITATIVE_EVIDENCE,
    SOURCE_TYPES,
    Answer,
    ClaimCheck,
    Document,
    EvidenceStatus,
    ReviewEvent,
    ReviewMetrics,
    Run,
    StageEvent,
    Verification,
    sha256_text,
)

log = logging.getLogger(__name__)


class Workbench:
    """One workspace: settings, the store, caches of parsed documents and indexes."""

    def __init__(self, settings: Settings | None = None):
        self.settings = settings or get_settings()
        self.settings.ensure_dirs()

    # --- documents ---------------------------------------------------------------------
    def ingest(self, source: bytes | str | Path, filename: str | None = None, *, password: str | None = None,
               source_type: str | None = None) -> Document:
        """Open, validate and keep a PDF (content-addressed). Raises workbench.errors.PdfError
        subclasses with a user-facing message for bad input. No `source_type` keeps the one a
        stored copy already has (e.g. `verify` on a contract), else "other"."""
        from workbench.pdf import open_pdf

        if source_type is not None and source_type not in SOURCE_TYPES:
            raise WorkbenchError(f"unknown source type {source_type!r}: use one of {', '.join(SOURCE_TYPES)}")
        parsed = open_pdf(source, password=password, filename=filename, settings=self.settings)
        if source_type is None:
            stored = self.store.has_document(parsed.document.id)
            source_type = self.store.get_document(parsed.document.id).source_type if stored else "other"
        if parsed.document.source_type != source_type:
            parsed.document = parsed.document.model_copy(update={"source_type": source_type})
        self.store.put_document(parsed.document, parsed.pdf_bytes)
        self._remember_parsed(parsed, write=True)
        return parsed.document

    def documents(self) -> list[Document]:
        return self.store.list_documents()

    def document(self, document_id: str) -> Document:
        return self.store.get_document(document_id)

    def pdf_bytes(self, document_id: str) -> bytes:
        return self.store.pdf_bytes(document_id)

    def parsed(self, document_id: str):
        """The ParsedDocument for a stored document, cached by its SHA-256: in memory (LRU) and
        on disk (data_dir/parsed/<sha>.pkl), rebuilt from the stored bytes when the file is
        missing or unreadable."""
        cache = self._parsed_lru()
        with self._parsed_lock():
            if document_id in cache:
                cache.move_to_end(document_id)
                return cache[document_id]
        path = self._parsed_path(document_id)
        parsed = None
        try:
            with path.open("rb") as fh:
                parsed = pickle.load(fh)
            if getattr(getattr(parsed, "document", None), "id", None) != document_id:
                parsed = None
        except Exception:  # noqa: BLE001 - missing, truncated or stale cache: rebuild it
            parsed = None
        if parsed is None:
            from workbench.pdf import open_pdf

            doc = self.store.get_document(document_id)
            parsed = open_pdf(self.store.pdf_bytes(document_id), filename=doc.filename, settings=self.settings)
            parsed.document = doc  # the stored metadata (source type) is the record
            self._remember_parsed(parsed, write=True)
        else:
            self._remember_parsed(parsed, write=False)
        return parsed

    _PARSED_LRU = 8

    def _parsed_lru(self) -> OrderedDict:
        return self.__dict__.setdefault("_parsed_cache", OrderedDict())

    def _parsed_lock(self) -> threading.Lock:  # the UI shares one Workbench between sessions
        return self.__dict__.setdefault("_parsed_cache_lock", threading.Lock())

    def _parsed_path(self, document_id: str) -> Path:
        return self.settings.data_dir / "parsed" / f"{document_id}.pkl"

    def _remember_parsed(self, parsed, *, write: bool) -> None:
        cache = self._parsed_lru()
        with self._parsed_lock():
            cache[parsed.document.id] = parsed
            cache.move_to_end(parsed.document.id)
            while len(cache) > self._PARSED_LRU:
                cache.popitem(last=False)
        if write:  # atomic: a reader never sees half a pickle
            path = self._parsed_path(parsed.document.id)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
            with tmp.open("wb") as fh:
                pickle.dump(parsed, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)

    # --- runs --------------------------------------------------------------------------
    def ask(self, questions: list[str], document_ids: list[str], *, backend: str = "rules",
            source_type: str | None = None, on_event: Callable[[StageEvent], None] | None = None) -> list[Run]:
        """Run each question through the pipeline over the documents and store the runs.
        Evidence IDs come from the store, so the same (document, span) keeps its ID across
        runs; `source_type` overrides the documents' own for the IDs' prefix."""
        from workbench.backends import get_backend
        from workbench.pipeline import run_question

        questions = [" ".join(q.split()) for q in questions if q and q.strip()]
        if not questions:
            raise WorkbenchError("No question given: type a question (or a list, one per line).")
        if not document_ids:
            raise WorkbenchError("No documents selected: ingest or select at least one PDF to ask about.")
        if source_type is not None and source_type not in SOURCE_TYPES:
            raise WorkbenchError(f"Unknown source type {source_type!r}: choose one of {', '.join(SOURCE_TYPES)}.")
        docs = [self.parsed(i) for i in dict.fromkeys(document_ids)]
        engine = get_backend(backend or self.settings.backend, self.settings)
        indexing_s = self._index_with_progress(docs, on_event, len(questions))
        runs: list[Run] = []
        for i, q in enumerate(questions):
            run = run_question(q, docs, retriever=self.retriever, backend=engine, ids=self.store, settings=self.settings,
                               on_event=on_event, source_type=source_type, question_index=i,
                               question_total=len(questions))
            if i == 0 and indexing_s:  # the first question paid for indexing: its audit trail says so
                run.stage_timings = {"indexing": round(indexing_s, 4), **run.stage_timings}
            self.store.save_run(run)
            runs.append(run)
        return runs

    def _index_with_progress(self, docs: list, on_event: Callable[[StageEvent], None] | None, total: int) -> float:
        """Index documents not indexed yet, saying so: the first question on a document embeds
        it once, which a reviewer should see, not wonder about. Returns the seconds it took."""
        retriever = self.retriever
        todo = [d for d in docs if not retriever.store.is_built(d)]
        t0 = time.perf_counter()
        for n, d in enumerate(todo):
            if on_event is not None:
                on_event(StageEvent(stage="retrieval", status="progress", question_total=total,
                                    counts={"documents_indexed": n, "documents_to_index": len(todo)},
                                    message=f"indexing {d.document.filename} ({d.document.pages} pages): "
                                            "the first question on a document embeds it once"))
            retriever.index(d)
        return time.perf_counter() - t0 if todo else 0.0

    def prepare(self, document_ids: list[str]) -> threading.Thread | None:
        """Build the documents' retrieval indexes in a background thread (after an upload), so
        the first question does not wait for the embedding; a question asked meanwhile waits on
        the same per-document lock instead of embedding twice. Off with index_on_ingest=false."""
        if not self.settings.index_on_ingest or not document_ids:
            return None
        retriever = self.retriever  # created here, not raced for in the thread

        def build() -> None:
            for i in document_ids:
                try:
                    retriever.index(self.parsed(i))
                except Exception:  # noqa: BLE001 - a question on it will build (and report) again
                    log.exception("background indexing of %s failed", i)

        t = threading.Thread(target=build, name="workbench-index", daemon=True)
        t.start()
        return t

    @cached_property
    def retriever(self):
        """The hybrid retriever, one per workspace: its indexes stay loaded between questions."""
        from workbench.index.retrieve import Retriever

        return Retriever(self.settings)

    def check_claims(self, claims: list[str], document_ids: list[str], *, backend: str = "rules") -> list[ClaimCheck]:
        """Per claim (in order): supported or not, a score in [0, 1], a reason, and up to five
        evidence spans (best first) with page, offsets and boxes. The offline rules verifier
        (workbench.pipeline.claims) always judges; with backend "openai" the LLM's verdict on
        the same evidence (`claim_support`) is ANDed with it, so the LLM can only reject more."""
        from workbench.backends import get_backend
        from workbench.pipeline.claims import check_claims

        name = backend or "rules"
        engine = get_backend(name, self.settings) if name != "rules" else None
        if not any(c and c.strip() for c in claims):
            raise WorkbenchError("No claim given: write one claim per line.")
        if not document_ids:
            raise WorkbenchError("No documents selected: ingest or select at least one PDF to check claims against.")
        docs = [self.parsed(i) for i in dict.fromkeys(document_ids)]
        checks = check_claims(claims, docs, retriever=self.retriever, settings=self.settings,
                              embed=self.retriever.embed_texts)
        if engine is None or not hasattr(engine, "claim_support"):
            return checks
        out: list[ClaimCheck] = []
        for c in checks:
            if not c.claim.strip():
                out.append(c)
                continue
            ok, _score, why = engine.claim_support(c.claim, [e.text for e in c.evidence])
            supported = c.supported and ok
            reason = c.reason if ok or not c.supported else f"{why}; rules: {c.reason}"
            out.append(c.model_copy(update={"supported": supported, "reason": reason,
                                            "score": c.score if supported or not c.supported else min(c.score, 0.49)}))
        return out

    # --- store, review, metrics ----------------------------------------------------------
    @cached_property
    def store(self):
        """The workspace's Store (workbench.store.Store), opened and migrated on first use."""
        from workbench.store import Store

        return Store(self.settings)

    def runs(self) -> list[Run]:
        """Stored runs, newest first (as stored; `run(id)` re-verifies one)."""
        return self.store.list_runs()

    def run(self, run_id: str) -> Run:
        """A stored run, re-verified against the stored PDF bytes: evidence whose document bytes no
        longer hash to the document id, or whose text no longer hashes to its text_sha256, comes
        back unverified with rejection_reason "hash_mismatch"."""
        return self._load_run(run_id)[0]

    def _load_run(self, run_id: str, doc_ok: dict[str, bool] | None = None) -> tuple[Run, dict[str, bool]]:
        """The stored run re-verified, and hash_ok per evidence ID. `doc_ok` memoises the
        per-document byte check across runs within one call (metrics over many runs)."""
        run = self.store.get_run(run_id)
        doc_ok = {} if doc_ok is None else doc_ok
        for did in {ev.document_id for ev in run.evidence if ev.span is not None} - set(doc_ok):
            try:
                doc_ok[did] = hashlib.sha256(self.store.pdf_bytes(did)).hexdigest() == did
            except NotFoundError:
                doc_ok[did] = False
        hash_ok: dict[str, bool] = {}
        why: dict[str, str] = {}
        for ev in run.evidence:
            span = ev.span
            if span is None:  # never anchored: nothing to re-check, and never verified
                hash_ok[ev.requirement_id] = True
                continue
            ok = doc_ok[ev.document_id]
            if not ok:
                why[ev.requirement_id] = (f"the stored PDF {ev.document_id[:12]}… is missing or its bytes no "
                                          "longer match its SHA-256 (tampered or corrupted)")
            else:
                try:
                    text = self.parsed(ev.document_id).text
                    ok = sha256_text(text[span.start:span.end]) == span.text_sha256
                except WorkbenchError as exc:
                    ok = False
                    why[ev.requirement_id] = f"the stored PDF could not be re-opened to check it ({exc})"
                if not ok and ev.requirement_id not in why:
                    why[ev.requirement_id] = (f"the text at {span.start}:{span.end} of the stored PDF no longer "
                                              "matches the quote's SHA-256")
            hash_ok[ev.requirement_id] = ok
        if why:
            verifs = [v for v in run.verifications if v.requirement_id not in why]
            for rid, reason in why.items():
                old = run.verification_for(rid)
                verifs.append(Verification(requirement_id=rid, verified=False, rejection_reason="hash_mismatch",
                                           verification_rationale=f"Re-verification on load failed: {reason}.",
                                           score=0.0, verifier=old.verifier if old else "store"))
            order = {ev.requirement_id: i for i, ev in enumerate(run.evidence)}
            verifs.sort(key=lambda v: order.get(v.requirement_id, len(order)))
            run = run.model_copy(update={"verifications": verifs})
        return run, hash_ok

    def evidence_status(self, run_id: str) -> list[EvidenceStatus]:
        """Each evidence item with the verifier's verdict, the current human label (derived from
        the events; a reset clears it) and the final status (human label if any, else the
        verifier's; always unsupported when the hash re-check failed)."""
        run, hash_ok = self._load_run(run_id)
        return self._statuses(run, hash_ok, self.store.current_labels(run_id))

    @staticmethod
    def _statuses(run: Run, hash_ok: dict[str, bool], labels: dict) -> list[EvidenceStatus]:
        out = []
        for ev in run.evidence:
            rid = ev.requirement_id
            v = run.verification_for(rid)
            verifier = "supported" if v is not None and v.verified else "unsupported"
            cur = labels.get((run.run_id, rid))
            human = cur.label if cur else None
            ok = hash_ok.get(rid, True)
            out.append(EvidenceStatus(
                run_id=run.run_id, evidence=ev, verification=v, verifier_verdict=verifier, human_label=human,
                final_status=(human or verifier) if ok else "unsupported",
                reviewer=cur.reviewer if cur else None, note=cur.note if cur else None,
                reviewed_at=cur.timestamp if cur else None, hash_ok=ok))
        return out

    def review(self, run_id: str, requirement_id: str, label: str, reviewer: str, note: str = "") -> ReviewEvent:
        """Append a human label (supported / unsupported / reset) for an evidence ID, or "SENT-<n>"
        for the n-th answer sentence (1-based). Returns once the event is durably stored."""
        if label not in ("supported", "unsupported", "reset"):
            raise WorkbenchError(f"unknown label {label!r}: use supported, unsupported or reset")
        reviewer = (reviewer or "").strip()
        if not reviewer:
            raise WorkbenchError("a review needs the reviewer's name: pass --reviewer NAME")
        run, hash_ok = self._load_run(run_id)
        verdict = self._verifier_verdict(run, requirement_id)
        return self.store.add_review(ReviewEvent(run_id=run_id, requirement_id=requirement_id, label=label,
                                                 reviewer=reviewer, note=note or "", verifier_verdict=verdict))

    @staticmethod
    def _verifier_verdict(run: Run, requirement_id: str) -> str:
        from workbench.store.store import SENTENCE_ID

        m = SENTENCE_ID.match(requirement_id)
        if m:
            n, sentences = int(m.group(1)), run.answer.sentences
            if not 1 <= n <= len(sentences):
                raise NotFoundError(f"run {run.run_id} has no answer sentence {requirement_id} "
                                    f"(it has {len(sentences)}: SENT-1…SENT-{len(sentences)})")
            return "supported" if sentences[n - 1].supported else "unsupported"
        if not any(ev.requirement_id == requirement_id for ev in run.evidence):
            known = ", ".join(ev.requirement_id for ev in run.evidence[:8]) or "none"
            raise NotFoundError(f"run {run.run_id} has no evidence {requirement_id} (its IDs: {known}"
                                f"{', …' if len(run.evidence) > 8 else ''}); `workbench show RUN` lists them")
        v = run.verification_for(requirement_id)
        return "supported" if v is not None and v.verified else "unsupported"

    def history(self, run_id: str, requirement_id: str | None = None) -> list[ReviewEvent]:
        """Review events of a run (optionally one item) in the order they were recorded."""
        if requirement_id is None:
            if not self.store.has_run(run_id):
                raise NotFoundError(f"no run {run_id!r} in the store: `workbench runs` lists the stored runs")
        else:
            self._verifier_verdict(self.store.get_run(run_id), requirement_id)  # NotFoundError for unknown IDs
        return self.store.history(run_id, requirement_id)

    def answer_view(self, run_id: str) -> Answer:
        """The run's answer with final statuses applied: a sentence labelled by a human (SENT-n)
        takes that label; a sentence whose citations are all finally unsupported becomes
        unsupported; support ratio, citation coverage and grounding confidence follow."""
        run, hash_ok = self._load_run(run_id)
        labels = self.store.current_labels(run_id)
        return self._answer_view(run, self._statuses(run, hash_ok, labels), labels)

    @staticmethod
    def _answer_view(run: Run, statuses: list[EvidenceStatus], labels: dict) -> Answer:
        from workbench.pipeline.confidence import grounding_confidence

        final = {s.evidence.requirement_id: s.final_status for s in statuses}
        supported_ids = {rid for rid, f in final.items() if f == "supported"}
        sentences = []
        for i, s in enumerate(run.answer.sentences, 1):
            human = labels.get((run.run_id, f"SENT-{i}"))
            cites = [c for c in s.citations if c in final]
            if human is not None:
                s = s.model_copy(update={"supported": human.label == "supported",
                                         "reason": f"labelled {human.label} by {human.reviewer}"
                                                   + (f": {human.note}" if human.note else "")})
            elif s.supported and cites and not any(final[c] == "supported" for c in cites):
                s = s.model_copy(update={"supported": False,
                                         "reason": "every evidence item it cites is unsupported after review"})
            sentences.append(s)
        ans = run.answer.model_copy(update={"sentences": sentences})
        if sentences:
            ratio = round(sum(s.supported for s in sentences) / len(sentences), 4)
            cited = {c for s in sentences for c in s.citations if c in supported_ids}
            ans.support_ratio = ratio
            ans.citation_coverage = round(len(cited) / len(supported_ids), 4) if supported_ids else 0.0
            ans.grounding_confidence = grounding_confidence(len(supported_ids), ratio)
            if labels:  # the pipeline's findings predate the humans: say what their labels changed
                from workbench.models import QualityFinding

                n_sup = sum(s.supported for s in sentences)
                overridden = sorted({c for s in sentences for c in s.citations if final.get(c) == "unsupported"})
                ans.quality = [*run.answer.quality, QualityFinding(
                    check="after_review", passed=n_sup == len(sentences),
                    detail=f"{n_sup}/{len(sentences)} sentences supported once human labels apply"
                           + (f"; cited but marked unsupported: {', '.join(overridden)}" if overridden else ""))]
        elif not supported_ids:
            ans.grounding_confidence = "insufficient"
        if run.evidence and not supported_ids and not ans.result:
            ans.result = NO_AUTHORITATIVE_EVIDENCE
            ans.message = "No evidence item is supported after review: the answer has no authoritative evidence."
        return ans

    def metrics(self, run_id: str | None = None) -> ReviewMetrics:
        """Verifier-vs-human agreement, review progress, pass rates and distributions for one run,
        or overall (every stored run, with `per_run` filled)."""
        from workbench.store import metrics as m

        runs = [self.store.get_run(run_id)] if run_id else self.store.list_runs()
        labels = self.store.current_labels(run_id)
        events = self.store.history(run_id)
        per_run: list[ReviewMetrics] = []
        all_statuses: list[EvidenceStatus] = []
        confidences: list[str] = []
        doc_ok: dict[str, bool] = {}
        for stored in runs:
            run, hash_ok = self._load_run(stored.run_id, doc_ok)
            statuses = self._statuses(run, hash_ok, labels)
            conf = self._answer_view(run, statuses, labels).grounding_confidence
            all_statuses += statuses
            confidences.append(conf)
            per_run.append(m.compute(statuses, run_id=run.run_id, confidences=[conf],
                                     events=[e for e in events if e.run_id == run.run_id]))
        if run_id:
            return per_run[0]
        overall = m.compute(all_statuses, run_id=None, runs=len(runs), confidences=confidences, events=events)
        overall.per_run = per_run
        return overall

    def audit_trail(self, run_id: str) -> dict:
        """Seed 000's audit-trail JSON of a stored run, re-verified on load, each extracted
        requirement also carrying verifier_verdict, human_label (None when none), final_status,
        hash_ok and the current reviewer/note; `after_review` holds the answer's support and
        confidence with human labels applied (answer_view)."""
        run, hash_ok = self._load_run(run_id)
        labels = self.store.current_labels(run_id)
        statuses = {s.evidence.requirement_id: s for s in self._statuses(run, hash_ok, labels)}
        reviewed = self._answer_view(run, list(statuses.values()), labels)
        trail = run.audit_trail()
        for req in trail["extracted_requirements"]:
            s = statuses[req["requirement_id"]]
            req.update(verifier_verdict=s.verifier_verdict, human_label=s.human_label, final_status=s.final_status,
                       hash_ok=s.hash_ok, reviewer=s.reviewer, review_note=s.note,
                       reviewed_at=s.reviewed_at.isoformat() if s.reviewed_at else None)
        trail["created_at"] = run.created_at.isoformat()
        trail["after_review"] = {"grounding_confidence": reviewed.grounding_confidence,
                                 "support_ratio": reviewed.support_ratio,
                                 "citation_coverage": reviewed.citation_coverage,
                                 "sentence_support": [x.model_dump() for x in reviewed.sentences],
                                 "result": reviewed.result, "message": reviewed.message}
        return trail

    # --- export --------------------------------------------------------------------------
    def export(self, run_ids: list[str] | None, fmt: str, *, force: bool = False, reason: str | None = None,
               by: str | None = None):
        """Export runs (None or []: every stored run) as `fmt` (workbench.export.FORMATS) →
        workbench.export.ExportResult (bytes, media type, extension; several documents as a zip
        for `pdf`). Hashes are re-checked first (HashMismatchError); answer formats pass the
        seed-003 gate (ExportBlockedError with reasons) unless forced with a reason."""
        from workbench.export import FORMATS, render
        from workbench.export.bundle import ExportBundle, RunBundle

        if fmt not in FORMATS:
            raise WorkbenchError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
        ids = list(dict.fromkeys(run_ids or [r.run_id for r in self.runs()]))
        if not ids:
            raise NotFoundError("no runs to export: ask a question first (`workbench ask FILE --question ...`)")
        runs = []
        for rid in ids:
            run, hash_ok = self._load_run(rid)
            labels = self.store.current_labels(rid)
            statuses = self._statuses(run, hash_ok, labels)
            runs.append(RunBundle(run=run, statuses=statuses, history=self.store.history(rid),
                                  answer=self._answer_view(run, statuses, labels)))
        doc_ids = dict.fromkeys(d for rb in runs for d in rb.run.document_ids + [s.evidence.document_id
                                                                                  for s in rb.statuses])
        bundle = ExportBundle(runs=runs, documents={d: self.document(d) for d in doc_ids},
                              pdf_bytes=self.pdf_bytes, document_text=lambda d: self.parsed(d).text)
        return render(bundle, fmt, min_coverage=self.settings.gate_min_coverage,
                      min_support=self.settings.gate_min_support, force=force, reason=reason, by=by)
