"""One question through Retrieval → Extract → Verify → Compose → Quality Review → Finalize
(seed 000), returning a complete models.Run whose audit_trail() is seed 000's JSON."""

from __future__ import annotations

import re
import uuid
from collections import Counter
from typing import Any

from workbench.backends.base import Backend
from workbench.config import Settings
from workbench.errors import BackendError, WorkbenchError
from workbench.models import (
    NO_AUTHORITATIVE_EVIDENCE,
    Answer,
    Draft,
    Evidence,
    ParsedDoc,
    RequirementReference,
    Run,
    SentenceSupport,
    Stage,
    StageFailure,
    StageUsage,
    Verification,
)
from workbench.pipeline.anchor import anchor, integrity_ok
from workbench.pipeline.confidence import grounding_confidence
from workbench.pipeline.context import DocsContext
from workbench.pipeline.events import OnEvent, StageClock
from workbench.pipeline.ids import IdAssigner
from workbench.pipeline.quality import Review, review, sanitize
from workbench.text import cited_ids
from workbench.text.ranges import page_ranges
from workbench.text.terms import surface_forms
from workbench.text.weights import weights_for

NO_EVIDENCE_MESSAGE = "No authoritative requirement found in provided sources."


def new_run_id() -> str:
    return uuid.uuid4().hex[:12]


def settings_used(settings: Settings, backend_name: str) -> dict[str, Any]:
    keys = ["top_k", "chunk_words", "vector_weight", "max_revisions", "quote_min_words", "quote_max_words"]
    out: dict[str, Any] = {k: getattr(settings, k) for k in keys}
    out["backend"] = backend_name
    out["judgment"] = settings.judgment.model_dump()  # the thresholds and gates that decided every verdict
    if backend_name == "openai":
        from workbench.redact import redact_url

        out.update(model=settings.model, openai_base_url=redact_url(settings.openai_base_url) or None)
    return out


def _failure(run: Run, stage: Stage, exc: Exception) -> None:
    run.failures.append(StageFailure(stage=stage, error=type(exc).__name__, message=str(exc),
                                     raw=getattr(exc, "raw", None)))


def _extract(question: str, chunks: list, context: DocsContext, backend: Backend, run: Run, clock: StageClock) -> list:
    """Extract in the groups the backend asks for (an LLM sizes them to its context), with a
    progress event after each; a failed group is recorded and the others still count."""
    batches = backend.extract_batches(question, chunks) if hasattr(backend, "extract_batches") else [chunks]
    candidates: list = []
    done = 0
    for batch in batches:
        try:
            candidates += backend.extract(question, batch, context)
        except BackendError as exc:
            _failure(run, "extract", exc)
        done += len(batch)
        if len(batches) > 1:
            clock.progress({"chunks_done": done, "chunks": len(chunks), "candidates": len(candidates)},
                           f"{done} of {len(chunks)} chunks")
    return candidates


def with_units(evidence: list[Evidence], docs: dict[str, ParsedDoc]) -> list[Evidence]:
    """Each located item with its unit facts (lead-in, trimmed, at-clause, joined) read from its
    document: what every backend's verdict and the composer read, carried on the item."""
    from workbench.backends import engine

    if all(e.unit is not None or e.span is None for e in evidence):
        return evidence
    return engine.with_units(DocsContext(list(docs.values())), evidence)


VERIFY_BATCH = 24  # evidence items per backend.verify call, with a progress event after each


