"""Use-cases the UI and the CLI share. Pages and commands call these; nothing above this
module touches the store, the index or PyMuPDF directly.

Sections are owned by area (pdf/ingest, pipeline, store/review, export); each method's
docstring is its contract."""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.config import Settings
from workbench.errors import NotFoundError, ReviewerRequiredError, WorkbenchError
from workbench.models import (
    LABELS,
    SOURCE_TYPES,
    Answer,
    ClaimCheck,
    Document,
    EvidenceStatus,
    Identity,
    ReviewedRun,
    ReviewEvent,
    ReviewMetrics,
    Run,
    StageEvent,
)
from workbench.review import REVIEW_ORDERS
from workbench.store.metrics import KAPPA_MIN_LABELS

if TYPE_CHECKING:
    from workbench.pdf.cache import ParsedCache
    from workbench.pdf.document import ParsedDocument

log = logging.getLogger(__name__)


def backend_names() -> tuple[str, ...]:
    """The backends a front end offers (workbench.backends.BACKENDS)."""
    from workbench.backends import BACKENDS

    return BACKENDS


def export_formats() -> list[str]:
    """The export formats a front end offers (workbench.export.FORMATS)."""
    from workbench.export import FORMATS

    return list(FORMATS)


def without_citations(sentence: str) -> str:
    """A sentence as its author wrote it, without the [REQ-…] citations the check added."""
    from workbench.text import strip_citations

    return strip_citations(sentence)