def _verify(question: str, evidence: list[Evidence], docs: dict[str, ParsedDoc], backend: Backend, run: Run,
            clock: StageClock | None = None) -> list[Verification]:
    """One verdict per anchored evidence item, in evidence order. The pipeline re-checks each
    span's hash first, and a backend cannot verify what it was not asked about. Items go to
    the backend in batches so a UI sees progress on long lists."""
    verdicts: dict[str, Verification] = {}
    intact: list[Evidence] = []
    for e in evidence:
        if integrity_ok(e, docs):
            intact.append(e)
        else:
            verdicts[e.requirement_id] = Verification(
                requirement_id=e.requirement_id, verified=False, rejection_reason="hash_mismatch", verifier="pipeline",
                verification_rationale="The document's text at the span no longer matches the quote and its SHA-256.")
    intact = with_units(intact, docs)  # a run stored before items carried them
    got: dict[str, Verification] = {}
    for i in range(0, len(intact), VERIFY_BATCH):
        batch = intact[i:i + VERIFY_BATCH]
        asked = {e.requirement_id for e in batch}
        try:
            got.update({v.requirement_id: v for v in backend.verify(question, batch)
                        if v.requirement_id in asked})
        except BackendError as exc:
            _failure(run, "verify", exc)
            for e in batch:
                verdicts[e.requirement_id] = Verification(
                    requirement_id=e.requirement_id, verified=False, rejection_reason="backend_error",
                    verifier=backend.name, verification_rationale=f"The verifier failed: {exc}")
        if clock is not None:
            clock.progress({"checked": i + len(batch), "total": len(intact),
                            "verified": sum(v.verified and v.rejection_reason is None for v in got.values())})
    for e in intact:
        if e.requirement_id in verdicts:
            continue
        v = got.get(e.requirement_id)
        if v is None:
            v = Verification(requirement_id=e.requirement_id, verified=False, rejection_reason="backend_error",
                             verifier=backend.name, verification_rationale="The verifier returned no verdict.")
        elif v.verified and v.rejection_reason is not None:
            v = v.model_copy(update={"verified": False})
        elif not v.verified and v.rejection_reason is None:
            v = v.model_copy(update={"rejection_reason": "does_not_address_question"})
        if v.verified:
            v = _whole_unit(e, docs.get(e.document_id), v)
        verdicts[e.requirement_id] = v
    return [verdicts[e.requirement_id] for e in evidence]


def _whole_unit(e: Evidence, doc: ParsedDoc | None, v: Verification) -> Verification:
    """The engine's whole-unit gate on the document itself, for every backend: a quote that
    begins inside a sentence of the document (not at a clause boundary it was trimmed at) is
    not verified, however it is capitalised, e.g. an LLM's "Virginia without regard to …"."""
    import bisect

    from workbench.backends import engine

    if doc is None or e.span is None:
        return v
    segs, starts = doc.derived("engine.unit_starts", lambda: (
        (ss := sorted(doc.segments(), key=lambda sg: sg.start)), [sg.start for sg in ss]))
    i = bisect.bisect_right(starts, e.span.start) - 1
    if i < 0 or segs[i].end <= e.span.start:
        return v
    why = engine.cut_in_document(doc.text, segs[i].start, e.span.start)
    if why is None:
        return v
    return v.model_copy(update={"verified": False, "rejection_reason": "incomplete_quote",
                                "verification_rationale": f"Not a whole sentence: {why}. (The {v.verifier} verifier "
                                                          f"had said: {v.verification_rationale})",
                                "score": round(min(v.score or 0.0, 0.6 * (v.score or 0.0)), 4)})


def document_titles(docs: list[ParsedDoc]) -> dict[str, str]:
    """Each document's short title (workbench.pdf.short_title) when a run spans several, so that
    every answer statement can name its document; {} for one."""
    from workbench.pdf.short_title import short_titles

    if len(docs) < 2:
        return {}

    def bib_title(d: ParsedDoc) -> str | None:
        if d.document.bib is not None:
            return d.document.bib.title
        try:
            from workbench.pdf.bibinfo import read_bibinfo

            return d.derived("bibinfo", lambda: read_bibinfo(d, d.document.title)).title  # type: ignore[arg-type]
        except Exception:  # noqa: BLE001 - a document without a readable cover is named by its file
            return None

    return short_titles((d.document, d.text, bib_title(d)) for d in docs)


def _compose(question: str, verified: list[Evidence], feedback: list[str] | None, backend: Backend, run: Run,
             settings: Settings) -> Draft:
    """The backend's own composer (an LLM's), else the answer composed from the verified quotes."""
    from workbench.pipeline.compose import compose_answer, compose_from_quotes, named_by_citation

    composer = getattr(backend, "compose", None)
    if composer is None:
        return compose_answer(question, verified, feedback, settings.judgment, sources=run.document_titles)
    try:
        draft = composer(question, verified, feedback)
        if run.document_titles:  # an LLM's sentences name their document as the rules composer's do
            draft.final_answer = named_by_citation(draft.final_answer, verified, run.document_titles)
        return draft
    except BackendError as exc:
        _failure(run, "compose", exc)
        return compose_from_quotes(verified, sources=run.document_titles)


def _review(draft: Draft, verified: list[Evidence], known: set[str], backend: Backend, run: Run) -> Review:
    sources = run.document_titles.values()
    try:
        return review(draft, verified, known, backend, run.question, sources)
    except BackendError as exc:  # the support check failed: every sentence stays unverified
        _failure(run, "quality_review", exc)
        return review(draft, verified, known, _NoSupport(f"the support check failed: {exc}"), run.question, sources)


class _NoSupport:
    """Stands in for a backend whose support check failed: nothing counts as supported."""

    def __init__(self, reason: str):
        self.reason = reason

    def support(self, sentences: list[str], evidence: list[Evidence]) -> list[SentenceSupport]:
        return [SentenceSupport(text=s, citations=cited_ids(s), supported=False, reason=self.reason) for s in sentences]