class Workbench:
    """One workspace: settings, the store, caches of parsed documents and indexes."""

    REVIEW_ORDERS = REVIEW_ORDERS  # review_queue's orders, with their labels
    KAPPA_MIN_LABELS = KAPPA_MIN_LABELS  # κ is shown from this many labels up (workbench.store.metrics)

    def __init__(self, settings: Settings):
        from workbench.security_log import capture

        self.settings = settings
        self.settings.ensure_dirs()
        capture(lambda: self.store)  # the "workbench.security" logger writes to this workspace's log

    # --- documents ---------------------------------------------------------------------
    def ingest(self, source: bytes | str | Path, filename: str | None = None, *, password: str | None = None,
               source_type: str | None = None, on_ocr: Callable[[int, int], None] | None = None) -> Document:
        """Open, validate and keep a PDF (content-addressed). Raises workbench.errors.PdfError
        subclasses with a user-facing message for bad input. No `source_type` keeps the one a
        stored copy already has (e.g. `verify` on a contract), else "other". Pages without usable
        text are read by OCR (Settings.ocr), `on_ocr(pages done, pages to read)` after each; pages
        of the same file read before (the parse cache) are reused, never read again."""
        from workbench.pdf import open_pdf

        if source_type is not None and source_type != "auto" and source_type not in SOURCE_TYPES:
            raise WorkbenchError(f"unknown source type {source_type!r}: use one of {', '.join(SOURCE_TYPES)} "
                                 "or auto")
        parsed = open_pdf(source, password=password, filename=filename, settings=self.settings, on_ocr=on_ocr,
                          ocr_known=self._parsed_cache.ocr_reads)
        stored = self.store.get_document(parsed.document.id) if self.store.has_document(parsed.document.id) else None
        chosen_by = "user"
        if source_type in (None, "auto") and stored is not None:
            source_type, chosen_by = stored.source_type, stored.source_type_from  # the stored copy's choice stays
        elif source_type == "auto":  # from the document's own words; the user may change it later
            from workbench.text.doctype import infer_source_type

            source_type, chosen_by = infer_source_type(parsed.text, parsed.document.title), "content"
        elif source_type is None:
            source_type, chosen_by = "other", "default"
        update = {"source_type": source_type, "source_type_from": chosen_by, "removed_at": None, "removed_by": None}
        parsed.document = parsed.document.model_copy(update=update)
        self.store.put_document(parsed.document, parsed.pdf_bytes)
        self._parsed_cache.put(parsed)
        return parsed.document

    def documents(self, *, include_removed: bool = False) -> list[Document]:
        """Stored documents; removed ones (soft delete) only when asked for."""
        docs = self.store.list_documents()
        return docs if include_removed else [d for d in docs if d.removed_at is None]

    def set_source_type(self, document_id: str, source_type: str, *, identity: Identity | None = None) -> Document:
        """Change a document's source type after ingest. Evidence IDs already issued keep their
        letter (an ID is stable per document span); evidence found from now on gets the new one.
        With sign-in: an admin's (auth.PERMISSIONS["retype_document"])."""
        self.authorize(identity, "retype_document")
        if source_type not in SOURCE_TYPES:
            raise WorkbenchError(f"unknown source type {source_type!r}: use one of {', '.join(SOURCE_TYPES)}")
        doc = self.document(document_id).model_copy(update={"source_type": source_type, "source_type_from": "user"})
        self.store.put_document(doc, self.pdf_bytes(document_id))
        self.parsed(document_id).document = doc
        return doc

    def remove_document(self, document_id: str, by: str | None = None, *, identity: Identity | None = None) -> Document:
        """Soft delete: the document leaves the document list and new runs, and is recorded as
        removed (when, by whom); runs that cite it stay readable and exportable. Ingesting the
        same file again restores it. With sign-in: an admin's, recorded under the admin's name."""
        from workbench.models import utcnow

        me = self.authorize(identity, "remove_document")
        by = me.name if me is not None else by

        doc = self.document(document_id).model_copy(update={"removed_at": utcnow(), "removed_by": (by or "").strip()
                                                            or None})
        self.store.put_document(doc, self.pdf_bytes(document_id))
        return doc

    def document(self, document_id: str) -> Document:
        return self.store.get_document(document_id)

    def document_with_bib(self, document_id: str) -> Document:
        """The stored document with what its first pages state about it (Document.bib: full
        title, DOI, report number, date, kind), read once per parsed document."""
        from workbench.pdf.bibinfo import read_bibinfo

        doc = self.document(document_id)
        if doc.bib is not None:
            return doc
        try:
            parsed = self.parsed(document_id)
            bib = parsed.derived("bibinfo", lambda: read_bibinfo(parsed, doc.title))
        except Exception:  # noqa: BLE001 - the bibliography falls back to the PDF's metadata
            return doc
        return doc.model_copy(update={"bib": bib})

    def pdf_bytes(self, document_id: str) -> bytes:
        return self.store.pdf_bytes(document_id)

    def parsed(self, document_id: str) -> ParsedDocument:
        """The ParsedDocument for a stored document, from the workspace's cache (workbench.pdf.cache:
        memory LRU, then disk by parser version + SHA-256), parsed from the stored bytes on a miss."""
        return self._parsed_cache.get(document_id)

    def page_labels(self, document_id: str) -> list[str]:
        """Each page's printed label ("" when unknown), e.g. "28" for PDF page 40."""
        return list(self.parsed(document_id).page_labels)

    def page_words(self, document_id: str, page: int) -> list[tuple]:
        """The words of a 1-based page as (x0, y0, x1, y1, text, start, end): boxes in PDF points
        of the cropbox, offsets into the document's text. The viewer's selectable text layer is
        built from these, so a selection maps to exact character offsets (add_evidence). On a page
        read by OCR each word also carries OCR's confidence (0..1) as an 8th element, so the
        reviewer can see which words OCR was unsure of."""
        parsed = self.parsed(document_id)
        if not 1 <= page <= len(parsed.pages):
            raise IndexError(f"page {page} is outside 1..{len(parsed.pages)}")
        text = parsed.text
        words = [(w.x0, w.y0, w.x1, w.y1, text[w.start:w.end], w.start, w.end) for w in parsed.words_on(page)]
        confs = parsed.page_ocr_confidences(page)
        return words if confs is None else [(*w, c) for w, c in zip(words, confs, strict=True)]

    @cached_property
    def _parsed_cache(self) -> ParsedCache:
        from workbench.pdf.cache import ParsedCache

        return ParsedCache(self.settings.data_dir / "parsed", self._parse_stored)

    def _parse_stored(self, document_id: str) -> ParsedDocument:
        from workbench.pdf import open_pdf

        doc = self.store.get_document(document_id)
        parsed = open_pdf(self.store.pdf_bytes(document_id), filename=doc.filename, settings=self.settings)
        parsed.document = doc  # the stored metadata (source type) is the record
        return parsed

    # --- runs --------------------------------------------------------------------------
    def ask(self, questions: list[str], document_ids: list[str], *, backend: str = "rules",
            source_type: str | None = None, on_event: Callable[[StageEvent], None] | None = None,
            run_ids: list[str] | None = None) -> list[Run]:
        """Run each question through the pipeline over the documents and store the runs.
        Evidence IDs come from the store, so the same (document, span) keeps its ID across
        runs; `source_type` overrides the documents' own for the IDs' prefix. `run_ids` (one per
        question, from a job) makes it idempotent: a question whose run is stored is not re-run."""
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
        cal = self.calibration()
        if cal is not None:  # the verifier as the reviewers taught it (workbench calibrate)
            from workbench.calibration import CalibratedBackend

            engine = CalibratedBackend(engine, cal)
        indexing_s = self._index_with_progress(docs, on_event, len(questions))
        if run_ids is not None and len(run_ids) != len(questions):
            raise WorkbenchError(f"{len(run_ids)} run ids for {len(questions)} questions")
        runs: list[Run] = []
        for i, q in enumerate(questions):
            rid = run_ids[i] if run_ids else None
            if rid is not None and self.store.has_run(rid):  # stored by an earlier attempt of the job
                runs.append(self.store.get_run(rid))
                continue
            run = run_question(q, docs, retriever=self.retriever, backend=engine, ids=self.store, settings=self.settings,
                               on_event=on_event, source_type=source_type, question_index=i,
                               question_total=len(questions), run_id=rid)
            if i == 0 and indexing_s:  # the first question paid for indexing: its audit trail says so
                run.stage_timings = {"indexing": round(indexing_s, 4), **run.stage_timings}
            run.settings["calibration"] = ({"id": cal.id, "threshold": cal.threshold, "fitted_at": cal.fitted_at.isoformat()}
                                           if cal is not None else None)
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
        the same per-document lock instead of embedding twice. Off with index_on_ingest=false.
        With a job queue (queue_url) it queues an "index" job for the workers instead."""
        if not self.settings.index_on_ingest or not document_ids:
            return None
        if self.settings.queue_url:  # a team setup: the workers index, this process stays light
            self.submit("index", document_ids=document_ids)
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
        cal = self.calibration("claims")  # the claim checker as the reviewers taught it
        checks = check_claims(claims, docs, retriever=self.retriever, settings=self.settings,
                              embed=self.retriever.embed_texts, threshold=cal.threshold if cal else None)
        if engine is None:  # rules: the claims judge above is the verdict
            return checks
        out: list[ClaimCheck] = []
        for c in checks:
            if not c.claim.strip():
                out.append(c)
                continue
            ok, _score, why = engine.claim_support(c.claim, [e.text for e in c.evidence])
            supported = c.supported and ok
            reason = c.reason if ok or not c.supported else f"{why}; rules: {c.reason}"
            verdict = c.verdict if supported or not c.supported else "not_stated"
            out.append(c.model_copy(update={"supported": supported, "reason": reason, "verdict": verdict,
                                            "score": c.score if supported or not c.supported else min(c.score, 0.49)}))
        return out

    # --- check a draft (seed 004) -----------------------------------------------------------
    DRAFT_FORMATS = ("md", "html", "json")

    def check_draft(self, draft: str, document_ids: list[str], *, title: str | None = None, markdown: bool = True,
                    backend: str = "rules") -> Run:
        """Check an analyst's draft (plain text or Markdown) sentence by sentence against the
        documents with the claim verifier of `workbench verify` (`check_claims`), and store it as
        a run of kind "draft": each sentence cites its best evidence span, supported or not, with
        the check's score and reason. Sentences are relabelled like any answer sentence
        (`review(run_id, "SENT-n", ...)`), evidence items like any item."""
        from workbench.pipeline.draft import draft_run
        from workbench.pipeline.run import new_run_id
        from workbench.text.draft import draft_sentences

        sentences = draft_sentences(draft or "", markdown)
        if not sentences:
            raise WorkbenchError("The draft has no sentences to check: paste or upload the text of a drafted answer.")
        if not document_ids:
            raise WorkbenchError("No documents selected: pick the documents the draft should be checked against.")
        checks = self.check_claims(sentences, document_ids, backend=backend)
        docs = {i: self.document(i) for i in dict.fromkeys(document_ids)}
        cal = self.calibration("claims")
        run = draft_run(run_id=new_run_id(), title=" ".join((title or "").split()) or f"Draft: {sentences[0][:60]}",
                        draft=draft, sentences=sentences, checks=checks, documents=docs,
                        assign_ids=self.store.assign_evidence_ids, backend=backend,
                        settings={"draft_format": "markdown" if markdown else "text", "sentences": len(sentences),
                                  "calibration": None if cal is None else {"id": cal.id, "threshold": cal.threshold,
                                                                           "target": cal.target}})
        self.store.save_run(run)
        return run

    def export_draft(self, run_id: str, fmt: str) -> tuple[bytes, str, str]:
        """A checked draft as md, html or json: each sentence with its final verdict (human
        labels applied), score, citation and the cited quote with document and page. A report of
        the check, so no gate: every unsupported sentence is marked as such. → (bytes, media
        type, file extension)."""
        from workbench.export.draft import render_draft

        if fmt not in self.DRAFT_FORMATS:
            raise WorkbenchError(f"unknown draft export format {fmt!r}: use one of {', '.join(self.DRAFT_FORMATS)}")
        rr = self.reviewed(run_id)
        if rr.run.kind != "draft":
            raise WorkbenchError(f"run {run_id} is a question, not a checked draft: use `export` for it")
        docs = {d: self.document(d) for d in dict.fromkeys(rr.run.document_ids + [s.evidence.document_id
                                                                                  for s in rr.statuses])}
        return render_draft(rr, docs, fmt)

    # --- jobs (workbench.jobs: in this process, or RQ workers when queue_url is set) -------
    @cached_property
    def jobs(self):
        """The job queue: RQ on Redis when settings.queue_url is set, else a thread of this process."""
        from workbench.jobs import get_queue

        return get_queue(self.settings, self)

    def submit(self, kind: str, *, questions: list[str] | None = None, claims: list[str] | None = None,
               document_ids: list[str] | None = None, paths: list[str | Path] | None = None,
               backend: str | None = None, source_type: str | None = None, password: str | None = None,
               identity: Identity | None = None):
        """Queue a job → JobInfo: "ingest" (paths: open, keep and index), "index" (document_ids),
        "ask" (questions over document_ids and/or paths: one run per question), "cell" (a review
        table's cell: one question over one document and its related ones) or "verify" (claims). Bad input is refused here, before anything is queued. `identity` (who asked,
        sign-in on) travels signed with the job. A `password` is never queued: the PDFs it opens
        are opened and stored here, and the job names their stored ids."""
        if kind not in ("ingest", "index", "ask", "verify", "cell"):
            raise WorkbenchError(f"unknown job kind {kind!r}: use ingest, index, ask, verify or cell")
        if identity is not None and self.sign_in_required():
            identity = self.identity(identity)  # a job names only a session the store still holds
        files = [str(Path(p).resolve()) for p in paths or []]
        if not files and not document_ids:
            raise WorkbenchError("No documents given: name PDF files or stored document ids for the job.")
        if password:
            opened = [self.ingest(Path(f), password=password, source_type=source_type).id for f in files]
            document_ids, files = list(dict.fromkeys([*(document_ids or []), *opened])), []
        payload: dict = {"document_ids": list(document_ids or []), "paths": files, "backend": backend,
                         "source_type": source_type}
        if kind in ("ask", "cell"):
            payload["questions"] = [" ".join(q.split()) for q in questions or [] if q and q.strip()]
            if not payload["questions"]:
                raise WorkbenchError("No question given: type a question (or a list, one per line).")
        if kind == "cell" and (len(payload["questions"]) != 1 or len(payload["document_ids"]) + len(files) < 1):
            raise WorkbenchError("a table cell is one question over one document (and the amendments related to it)")
        if kind == "verify":
            payload["claims"] = [c for c in claims or [] if c and c.strip()]
            if not payload["claims"]:
                raise WorkbenchError("No claim given: write one claim per line.")
        return self.jobs.submit(kind, payload, identity)

    def job(self, job_id: str):
        """A job's JobInfo (NotFoundError when unknown)."""
        return self.jobs.get(job_id)

    def job_list(self):
        """Known jobs, newest first."""
        return self.jobs.list()

    def job_events(self, job_id: str) -> list[StageEvent]:
        """A job's stage events so far, in order."""
        return self.jobs.events(job_id)

    def wait(self, job_ids: list[str], timeout: float | None = None):
        """The jobs once each is finished or failed, or as they stand after `timeout` seconds."""
        from workbench.jobs import wait

        return wait(self.jobs, job_ids, timeout)

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
        return self.reviewed(run_id).run

    _REVIEWED_LRU = 64

    def reviewed(self, run_id: str) -> ReviewedRun:
        """The run as a reader sees it (workbench.review.reviewed_run): final statuses, the
        recomposed answer and its revisions. Cached per (run, event count), so a page that reads
        it several times per rerun re-checks the PDF hashes once, not per read."""
        from workbench.review import added_evidence, check_hashes, reviewed_run

        n = self.store.event_count(run_id)
        # Signature and review-chain check on every read (cheap), so an edit made in the database
        # while the app runs is seen at once: docs/design-notes.md, "Integrity".
        tampered = tuple(self.store.run_problems(run_id))
        forged = tuple(self.store.event_problems(run_id))  # set aside: history() holds the proven events
        cache = self.__dict__.setdefault("_reviewed_cache", OrderedDict())
        lock = self.__dict__.setdefault("_reviewed_lock", threading.Lock())
        with lock:
            hit = cache.get((run_id, n, tampered, forged))
            if hit is not None:
                cache.move_to_end((run_id, n, tampered, forged))
                return hit
        run = self.store.get_run(run_id)
        events = self.store.history(run_id)
        items = [*run.evidence, *added_evidence(events)]
        problems = check_hashes(items, self._pdf_ok, lambda d: self.parsed(d).text)
        if tampered:  # an edited record: nothing in it is evidence any more
            why = "the stored record was changed outside the workbench: " + "; ".join(tampered)
            problems = {ev.requirement_id: why for ev in items}
        for ev in items:  # runs stored before printed page labels were read
            if ev.span is not None and ev.span.page_label is None and ev.requirement_id not in problems:
                ev.span.page_label = self.parsed(ev.document_id).page_label(ev.span.page)
        rr = reviewed_run(run, events, problems)
        rr.record_problems = [*tampered, *forged]
        with lock:
            cache[(run_id, n, tampered, forged)] = rr
            while len(cache) > self._REVIEWED_LRU:
                cache.popitem(last=False)
        return rr

    def _pdf_ok(self, document_id: str) -> bool:
        """Whether the stored bytes still hash to the document's id (its SHA-256)."""
        try:
            return hashlib.sha256(self.store.pdf_bytes(document_id)).hexdigest() == document_id
        except NotFoundError:
            return False

    def evidence_status(self, run_id: str) -> list[EvidenceStatus]:
        """Each evidence item (reviewer-added ones last) with the verifier's verdict, the current
        human label (derived from the events; a reset clears it) and the final status (human
        label if any, else the verifier's; always unsupported when the hash re-check failed)."""
        return self.reviewed(run_id).statuses

    def review_queue(self, run_id: str, order: str = "document") -> list[EvidenceStatus]:
        """The run's items in a review order (workbench.review.REVIEW_ORDERS): document order, the
        verifier's least sure first, or reviewers' disagreements first; in each, quotes read by
        OCR with a word below settings.ocr_low_confidence come first until a human labels them."""
        from workbench.review import review_order

        return review_order(self.reviewed(run_id).statuses, order, ocr_low=self.settings.ocr_low_confidence)

    def review_first_reason(self, status: EvidenceStatus) -> str | None:
        """Why review_queue put this item first (workbench.review.ocr_review_reason), naming the
        words OCR was unsure of ("Plunger" 0.41) so the reviewer knows where to look; None when
        it is in its place for the order's own reasons."""
        from workbench.review import ocr_review_reason

        low = self.settings.ocr_low_confidence
        reason = ocr_review_reason(status, low)
        sp = status.evidence.span
        if reason is None or sp is None:
            return reason
        try:
            doubts = self.parsed(sp.document_id).ocr_doubts(sp.start, sp.end, low)
        except WorkbenchError:  # the PDF is gone: the reason stands without the words
            return reason
        if doubts:
            reason += " Words read below it: " + ", ".join(f"“{w}” {c:.2f}" for w, c in doubts[:12]) \
                + (f" and {len(doubts) - 12} more" if len(doubts) > 12 else "") + "."
        return reason

    def review(self, run_id: str, requirement_id: str, label: str, reviewer: str | None, note: str = "", *,
               adjudication: bool = False, identity: Identity | None = None) -> ReviewEvent:
        """Append a human label (supported / unsupported / contradicted / reset) for an evidence ID,
        or "SENT-<n>" for the n-th sentence of the answer as a reader sees it now (1-based).
        Contradicted: the documents say otherwise; it counts as not supported everywhere a binary
        status is read (final status, metrics, calibration) and sets the verdict. `adjudication`
        records the label as the decision that settles reviewers' disagreement. Returns once the
        event is durably stored. With sign-in on, the event records `identity` (a signed-in
        reviewer; `reviewer` is ignored) and adjudicating needs the adjudicator role."""
        if label not in LABELS:
            raise WorkbenchError(f"unknown label {label!r}: use supported, unsupported, contradicted or reset")
        reviewer = self._reviewer(reviewer, identity, "adjudicate" if adjudication else "label")
        verdict = self._verifier_verdict(self.reviewed(run_id), requirement_id)
        return self.store.add_review(ReviewEvent(run_id=run_id, requirement_id=requirement_id, label=label,
                                                 reviewer=reviewer, note=note or "", verifier_verdict=verdict,
                                                 kind="adjudication" if adjudication else "label"))

    # --- sign-in, accounts and roles (Settings.sign_in; the table: workbench.auth.PERMISSIONS) -----
    def sign_in_required(self) -> bool:
        """Whether actions need a signed-in identity: this process's setting, or the store's own
        record that sign-in is on (an account exists, or a process with sign-in on has used it), so
        a client started with sign-in off cannot act around it."""
        from workbench.auth import SIGN_IN_REQUIRED

        if self.settings.sign_in:
            if not self.__dict__.get("_sign_in_recorded"):
                self.store.set_flag(SIGN_IN_REQUIRED)
                self._sign_in_recorded = True
            return True
        return self.store.flag(SIGN_IN_REQUIRED) is not None or self.store.count_users() > 0

    def identity(self, identity: Identity | None, *, log: bool = True) -> Identity:
        """The account behind a session as the store holds it now (role included; the role the
        Identity claims is ignored). SignInError when there is none, it is disabled, or its
        password, role or state changed since the session began (its proof no longer matches)."""
        import hmac

        from workbench.auth import OIDC_PREFIX, session_proof
        from workbench.errors import SignInError

        if identity is None:
            raise SignInError("sign in first")
        user = self.store.get_user(identity.name)
        if identity.via == "oidc":  # an identity-provider user may have an account row for their role
            ok = identity.name.startswith(OIDC_PREFIX) and (user is None or user["password_hash"] is None)
        else:
            ok = user is not None and user["password_hash"] is not None
        proof = session_proof(self.store.signer, identity.name, identity.via, user["session_version"] if user else 0)
        if not (ok and not (user and user["disabled"])
                and hmac.compare_digest((identity.session or "").encode(), proof.encode())):
            if log:
                self._security("session_refused", "no such session, or the account changed since",
                               who=identity.name)
            raise SignInError("your session has ended (the account was changed or disabled, or this is not a "
                              "session of it): sign in again")
        return Identity(name=identity.name, role=user["role"] if user else "reviewer", via=identity.via,
                        session=identity.session)

    def authorize(self, identity: Identity | None, action: str) -> Identity | None:
        """Check that `identity` may take `action` (a key of workbench.auth.PERMISSIONS) now, its
        account re-read from the store. Returns the current Identity; None when sign-in is not
        required (one analyst, no accounts: anything goes). Refusals go to the security log."""
        from workbench.auth import ACTION_WORDS, PERMISSIONS, requires_role
        from workbench.errors import ForbiddenError, SignInError

        if action not in PERMISSIONS:
            raise ValueError(f"unknown action {action!r}: workbench.auth.PERMISSIONS lists them")
        if not self.sign_in_required():
            return None
        try:
            me = self.identity(identity) if identity is not None else None
            requires_role(me, PERMISSIONS[action], ACTION_WORDS[action])
        except (SignInError, ForbiddenError) as exc:
            self._security("refused", {"action": action, "why": str(exc)}, who=identity.name if identity else None)
            raise
        return me

    def may(self, identity: Identity | None, action: str) -> bool:
        """Whether `identity` may take `action` now (for a front end to offer it or not; the action
        itself checks again, authorize)."""
        from workbench.auth import PERMISSIONS, has_role
        from workbench.errors import SignInError

        if not self.sign_in_required():
            return True
        try:
            return identity is not None and has_role(self.identity(identity, log=False), PERMISSIONS[action])
        except SignInError:
            return False

    def _reviewer(self, name: str | None, identity: Identity | None, action: str) -> str:
        """The name a review event records: the signed-in identity's when sign-in is required
        (role checked), else the name given."""
        from workbench.auth import ACTION_WORDS

        me = self.authorize(identity, action)
        if me is not None:
            return me.name
        name = (name or "").strip()
        if not name:
            raise ReviewerRequiredError(f"{ACTION_WORDS[action]} needs the reviewer's name")
        return name

    def _security(self, kind: str, detail: str | dict | None = None, who: str | None = None,
                  client: str | None = None) -> None:
        from workbench.security_log import record

        record(self.store, kind, detail, who=who, client=client)

    def _manage(self, identity: Identity | None) -> str:
        """Who manages accounts: an admin, or while no account exists (bootstrapping) the owner of
        the data folder, who may create the first admin."""
        me = self.authorize(identity, "manage_accounts") if self.store.count_users() else None
        return me.name if me is not None else "data folder owner"

    def _owns_data_dir(self) -> bool:
        import os

        geteuid = getattr(os, "geteuid", None)
        return geteuid is None or self.settings.data_dir.stat().st_uid == geteuid()

    def add_user(self, name: str, role: str, password: str | None, *, oidc: bool = False,
                 identity: Identity | None = None) -> Identity:
        """Create an account; never changes one (change_password, set_role, disable_user do).
        `oidc`: an identity-provider user named by their e-mail (stored 'oidc:<e-mail>', no
        password), for their role. Needs an admin's identity; while no account exists, the owner
        of the data folder creates the first one, an admin."""
        from workbench.auth import OIDC_PREFIX, hash_password, oidc_account_name
        from workbench.errors import ForbiddenError
        from workbench.models import ROLES

        name = " ".join((name or "").split())
        if not name:
            raise WorkbenchError("an account needs a name")
        if role not in ROLES:
            raise WorkbenchError(f"unknown role {role!r}: use one of {', '.join(ROLES)}")
        if oidc:
            name, password = oidc_account_name(name), None
        elif name.lower().startswith(OIDC_PREFIX):
            raise WorkbenchError(f"a local account's name may not begin with {OIDC_PREFIX!r} (identity-provider "
                                 "accounts are named so)")
        elif not password:
            raise WorkbenchError("a local account needs a password (or is an identity-provider account: oidc)")
        if self.store.count_users() == 0:
            if role != "admin":
                raise WorkbenchError("the first account must be an admin's: create it with --role admin, then "
                                     "add the others as that admin")
            if not self._owns_data_dir():
                raise ForbiddenError("only the owner of the data folder may create the first admin", needs="admin")
        by = self._manage(identity)
        if self.store.get_user(name) is not None or not self.store.add_user(name, role, hash_password(password)
                                                                            if password else None):
            raise WorkbenchError(f"an account named {name} exists: change it with `workbench user passwd`, "
                                 "`user role` or `user disable`, never by adding it again")
        self._security("account_added", {"account": name, "role": role}, who=by)
        return Identity(name=name, role=role, via="oidc" if oidc else "local")

    def account_active(self, name: str) -> bool:
        """Whether a local account of this name exists and is not disabled (the viewer's links
        ask on every request, so a removed or disabled account reads nothing more)."""
        user = self.store.get_user(" ".join((name or "").split()))
        return user is not None and not user.get("disabled")

    def _account(self, name: str) -> dict:
        user = self.store.get_user(" ".join((name or "").split()))
        if user is None:
            raise NotFoundError(f"no account named {name!r}: `workbench user list` lists them")
        return user

    def _keep_an_admin(self, user: dict) -> None:
        if user["role"] == "admin" and not user["disabled"] and \
                self.store.count_users(role="admin", enabled_only=True) <= 1:
            raise WorkbenchError(f"{user['name']} is the last admin: make another admin first")

    def set_role(self, name: str, role: str, *, identity: Identity | None = None) -> None:
        """Change an account's role (an admin's); its open sessions end at once."""
        from workbench.models import ROLES

        if role not in ROLES:
            raise WorkbenchError(f"unknown role {role!r}: use one of {', '.join(ROLES)}")
        by = self._manage(identity)
        user = self._account(name)
        if role != "admin":
            self._keep_an_admin(user)
        self.store.update_user(user["name"], role=role)
        self._security("role_changed", {"account": user["name"], "from": user["role"], "to": role}, who=by)

    def disable_user(self, name: str, *, identity: Identity | None = None) -> None:
        """Disable an account (an admin's): it cannot sign in, its open sessions end at once.
        Its name stays on the decisions it recorded."""
        by = self._manage(identity)
        user = self._account(name)
        self._keep_an_admin(user)
        self.store.update_user(user["name"], disabled=True)
        self._security("account_disabled", {"account": user["name"]}, who=by)

    def enable_user(self, name: str, *, identity: Identity | None = None) -> None:
        by = self._manage(identity)
        user = self._account(name)
        self.store.update_user(user["name"], disabled=False)
        self._security("account_enabled", {"account": user["name"]}, who=by)

    def change_password(self, name: str, new_password: str, *, identity: Identity | None = None,
                        old_password: str | None = None, client: str | None = None) -> None:
        """Set a local account's password: by an admin (`identity`), or by its owner with the old
        password (`old_password`, checked like a sign-in, throttled). Its open sessions end."""
        from workbench.auth import hash_password

        user = self._account(name)
        if old_password is not None:
            by = self.sign_in(user["name"], old_password, client=client).name
        else:
            by = self._manage(identity)
        if user["password_hash"] is None:
            raise WorkbenchError(f"{user['name']} signs in through the identity provider: it has no password here")
        self.store.update_user(user["name"], password_hash=hash_password(new_password))
        self._security("password_changed", {"account": user["name"]}, who=by)

    def users(self, *, identity: Identity | None = None) -> list:
        """The accounts (workbench.auth.Account), for an admin."""
        from workbench.auth import OIDC_PREFIX, Account

        self._manage(identity)
        return [Account(name=u["name"], role=u["role"], disabled=bool(u["disabled"]),
                        via="oidc" if u["name"].startswith(OIDC_PREFIX) else "local") for u in self.store.list_users()]

    def security_events(self, *, identity: Identity | None = None, limit: int | None = 500) -> list:
        """The newest security events, oldest first (workbench.security_log.SecurityEvent), for
        an admin."""
        from workbench.security_log import SecurityEvent

        self.authorize(identity, "read_security_log")
        return [SecurityEvent(**e) for e in self.store.security_events(limit=limit)]

    def sign_in(self, name: str, password: str, *, client: str | None = None) -> Identity:
        """The identity of a local account whose password matches, with its session's proof.
        SignInError otherwise: the same message whether the name or the password was wrong, and
        the same cost (a hash runs either way). Too many failures for the name or from `client`
        (an address, `cli:<user>`) are refused before any hash, for a while (auth.throttle_wait).
        A hash made at an older cost is re-made now."""
        from workbench import auth

        name, client = " ".join((name or "").split()), (client or "unknown")[:200]
        with auth.one_attempt_at_a_time(name, client):
            return self._sign_in(name, password, client)

    def _sign_in(self, name: str, password: str, client: str) -> Identity:
        from datetime import timedelta

        from workbench import auth
        from workbench.errors import SignInError

        wait = auth.throttle_wait(self.store, self.settings, name, client)
        if wait is not None:
            recent = self.store.security_events(since=auth.utcnow() - timedelta(minutes=1),
                                                kinds=(auth.THROTTLED,), who=name, client=client)
            if not recent:  # one line per name and client a minute, however fast they hammer
                self._security(auth.THROTTLED, {"wait_s": int(wait.total_seconds())}, who=name, client=client)
            minutes = max(1, -(-int(wait.total_seconds()) // 60))
            raise SignInError(f"too many failed sign-ins for this name or from this place: try again in "
                              f"{minutes} minute{'s' if minutes > 1 else ''}")
        user = None if name.lower().startswith(auth.OIDC_PREFIX) else self.store.get_user(name)
        stored = user["password_hash"] if user else None
        if not auth.check_password(password or "", stored) or user is None:  # a hash runs either way
            self._security(auth.FAILED, {"reason": "unknown name" if user is None else "wrong password"},
                           who=name, client=client)
            raise SignInError("unknown name or wrong password")
        if user["disabled"]:
            self._security(auth.FAILED, {"reason": "account disabled"}, who=name, client=client)
            raise SignInError("this account is disabled: ask an admin")
        if auth.needs_rehash(stored) and len(password) >= auth.MIN_PASSWORD:
            self.store.update_user(name, new_session=False, password_hash=auth.hash_password(password))
        self._security(auth.SIGNED_IN, None, who=name, client=client)
        proof = auth.session_proof(self.store.signer, name, "local", user["session_version"])
        return Identity(name=user["name"], role=user["role"], via="local", session=proof)

    def oidc_identity(self, claims: dict) -> Identity:
        """The identity of a user signed in through the identity provider (st.login): named
        'oidc:<e-mail>', only for an e-mail the provider verified (auth.oidc_name; the subject
        names no one), role from the admin-made account of that name, else reviewer."""
        from workbench.auth import oidc_name, session_proof
        from workbench.errors import SignInError

        try:
            name = oidc_name(claims)
        except SignInError as exc:
            self._security("sign_in_failed", {"reason": str(exc), "via": "oidc"},
                           who=str(claims.get("email") or claims.get("sub") or "")[:200], client="oidc")
            raise
        user = self.store.get_user(name)
        if user is not None and (user["disabled"] or user["password_hash"] is not None):
            self._security("sign_in_failed", {"reason": "account disabled", "via": "oidc"}, who=name, client="oidc")
            raise SignInError("this account is disabled: ask an admin")
        proof = session_proof(self.store.signer, name, "oidc", user["session_version"] if user else 0)
        return Identity(name=name, role=user["role"] if user else "reviewer", via="oidc", session=proof)

    @staticmethod
    def _verifier_verdict(rr: ReviewedRun, requirement_id: str) -> str:
        from workbench.review import SENTENCE_PREFIX, sentence_verdict

        if requirement_id.startswith(SENTENCE_PREFIX):
            verdict = sentence_verdict(rr, requirement_id)
            if verdict is None:
                n = len(rr.answer.sentences)
                raise NotFoundError(f"run {rr.run.run_id} has no answer sentence {requirement_id} "
                                    f"(it has {n}: SENT-1…SENT-{n})")
            return verdict
        status = rr.status_for(requirement_id)
        if status is None:
            ids = [s.evidence.requirement_id for s in rr.statuses]
            known = ", ".join(ids[:8]) or "none"
            raise NotFoundError(f"run {rr.run.run_id} has no evidence {requirement_id} (its IDs: {known}"
                                f"{', …' if len(ids) > 8 else ''}); `workbench show RUN` lists them")
        return status.verifier_verdict

    def add_evidence(self, run_id: str, document_id: str, *, quote: str | None = None, start: int | None = None,
                     end: int | None = None, reviewer: str | None, note: str = "",
                     identity: Identity | None = None) -> EvidenceStatus:
        """Add evidence the pipeline missed to a run: a verbatim `quote` (found by the PDF
        layer's anchoring) or exact `start`/`end` offsets into the document's text. It gets a
        stable ID (the same span keeps the same ID everywhere), span, text_sha256 and boxes, is
        recorded as an append-only review event with who and why, and counts as human-Supported.
        Raises NotFoundError when the quote is not in the document (or the run/document is
        unknown), WorkbenchError for bad offsets, a missing reviewer or an item the run has.
        Refused too (issue 37): a document the run did not read, a span that starts or ends inside
        a word (never widened: 'authorized' cut from 'unauthorized' says the opposite), and a span
        over Settings.added_evidence_max_chars."""
        from workbench.models import Evidence

        reviewer = self._reviewer(reviewer, identity, "add_evidence")
        if (quote is None) == (start is None and end is None):
            raise WorkbenchError("give either a quote or start and end offsets, not both or neither")
        rr = self.reviewed(run_id)
        doc = self.document(document_id)
        if document_id not in rr.run.document_ids:
            read = ", ".join(self._filename(d) for d in rr.run.document_ids) or "none"
            raise WorkbenchError(f"{doc.filename} is not a document of run {run_id} (it read: {read}): add "
                                 "evidence from the documents the run read, or ask again with this one")
        parsed = self.parsed(document_id)
        if quote is not None:
            if not quote.strip():
                raise WorkbenchError("the quote is empty: give the exact text to add as evidence")
            span = parsed.locate(quote)
            if span is None:
                raise NotFoundError(f"the quote was not found verbatim in {doc.filename}: copy it exactly from the "
                                    f"document (\"{' '.join(quote.split())[:60]}\")")
        else:
            if start is None or end is None:
                raise WorkbenchError("give both start and end offsets")
            if not 0 <= start < end <= len(parsed.text):
                raise WorkbenchError(f"offsets {start}:{end} are outside {doc.filename}'s text "
                                     f"(0:{len(parsed.text)})")
            if not parsed.text[start:end].strip():
                raise WorkbenchError(f"the text at {start}:{end} of {doc.filename} is blank: select words")
            span = parsed.span(start, end)
        self._check_added_span(parsed.text, span.start, span.end, doc.filename)
        rid = self.store.assign_evidence_id(document_id, span.start, span.end, doc.source_type)
        if rr.status_for(rid) is not None:
            raise WorkbenchError(f"{rid} (that span) is already evidence in run {run_id}: label it Supported "
                                 "instead (`workbench review`)")
        ev = Evidence(requirement_id=rid, source_type=doc.source_type, document_id=document_id,
                      section_heading=parsed.heading_at(span.start), exact_quote=span.text, chunk_id="reviewer",
                      extraction_confidence="high", span=span)
        self.store.add_review(ReviewEvent(run_id=run_id, requirement_id=rid, label="supported", reviewer=reviewer,
                                          note=note or "", verifier_verdict="unsupported", kind="added", evidence=ev))
        status = self.reviewed(run_id).status_for(rid)
        assert status is not None
        return status

    def _filename(self, document_id: str) -> str:
        try:
            return self.document(document_id).filename
        except NotFoundError:
            return document_id[:12]

    def _check_added_span(self, text: str, start: int, end: int, filename: str) -> None:
        """A span a reviewer adds is whole words and at most Settings.added_evidence_max_chars
        long; refused with what to select instead, never silently changed."""
        from workbench.text.terms import word_bounds

        cap = self.settings.added_evidence_max_chars
        if end - start > cap:
            raise WorkbenchError(f"the selection in {filename} is {end - start:,} characters, over the {cap:,} "
                                 "characters one added item may hold (WORKBENCH_ADDED_EVIDENCE_MAX_CHARS): add "
                                 "the passage that is evidence, one item per passage")
        whole = word_bounds(text, start, end)
        if whole != (start, end):
            cut = [f"starts inside the word \u201c{text[whole[0]:word_bounds(text, start, start + 1)[1]]}\u201d"
                   if whole[0] != start else "",
                   f"ends inside the word \u201c{text[word_bounds(text, end - 1, end)[0]:whole[1]]}\u201d"
                   if whole[1] != end else ""]
            shown = " ".join(text[whole[0]:whole[1]].split())
            if len(shown) > 120:
                shown = f"{shown[:55]} … {shown[-55:]}"
            raise WorkbenchError(f"the selection in {filename} {' and '.join(c for c in cut if c)}: select whole "
                                 f"words, e.g. \u201c{shown}\u201d (added evidence is kept exactly as selected)")

    def history(self, run_id: str, requirement_id: str | None = None) -> list[ReviewEvent]:
        """Review events of a run (optionally one item) in the order they were recorded."""
        if requirement_id is None:
            if not self.store.has_run(run_id):
                raise NotFoundError(f"no run {run_id!r} in the store: `workbench runs` lists the stored runs")
        else:
            self._verifier_verdict(self.reviewed(run_id), requirement_id)  # NotFoundError for unknown IDs
        return self.store.history(run_id, requirement_id)

    def record_problems(self, run_id: str) -> list[str]:
        """Why the run's stored record cannot be trusted ([] when it can): an edited run record, or
        review events forged (set aside) or erased. Exports refuse while there are any."""
        return self.store.record_problems(run_id)

    def answer_view(self, run_id: str) -> Answer:
        """The answer a reader sees: recomposed from the items' final statuses (reviewed())."""
        return self.reviewed(run_id).answer

    def metrics(self, run_id: str | None = None) -> ReviewMetrics:
        """Verifier-vs-human agreement, review progress, pass rates and distributions for one run,
        or overall (every stored run, with `per_run` filled)."""
        from workbench.store import metrics as m

        stored_runs = [self.store.get_run(run_id)] if run_id else self.store.list_runs()
        # A checked draft is not a question's run: overall, it is counted apart (issue 41).
        runs = stored_runs if run_id else [r for r in stored_runs if r.kind != "draft"]
        events = self.store.history(run_id)
        per_run: list[ReviewMetrics] = []
        all_statuses: list[EvidenceStatus] = []
        confidences: list[str] = []
        for stored in runs:
            rr = self.reviewed(stored.run_id)
            conf = rr.answer.grounding_confidence
            all_statuses += rr.statuses
            confidences.append(conf)
            per_run.append(m.compute(rr.statuses, run_id=stored.run_id, confidences=[conf],
                                     events=[e for e in events if e.run_id == stored.run_id]))
        if run_id:
            return per_run[0]
        run_ids = {r.run_id for r in runs}
        overall = m.compute(all_statuses, run_id=None, runs=len(runs), confidences=confidences,
                            events=[e for e in events if e.run_id in run_ids])
        overall.per_run = per_run
        overall.drafts = len(stored_runs) - len(runs)
        return overall

    def audit_trail(self, run_id: str) -> dict:
        """Seed 000's audit-trail JSON of a stored run, re-verified on load, each extracted
        requirement (reviewer-added ones too, with human_added true) carrying verifier_verdict,
        human_label (None when none), final_status, hash_ok and the current reviewer/note;
        `after_review` holds the answer a reader sees (recomposed from final statuses) with its
        revisions, and `machine_answer` what the pipeline composed."""
        rr = self.reviewed(run_id)
        run, reviewed = rr.run, rr.answer
        trail = run.audit_trail(answer=reviewed)
        trail["extracted_requirements"] = []
        for s in rr.statuses:
            req = s.evidence.audit_dict()
            req.update(verifier_verdict=s.verifier_verdict, human_label=s.human_label, final_status=s.final_status,
                       hash_ok=s.hash_ok, reviewer=s.reviewer, review_note=s.note,
                       reviewed_at=s.reviewed_at.isoformat() if s.reviewed_at else None, human_added=s.human_added,
                       reviewer_labels=s.reviewer_labels, conflict=s.conflict, adjudicated=s.adjudicated)
            trail["extracted_requirements"].append(req)
        trail["created_at"] = run.created_at.isoformat()
        trail["record_problems"] = list(rr.record_problems)
        trail["after_review"] = {"final_answer": reviewed.final_answer,
                                 "grounding_confidence": reviewed.grounding_confidence,
                                 "support_ratio": reviewed.support_ratio, "badge": rr.badge,
                                 "citation_coverage": reviewed.citation_coverage,
                                 "sentence_support": [x.model_dump() for x in reviewed.sentences],
                                 "quality_review": [q.model_dump() for q in reviewed.quality],
                                 "unused_requirements": reviewed.unused_requirements,
                                 "result": reviewed.result, "message": reviewed.message,
                                 "supported_ids": rr.supported_ids, "review_events": rr.event_count,
                                 "revisions": [r.model_dump(mode="json") for r in rr.revisions]}
        return trail

    # --- calibration -------------------------------------------------------------------
    def _calibration_path(self) -> Path:
        return self.settings.data_dir / "calibration.json"

    def _calibration_state(self) -> dict:
        import json

        p = self._calibration_path()
        if not p.exists():
            return {"in_force": [], "history": []}
        return json.loads(p.read_text(encoding="utf-8"))

    def _save_calibration_state(self, state: dict) -> None:
        import json
        import os

        p = self._calibration_path()
        tmp = p.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(state, indent=2, default=str), encoding="utf-8")
        os.replace(tmp, p)

    @staticmethod
    def _stack(target: str) -> str:
        if target not in ("verify", "claims"):
            raise WorkbenchError(f"unknown calibration target {target!r}: use verify or claims")
        return "in_force" if target == "verify" else "claims_in_force"

    def calibration(self, target: str = "verify"):
        """The calibration in force for new runs (workbench.calibration.Calibration), or None.
        target "verify": the question verifier's; "claims": the claim checker's (verify, drafts)."""
        from workbench.calibration import Calibration

        state = self._calibration_state()
        stack = state.get(self._stack(target)) or []
        if not stack:
            return None
        return Calibration.model_validate(next(c for c in state["history"] if c["id"] == stack[-1]))

    def calibration_history(self) -> list:
        from workbench.calibration import Calibration

        return [Calibration.model_validate(c) for c in self._calibration_state()["history"]]

    def calibration_data(self) -> list[dict]:
        """This workspace's human-labelled items as calibration rows: verifier score and verdict,
        the human label, the run. Reviewer-added items are scored by the rules verifier on the
        run's question (they are the verifier's missed positives); structural rejections and
        unsettled disagreements are left out, and so are checked drafts (their scores are the
        claim verifier's, a different scale from the question verifier's that is calibrated here)."""
        from workbench.calibration import STRUCTURAL

        rows: list[dict] = []
        engine = None
        for stored in self.store.list_runs():
            if stored.kind == "draft":
                continue
            rr = self.reviewed(stored.run_id)
            for s in rr.statuses:
                if s.human_label is None or s.conflict or not s.hash_ok:
                    continue
                v = s.verification
                if s.human_added and v is None:
                    if engine is None:
                        from workbench.backends import get_backend

                        engine = get_backend("rules", self.settings)
                    v = next(iter(engine.verify(rr.run.question, [s.evidence])), None)
                if v is None or v.rejection_reason in STRUCTURAL:
                    continue
                rows.append({"run_id": rr.run.run_id, "requirement_id": s.evidence.requirement_id, "score": v.score,
                             "verifier": s.verifier_verdict == "supported" and not s.human_added,
                             "human": s.human_label == "supported"})
        return rows

    def claim_calibration_data(self) -> list[dict]:
        """Checked drafts' sentence labels as calibration rows for the claim checker: the check's
        score and verdict, the reviewer's label (the latest since any reset), the draft. Sentences
        the fact check or a missing passage rejected are left out: no threshold re-decides them."""
        from workbench.review import SENTENCE_PREFIX

        rows: list[dict] = []
        for stored in self.store.list_runs():
            if stored.kind != "draft":
                continue
            labels: dict[int, str] = {}
            for ev in self.store.history(stored.run_id):
                n = ev.requirement_id[len(SENTENCE_PREFIX):] if ev.requirement_id.startswith(SENTENCE_PREFIX) else ""
                if n.isdigit() and 1 <= int(n) <= len(stored.answer.sentences):
                    if ev.label == "reset":
                        labels.pop(int(n), None)
                    else:
                        labels[int(n)] = ev.label
            for n, label in labels.items():
                s = stored.answer.sentences[n - 1]
                if s.score is None or s.reason.startswith(("Not supported: ", "Contradicted: ", "Not stated: ")):
                    continue
                rows.append({"run_id": stored.run_id, "sentence": n, "score": s.score, "verifier": s.supported,
                             "human": label == "supported"})
        return rows

    def calibrate(self, *, apply: bool = True, target: str = "verify", identity: Identity | None = None):
        """Refit the decision threshold on the workspace's human labels, measured by grouped
        cross-validation (workbench.calibration); put it in force for new runs only when it agrees
        with the humans better than the shipped decision does. target "verify": the question
        verifier, on reviewed items of runs; "claims": the claim checker of `workbench verify` and
        Check a draft, on checked drafts' sentence labels. Returns the Calibration."""
        from workbench.calibration import calibrate

        self.authorize(identity, "calibrate")
        stack = self._stack(target)
        rows = self.calibration_data() if target == "verify" else self.claim_calibration_data()
        state = self._calibration_state()
        cal = calibrate([r["score"] for r in rows], [r["verifier"] for r in rows], [r["human"] for r in rows],
                        [r["run_id"] for r in rows], cal_id=f"cal-{len(state['history']) + 1}", target=target)
        cal.applied = cal.applied and apply
        state["history"].append(cal.model_dump(mode="json"))
        if cal.applied:
            state.setdefault(stack, []).append(cal.id)  # a stack: revert pops back to the one before
        self._save_calibration_state(state)
        return cal

    def revert_calibration(self, target: str = "verify", *, identity: Identity | None = None):
        """Put back the calibration in force before the current one (none: as shipped) for
        `target`. Returns the one now in force, or None. With sign-in: an admin's."""
        self.authorize(identity, "calibrate")
        state = self._calibration_state()
        stack = self._stack(target)
        if not state.get(stack):
            raise WorkbenchError(f"no {'claim ' if target == 'claims' else ''}calibration is in force: nothing to revert")
        state[stack].pop()
        self._save_calibration_state(state)
        return self.calibration(target)

    # --- export --------------------------------------------------------------------------
    def export(self, run_ids: list[str] | None, fmt: str, *, force: bool = False, reason: str | None = None,
               by: str | None = None, identity: Identity | None = None):
        """Export runs (None or []: every stored run) as `fmt` (workbench.export.FORMATS) →
        workbench.export.ExportResult (bytes, media type, extension; several documents as a zip
        for `pdf`). Hashes are re-checked first (HashMismatchError); answer formats pass the
        seed-003 gate (ExportBlockedError with reasons) unless forced with a reason; with sign-in,
        forcing is an adjudicator's, recorded under their name."""
        from workbench.export import FORMATS, render
        from workbench.export.bundle import ExportBundle, RunBundle

        if force:
            me = self.authorize(identity, "force_export")
            by = me.name if me is not None else by

        if fmt not in FORMATS:
            raise WorkbenchError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
        ids = list(dict.fromkeys(run_ids or [r.run_id for r in self.runs()]))
        if not ids:
            raise NotFoundError("no runs to export: ask a question first (`workbench ask FILE --question ...`)")
        runs = []
        for rid in ids:
            rr = self.reviewed(rid)
            runs.append(RunBundle(run=rr.run, statuses=rr.statuses, history=self.store.history(rid),
                                  answer=rr.answer, revisions=rr.revisions, record_problems=rr.record_problems))
        doc_ids = dict.fromkeys(d for rb in runs for d in rb.run.document_ids + [s.evidence.document_id
                                                                                  for s in rb.statuses])
        bundle = ExportBundle(runs=runs, documents={d: self.document_with_bib(d) for d in doc_ids},
                              pdf_bytes=self.pdf_bytes, document_text=lambda d: self.parsed(d).text,
                              ocr_words=lambda d: self.parsed(d).ocr_words())
        return render(bundle, fmt, min_coverage=self.settings.gate_min_coverage,
                      min_support=self.settings.gate_min_support, force=force, reason=reason, by=by)

    # --- review tables: documents x questions, every cell a run (workbench.table) ------------------
    @staticmethod
    def checklist(text: str | None = None, *, built_in: str = "contract"):
        """Columns (models.TableColumn) from checklist text ("Label: question" lines), else the
        built-in checklist named `built_in` (workbench/checklists/)."""
        from workbench.table import checklist

        return checklist.parse_checklist(text) if text is not None else checklist.built_in(built_in)

    def engine_version(self, backend: str | None = None) -> str:
        """The version of what answers a cell now (workbench.table.cells.engine_version): a cell
        answered by another is stale."""
        from workbench.pipeline.run import settings_used
        from workbench.table.cells import engine_version

        cal = self.calibration()
        return engine_version(settings_used(self.settings, backend or self.settings.backend), cal.id if cal else None)

    def tables(self):
        """Stored review tables (models.ReviewTable), newest first."""
        return self.store.list_tables()

    def table(self, table_id: str):
        return self.store.get_table(table_id)

    def create_table(self, document_ids: list[str], columns: list, *, name: str | None = None,
                     identity: Identity | None = None):
        """A new review table over stored documents (rows, by file name) and checklist columns
        (models.TableColumn). Nothing runs yet: run_table does."""
        import uuid

        from workbench.models import ReviewTable

        me = self.identity(identity) if identity is not None and self.sign_in_required() else None
        table = ReviewTable(table_id=uuid.uuid4().hex[:12], name=" ".join((name or "").split())[:200] or "Review table",
                            created_by=me.name if me else None)
        table = self._grow_table(table, document_ids, columns)
        if not table.rows or not table.columns:
            raise WorkbenchError("a review table needs at least one document and one question")
        self.store.put_table(table)
        return table

    def add_to_table(self, table_id: str, *, document_ids: list[str] | None = None, columns: list | None = None):
        """Add documents (a file name the table has already: its new version, and that row's cells
        go stale) and questions (a label it has already: the column's new question, its cells go
        stale). run_table then runs only the new and stale cells."""
        table = self._grow_table(self.table(table_id), document_ids or [], columns or [])
        self.store.put_table(table)
        return table

    def relate_documents(self, table_id: str, row_key: str, document_ids: list[str], *,
                         identity: Identity | None = None):
        """Link amendments and side letters (stored documents) to a row's document as changing it:
        the row's cells then read them too, an amendment's clause first and marked as such, and go
        stale until run again. The list replaces the row's links ([] unlinks them)."""
        from workbench.models import utcnow

        if identity is not None and self.sign_in_required():
            self.identity(identity)
        table = self.table(table_id)
        row = next((r for r in table.rows if r.key == row_key), None)
        if row is None:
            raise NotFoundError(f"table {table_id} has no document {row_key!r}: one of "
                                f"{', '.join(r.key for r in table.rows)}")
        related = list(dict.fromkeys(document_ids))
        for did in related:
            self.document(did)  # exists, or NotFoundError
            if did == row.document_id:
                raise WorkbenchError(f"{row.filename} cannot amend itself: link another document to its row")
        rows = [r.model_copy(update={"related": related}) if r.key == row_key else r for r in table.rows]
        table = table.model_copy(update={"rows": rows, "updated_at": utcnow()})
        self.store.put_table(table)
        return table

    def _grow_table(self, table, document_ids: list[str], columns: list):
        from workbench.models import TableColumn, TableRow, utcnow
        from workbench.table.checklist import question_kind

        rows = {r.key: r for r in table.rows}
        seen: dict[str, str] = {}
        for did in dict.fromkeys(document_ids):
            doc = self.document(did)
            if doc.filename in seen:
                raise WorkbenchError(f"two documents are named {doc.filename}: a table's rows are file names, "
                                     "so rename one (or add one, then the other as its new version)")
            seen[doc.filename] = did
            kept = rows[doc.filename].related if doc.filename in rows else []  # a new version keeps its amendments
            rows[doc.filename] = TableRow(key=doc.filename, document_id=did, filename=doc.filename, related=kept)
        cols = {c.key: c for c in table.columns}
        for c in columns:
            c = c if isinstance(c, TableColumn) else TableColumn(key=str(c), question=str(c))
            question = " ".join(c.question.split())
            if not question:
                raise WorkbenchError(f"the column {c.key!r} has no question")
            cols[c.key] = TableColumn(key=c.key, question=question, kind=question_kind(question, c.key)
                                      if c.kind == "text" else c.kind)
        return table.model_copy(update={"rows": list(rows.values()), "columns": list(cols.values()),
                                        "updated_at": utcnow()})

    def run_table(self, table_id: str, *, backend: str | None = None, rerun_failed: bool = True,
                  identity: Identity | None = None):
        """Queue a "cell" job (one question over one document and its related ones, stored as a run) for every cell not
        run yet, stale, or failed; cells done and current are left alone. In this process, or on
        the workers when a queue is configured. Returns the new cell records (models.TableCellRecord)."""
        from workbench.jobs.tasks import run_ids_for
        from workbench.models import TableCellRecord

        view = self.table_view(table_id)
        engine = self.engine_version(backend)
        todo = [c for c in view.cells if c.status in ("not_run", "stale") or (rerun_failed and c.status == "failed")]
        related = {r.key: r.related for r in view.table.rows}
        records, pending = [], []
        for c in todo:
            info = self.submit("cell", questions=[c.question], document_ids=[c.document_id, *related.get(c.row_key, [])],
                               backend=backend, identity=identity)
            pending.append(TableCellRecord(table_id=table_id, row_key=c.row_key, column_key=c.column_key,
                                           document_id=c.document_id, question=c.question,
                                           run_id=run_ids_for(info.job_id, 1)[0], job_id=info.job_id,
                                           engine_version=engine,
                                           requested_by=info.requested_by.name if info.requested_by else None))
            if len(pending) >= 25:  # named in the store as they go: a crash forgets at most a few
                records += self.store.add_cells(pending)
                pending = []
        if pending:
            records += self.store.add_cells(pending)
        return records

    def table_view(self, table_id: str):
        """The table with every cell as a reader sees it now (models.TableView): status (done,
        stale, running, queued, failed, not run), short answer and normalised form, the answer
        after review, citations, and the reviewer's correction, which wins."""
        from workbench.models import TableCell, TableView
        from workbench.table.cells import answered_cell, current_correction, latest_records, stale_reasons

        table = self.table(table_id)
        engine = self.engine_version()
        records = self.store.cell_records(table_id)
        latest = latest_records(records)
        cells = []
        for row in table.rows:
            for col in table.columns:
                rec = latest.get((row.key, col.key))
                base = TableCell(table_id=table_id, row_key=row.key, column_key=col.key, document_id=row.document_id,
                                 filename=row.filename, question=col.question, kind=col.kind)
                if rec is None:
                    cells.append(base)
                    continue
                base = base.model_copy(update={"run_id": rec.run_id, "job_id": rec.job_id,
                                               "engine_version": rec.engine_version, "document_id": rec.document_id})
                stale = stale_reasons(rec, row, col, engine)
                if self.store.has_run(rec.run_id):
                    rr = self.reviewed(rec.run_id)
                    stale = stale_reasons(rec, row, col, engine, read=rr.run.document_ids)
                    # a correction holds while the document and question are the ones it was made on
                    same = [r.run_id for r in records if r.row_key == row.key and r.column_key == col.key
                            and r.document_id == rec.document_id and r.question == rec.question
                            and self.store.has_run(r.run_id)]
                    events = sorted((e for rid in same for e in self.store.history(rid) if e.kind == "correction"),
                                    key=lambda e: e.timestamp)
                    cell = answered_cell(base, rr, col, current_correction(events), amendments=row.related)
                    cells.append(cell.model_copy(update={"status": "stale" if stale else "done", "stale": stale}))
                    continue
                try:
                    info = self.job(rec.job_id) if rec.job_id else None
                except NotFoundError:
                    info = None
                if info is None:
                    cells.append(base.model_copy(update={"status": "failed", "error": (
                        "its job is gone (the process that ran it ended before it finished): run the table again")}))
                elif info.status == "failed":
                    cells.append(base.model_copy(update={"status": "failed", "error": info.error}))
                else:  # finished jobs have stored their run: a job just finishing reads as running
                    cells.append(base.model_copy(update={"status": "queued" if info.status == "queued" else "running"}))
        counts: dict[str, int] = {}
        for c in cells:
            counts[c.status] = counts.get(c.status, 0) + 1
        return TableView(table=table, cells=cells, engine_version=engine, counts=counts)

    def _table_cell(self, table_id: str, row_key: str, column_key: str):
        view = self.table_view(table_id)
        cell = view.cell(row_key, column_key)
        if cell is None:
            raise NotFoundError(f"table {table_id} has no cell ({row_key!r}, {column_key!r})")
        if cell.run_id is None or cell.status not in ("done", "stale"):
            raise WorkbenchError(f"the cell ({row_key}, {column_key}) has no answer yet ({cell.status}): run the "
                                 "table first")
        return cell

    def review_cell(self, table_id: str, row_key: str, column_key: str, label: str, reviewer: str | None,
                    note: str = "", *, identity: Identity | None = None) -> ReviewEvent:
        """Accept (supported) or reject (unsupported) a cell: a review label on the evidence its
        short answer rests on (Workbench.review), so the run, its answer and exports follow; a
        rejected basis makes the cell read the next supported quote, or "not found"."""
        cell = self._table_cell(table_id, row_key, column_key)
        if cell.basis is None:
            raise WorkbenchError("this cell rests on no evidence (not found): correct it with the answer instead, "
                                 "or add the evidence on the Review page")
        return self.review(cell.run_id, cell.basis, label, reviewer, note, identity=identity)

    def correct_cell(self, table_id: str, row_key: str, column_key: str, value: str | None, reviewer: str | None,
                     note: str = "", *, identity: Identity | None = None) -> ReviewEvent:
        """Record a reviewer's answer for a cell (None: withdraw the correction): an append-only
        review event (kind "correction") on the cell's run, with who and why; it wins over the
        engine's short answer while the cell's document and question stay the same. Needs the
        role that labels (auth.PERMISSIONS["label"]) and, like every decision, a reason is kept."""
        from workbench.models import CELL_ID

        reviewer = self._reviewer(reviewer, identity, "label")
        cell = self._table_cell(table_id, row_key, column_key)
        text = None if value is None else " ".join(value.split())
        if text is not None and not text:
            raise WorkbenchError("the correction is empty: write the cell's answer (or reset the correction)")
        return self.store.add_review(ReviewEvent(run_id=cell.run_id, requirement_id=CELL_ID,
                                                 label="reset" if text is None else "supported", reviewer=reviewer,
                                                 note=note or "", kind="correction", value=text))

    TABLE_FORMATS = ("xlsx", "csv", "json")

    @staticmethod
    def table_media_type(fmt: str) -> str:
        """The media type of a table export format (its file extension is the format's name)."""
        from workbench.export.table import MEDIA_TYPES

        return MEDIA_TYPES[fmt]

    def export_table(self, table_id: str, fmt: str) -> tuple[bytes, str, str]:
        """A table as xlsx (a row per document, a column per question, every citation and the
        audit trail of every cell on their own sheets), csv (one line per cell, every citation in
        it) or json (the TableView) → (bytes, media type, file extension)."""
        from workbench.export.table import render_table

        if fmt not in self.TABLE_FORMATS:
            raise WorkbenchError(f"unknown table export format {fmt!r}: use one of {', '.join(self.TABLE_FORMATS)}")
        view = self.table_view(table_id)
        return render_table(view, fmt, self._table_trail(table_id) if fmt == "xlsx" else None)

    def _table_trail(self, table_id: str) -> dict[tuple[str, str], list[ReviewEvent]]:
        """(row key, column key) → every review event on every run asked for that cell (an older
        document version's and engine's too), in the order recorded."""
        runs: dict[tuple[str, str], list[str]] = {}
        for r in self.store.cell_records(table_id):
            if r.run_id not in runs.setdefault((r.row_key, r.column_key), []) and self.store.has_run(r.run_id):
                runs[(r.row_key, r.column_key)].append(r.run_id)
        return {key: sorted((e for rid in ids for e in self.store.history(rid)), key=lambda e: (e.timestamp, e.id or 0))
                for key, ids in runs.items()}