def run_question(question: str, docs: list[ParsedDoc], *, retriever, backend: Backend, ids: IdAssigner, settings: Settings,
                 on_event: OnEvent = None, source_type: str | None = None, question_index: int = 0,
                 question_total: int = 1, run_id: str | None = None) -> Run:
    """Answer one question over parsed documents. Never raises for a failing backend stage:
    the failure is recorded in run.failures and the run ends fail-safe."""
    question = " ".join((question or "").split())
    if not question:
        raise WorkbenchError("The question is empty: type a question to ask.")
    if not docs:
        raise WorkbenchError("No documents to search: add at least one PDF first.")
    by_id = {d.document.id: d for d in docs}
    clock = StageClock(on_event, question_index, question_total)
    run = Run(run_id=run_id or new_run_id(), question=question, document_ids=list(by_id), backend=backend.name,
              settings=settings_used(settings, backend.name), document_titles=document_titles(docs))

    usage_before = {k: u.model_copy(deep=True) for k, u in (backend.usage() or {}).items()}

    # Retrieval
    clock.start("retrieval", f"searching {len(docs)} document(s)")
    chunks = retriever.retrieve(question, docs, settings.top_k)
    run.chunks_retrieved = len(chunks)
    clock.end({"chunks": len(chunks), "documents": len(docs)})

    # Extract, then anchor every candidate in its PDF
    clock.start("extract")
    candidates = _extract(question, chunks, DocsContext(docs, retriever), backend, run, clock)
    clock.progress({"candidates": len(candidates)}, "anchoring quotes")
    evidence, not_found = anchor(candidates, by_id, ids, source_type)
    evidence = with_units(evidence, by_id)
    run.evidence = evidence
    clock.end({"candidates": len(candidates), "extracted": len(evidence), "quote_not_found": len(not_found)},
              status="failed" if run.failures else "done")

    # Verify
    clock.start("verify")
    anchored = [e for e in evidence if e.span is not None]
    verdicts = {v.requirement_id: v for v in not_found}
    verdicts.update({v.requirement_id: v for v in _verify(question, anchored, by_id, backend, run, clock)})
    run.verifications = [verdicts[e.requirement_id] for e in evidence]
    rejected = Counter(v.rejection_reason for v in run.verifications if not v.verified)
    n_ok = sum(v.verified for v in run.verifications)
    clock.end({"extracted": len(evidence), "verified": n_ok, "rejected": sum(rejected.values()),
               **{f"rejected_{k}": n for k, n in sorted(rejected.items())}})

    score = {v.requirement_id: v.score for v in run.verifications if v.verified}
    verified = sorted((e for e in evidence if e.requirement_id in score), key=lambda e: -score[e.requirement_id])
    answer = Answer()
    if not verified:
        clock.skip("compose", "no verified evidence: nothing to compose")
        clock.skip("quality_review", "no verified evidence")
    else:
        known = {e.requirement_id for e in evidence}
        feedback: list[str] | None = None
        revisions = 0
        while True:
            clock.start("compose", f"revision {revisions}" if revisions else "")
            draft = _compose(question, verified, feedback, backend, run, settings)
            clock.end({"cited_ids": len(cited_ids(draft.final_answer)), "revision": revisions})
            clock.start("quality_review")
            rev = _review(draft, verified, known, backend, run)
            clock.end(rev.counts() | {"revision": revisions}, "passed" if rev.passed else "; ".join(rev.feedback)[:500])
            if not rev.needs_revision or revisions >= settings.max_revisions:
                break
            revisions += 1
            feedback = rev.feedback
        if rev.needs_revision:
            kept = sanitize(rev)
            if kept != rev.final_answer:
                final = Draft(final_answer=kept, requirement_references=draft.requirement_references,
                              unused_requirements=draft.unused_requirements)
                if not kept:
                    from workbench.pipeline.compose import compose_from_quotes

                    final = compose_from_quotes(verified, sources=run.document_titles)
                findings = rev.findings
                rev = _review(final, verified, known, backend, run)
                # keep what the last revision failed on visible in the audit trail
                rev.findings = [f.model_copy(update={"check": f"revision_{revisions}_{f.check}"})
                                for f in findings if not f.passed] + rev.findings
        answer = _answer(rev, draft, verified, revisions)

    # Finalize
    clock.start("finalize")
    if not verified:
        answer.result = NO_AUTHORITATIVE_EVIDENCE
        answer.grounding_confidence = "insufficient"
        if run.failures:  # the backend failed: say so, never present it as a finding about the documents
            answer.message = backend_failure_message(run)
            answer.missing_evidence = ["Not determined: the backend failed before any evidence could be verified."]
        else:
            why = ", ".join(f"{n} {k}" for k, n in rejected.most_common()) or "nothing extracted"
            answer.message = (f"{NO_EVIDENCE_MESSAGE} {len(evidence)} requirement(s) extracted, none verified ({why})."
                              + _unused_words_hint(question, docs))
            answer.missing_evidence = [f"A passage in {_kinds(docs, source_type)} that addresses: {question}"] \
                + _unsearchable(docs)
    elif len(docs) > 1 and not run.failures:
        answer.missing_evidence += _silent_documents(docs, verified, run.document_titles, question)
    run.answer = answer
    run.usage = _usage_delta(usage_before, backend.usage() or {})
    if verified and not answer.final_answer:
        answer.message = ("Verified evidence was found but no statement could be composed from it that passes "
                          "quality review; read the verified requirements directly.")
    clock.end({"verified": len(verified), "cited": sum(r.used_in_answer for r in answer.requirement_references)},
              answer.result or answer.grounding_confidence)
    run.stage_timings = dict(clock.timings)
    return run


def backend_failure_message(run: Run) -> str:
    """What a reviewer must read when a backend stage failed: which stage, why, what to do."""
    f = run.failures[0]
    more = f" (and {len(run.failures) - 1} more failure(s))" if len(run.failures) > 1 else ""
    return (f"The {run.backend} backend failed in the {f.stage} stage: {f.message}{more}. "
            "This is not a finding about the documents: fix the backend (the audit trail keeps the raw "
            "reply) and ask again, or use the offline rules backend.")


def _usage_delta(before: dict[str, StageUsage], after: dict[str, StageUsage]) -> dict[str, StageUsage]:
    """This run's share of a backend's running usage totals (a backend serves many questions)."""
    out: dict[str, StageUsage] = {}
    for stage, u in after.items():
        b = before.get(stage, StageUsage())
        d = StageUsage(prompt_tokens=u.prompt_tokens - b.prompt_tokens,
                       completion_tokens=u.completion_tokens - b.completion_tokens,
                       latency_s=round(u.latency_s - b.latency_s, 4), calls=u.calls - b.calls,
                       structured_output=u.structured_output, raw_failures=u.raw_failures[len(b.raw_failures):])
        if d.calls or d.prompt_tokens or d.completion_tokens or d.raw_failures:
            out[stage] = d
    return out


_KIND_WORDS = {"statute": "the statute", "policy": "the policy", "contract": "the contract", "paper": "the paper"}


def _kinds(docs: list[ParsedDoc], source_type: str | None) -> str:
    """What the documents are, in words: 'the contract', 'the policy or the statute', 'the documents'."""
    kinds = list(dict.fromkeys([source_type] if source_type else [d.document.source_type for d in docs]))
    words = [_KIND_WORDS[k] for k in kinds if k in _KIND_WORDS]
    if not words or len(words) != len(kinds):
        return "the documents"
    return " or ".join(words)


# Words that ask ("how many days", "how much", "how long", "how often"), not what is asked about.
_ASKING = frozenset({"many", "much", "long", "often", "soon", "far"})


def _unused_words_hint(question: str, docs: list[ParsedDoc]) -> str:
    """The question's words no document uses, when some are: relevance reads the documents' words,
    so "Under which jurisdiction's laws is this contract interpreted?" finds little in a contract
    that says "This Agreement shall be governed by and construed under the laws of …"."""
    weights = [w for w in (weights_for(d.document.id) for d in docs) if w is not None]
    if not weights:
        return ""
    unused = [word for st, word in surface_forms(question).items()
              if word not in _ASKING and not any(w.uses(st) for w in weights)]
    if not unused:
        return ""
    listed = ", ".join(f"'{w.removesuffix(chr(39) + 's')}'" for w in unused[:5])
    return (f" The documents never use {listed}: if they say it in other words, ask in those (the judge reads "
            "the documents' words); if they do not, they likely do not address it.")


def _silent_documents(docs: list[ParsedDoc], verified: list[Evidence], titles: dict[str, str],
                      question: str) -> list[str]:
    """In a run over several documents, those none of whose passages was verified: an analyst
    asking across a data room must see which documents say nothing, not only what the others say."""
    have = {e.document_id for e in verified}
    named = {d.document.id: re.sub(r"^the\s+", "", titles.get(d.document.id) or d.document.filename, flags=re.I)
             for d in docs}
    return [f"A passage in the {named[d]} that addresses: {question} (none of its passages was verified)"
            for d in dict.fromkeys(d.document.id for d in docs) if d not in have]


def _unsearchable(docs: list[ParsedDoc]) -> list[str]:
    """Pages that could not be searched (no readable text layer, not read by OCR either): evidence
    may be there, unread."""
    out = []
    for d in docs:
        pages = d.document.unread_pages
        if pages:
            shown = page_ranges(pages)
            out.append(f"{d.document.filename}: {len(pages)} page(s) without readable text (scanned, or fonts "
                       f"that map no characters) could not be searched: {shown}. Run OCR on the PDF and ingest it "
                       "again.")
    return out


def _answer(rev: Review, draft: Draft, verified: list[Evidence], revisions: int) -> Answer:
    cited = set(rev.cited)
    statements = {r.requirement_id: r.statement for r in draft.requirement_references}
    refs = [RequirementReference(requirement_id=e.requirement_id, used_in_answer=e.requirement_id in cited,
                                 statement=statements.get(e.requirement_id) or " ".join(e.exact_quote.split()))
            for e in verified]
    return Answer(
        final_answer=rev.final_answer,
        requirement_references=refs,
        unused_requirements=[e.requirement_id for e in verified if e.requirement_id not in cited],
        # a question asking several things: the parts no cited quote answers are said to be missing
        missing_evidence=[f"A passage that answers: {p}" for p in rev.unanswered],
        grounding_confidence=grounding_confidence(len(verified), rev.support_ratio, rev.answers),
        sentences=rev.sentences,
        support_ratio=rev.support_ratio,
        citation_coverage=rev.coverage,
        quality=rev.findings,
        revisions=revisions,
        answers_question=rev.answers,
    )
