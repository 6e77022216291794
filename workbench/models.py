"""The shared vocabulary. Every layer speaks these models; field names follow the seeds
(000: requirement fields and audit trail; 001: offsets + SHA-256; 004: sentence support)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Literal, Protocol, TypeVar

from pydantic import BaseModel, Field, model_validator

SourceType = Literal["statute", "policy", "contract", "paper", "other"]
SOURCE_TYPES: tuple[str, ...] = ("statute", "policy", "contract", "paper", "other")
# One letter per source type in evidence IDs: REQ-S001 (statute), REQ-P001 (policy), ...
ID_PREFIX: dict[str, str] = {"statute": "S", "policy": "P", "contract": "C", "paper": "R", "other": "O"}

Confidence = Literal["high", "medium", "low"]
GroundingConfidence = Literal["high", "medium", "low", "insufficient"]
Verdict = Literal["supported", "contradicted", "not_stated"]


def _verdict_from_supported(data: Any) -> Any:
    """Records written before verdicts existed: supported, or not stated (never a guessed contradiction)."""
    if isinstance(data, dict) and data.get("verdict") is None and "supported" in data:
        data = {**data, "verdict": "supported" if data["supported"] else "not_stated"}
    return data


RejectionReason = Literal[
    "does_not_address_question",
    "requires_inference",
    "incomplete_quote",
    "quote_not_found",
    "not_a_requirement",
    "backend_error",
    "hash_mismatch",
]
Label = Literal["supported", "unsupported", "contradicted", "reset"]
# A reviewer's decision on an item or sentence: it is stated (supported), not stated (unsupported),
# or the documents say otherwise (contradicted: not supported, and its verdict says why)
HumanLabel = Literal["supported", "unsupported", "contradicted"]
LABELS: tuple[str, ...] = ("supported", "unsupported", "contradicted", "reset")
# label: a reviewer's decision; added: a reviewer added evidence the pipeline missed (counts as
# supported); adjudication: the decision that settles two reviewers' disagreement; correction: a
# reviewer's own answer for a review-table cell (requirement_id CELL_ID, the answer in `value`)
EventKind = Literal["label", "added", "adjudication", "correction"]
FinalStatus = Literal["supported", "unsupported"]


def label_status(label: str) -> FinalStatus:
    """The final status a human label gives: only "supported" is supported (contradicted is not)."""
    return "supported" if label == "supported" else "unsupported"


def label_verdict(label: str) -> Verdict:
    """The verdict a human label gives a sentence: supported, contradicted, or not stated."""
    return "supported" if label == "supported" else "contradicted" if label == "contradicted" else "not_stated"


Stage = Literal["retrieval", "extract", "verify", "compose", "quality_review", "finalize"]
STAGES: tuple[str, ...] = ("retrieval", "extract", "verify", "compose", "quality_review", "finalize")
NO_AUTHORITATIVE_EVIDENCE = "NO_AUTHORITATIVE_EVIDENCE"

# A box on a page: (page 1-based, x0, y0, x1, y1) in PDF points, origin top-left of the
# page's cropbox, exactly as PyMuPDF reports word boxes. The CLI prints it as a list.
PageRect = tuple[int, float, float, float, float]


def cite_page(page: int, label: str | None) -> str:
    """How a citation names a page: 'p. 28 (PDF p. 40)' when the printed label differs from
    the 1-based PDF position, else 'p. 40'. An auditor checks the printed number."""
    if label and label != str(page):
        return f"p. {label} (PDF p. {page})"
    return f"p. {page}"


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def utcnow() -> datetime:
    return datetime.now(UTC)


class BibInfo(BaseModel):
    """What a document states about itself on its first pages (workbench.pdf.bibinfo), for the
    bibliography: preferred over the PDF info dictionary, which is often a re-export's."""

    title: str | None = None  # the full title as printed
    doi: str | None = None
    arxiv: str | None = None
    report_number: str | None = None  # "NIST SP 800-171r2"
    institution: str | None = None
    issued: str | None = None  # the date the document states: "2020-02" or "2022-01-20"
    kind: Literal["report", "article"] | None = None


class OcrPage(BaseModel):
    """A page whose words were read by OCR (no usable text layer, or OCR forced): who read it and
    how sure it was, so every place that shows a quote from it can say "read by OCR"."""

    page: int  # 1-based
    engine: str  # "tesseract 5.3.0"
    languages: str  # Tesseract's language packs, "eng" or "eng+deu"
    words: int  # words read on the page
    mean_confidence: float  # 0..1, the mean of the words' confidences
    low_confidence_words: int = 0  # words below Settings.ocr_low_confidence


class Document(BaseModel):
    """A PDF, content-addressed: id is the SHA-256 of its bytes."""

    id: str
    filename: str
    title: str | None = None
    author: str | None = None
    created: str | None = None  # ISO date from the PDF metadata, when present
    modified: str | None = None
    source_type: SourceType = "other"
    pages: int
    has_text_layer: bool
    pages_without_text: list[int] = Field(default_factory=list)  # 1-based
    warnings: list[str] = Field(default_factory=list)
    size_bytes: int = 0
    encrypted: bool = False
    bib: BibInfo | None = None  # read from the first pages (filled in for exports)
    source_type_from: Literal["user", "content", "default"] = "user"  # who chose source_type
    removed_at: datetime | None = None  # soft delete: hidden from new runs, kept for runs that cite it
    removed_by: str | None = None
    ocr_pages: list[OcrPage] = Field(default_factory=list)  # pages read by OCR (issue 42), by page

    def ocr_page(self, page: int) -> OcrPage | None:
        """How a 1-based page was read by OCR; None when its text is the PDF's own."""
        return next((o for o in self.ocr_pages if o.page == page), None)

    @property
    def unread_pages(self) -> list[int]:
        """Pages whose words nobody could read: no usable text layer, and OCR off, unavailable,
        failed or finding no word there. Quotes there cannot be found."""
        read = {o.page for o in self.ocr_pages if o.words}
        return [p for p in self.pages_without_text if p not in read]


class DocSegment(Protocol):
    """A sentence or heading of a parsed document; start/end index its text."""

    start: int
    end: int
    page: int
    text: str
    heading: str | None
    kind: str


T = TypeVar("T")


class ParsedDoc(Protocol):
    """What the layers above the PDF layer need of a parsed document: its record, its text, its
    segments, spans with boxes, quote search, and a slot for values derived from it (vocabulary,
    term statistics) that live and go with the document. workbench.pdf.ParsedDocument is it."""

    document: Document
    text: str

    def segments(self) -> Sequence[DocSegment]: ...

    def heading_at(self, offset: int) -> str | None: ...

    def span(self, start: int, end: int) -> Span: ...

    def locate(self, quote: str, *, near: int | None = None) -> Span | None: ...

    def derived(self, key: str, build: Callable[[], T]) -> T: ...


class Span(BaseModel):
    """Quote → character span → boxes. start/end index the document's text (all pages
    joined); text is the document's own text there, which may differ from the quote asked
    for in whitespace, hyphenation, ligatures or quote marks."""

    document_id: str
    page: int  # first page, 1-based
    pages: list[int]
    start: int
    end: int
    text: str
    text_sha256: str
    rects: list[PageRect] = Field(default_factory=list)  # one per line per page
    page_label: str | None = None  # the printed label of `page` ("28" on PDF page 40), when known
    # Read by OCR (issue 42): the mean and the lowest confidence (0..1) of the OCR'd words the span
    # covers; None where its text is the PDF's own text layer.
    ocr_confidence: float | None = None
    ocr_min_confidence: float | None = None

    @property
    def read_by_ocr(self) -> bool:
        return self.ocr_confidence is not None

    @property
    def cite(self) -> str:
        return cite_page(self.page, self.page_label)


class ClosestMatch(BaseModel):
    """Not an anchor: the best fuzzy candidate when a quote is not found verbatim."""

    span: Span
    similarity: float  # 0..1


class UnitInfo(BaseModel):
    """What a verdict needs to know about the unit a quote is, beyond its words: read from the
    document for the located span (engine.unit_info) and carried on the item itself, so that
    every backend, every process and every re-check judges the same quote the same way."""

    lead_in: str = ""  # the lead-in of the list the quote is an item of ("… shall not include information that:")
    trimmed_from: int = 0  # words in the whole sentence when the quote is part of it; 0: the sentence whole
    at_clause: bool = True  # a part ends where a clause does (False: cut at the word limit)
    cut_before: bool = False  # the sentence goes on before the part (the answer shows "…")
    cut_after: bool = False  # … and after it
    joined: bool = False  # two sentences read as one unit ("Such notice …" with the sentence before)


class Evidence(BaseModel):
    """A verbatim quote with a stable ID (seed 000's requirement fields) and its span."""

    requirement_id: str
    source_type: SourceType = "other"
    document_id: str
    section_heading: str | None = None
    exact_quote: str
    chunk_id: str
    extraction_confidence: Confidence = "medium"
    span: Span | None = None  # None only when the quote could not be anchored
    unit: UnitInfo | None = None  # the unit facts the verdict read (None: a run stored before they were kept)

    def audit_dict(self) -> dict[str, Any]:
        """Seed 000's extracted-requirement fields plus the span, flat, as the CLI prints it."""
        d = self.model_dump(exclude={"span"})
        s = self.span
        d.update(
            page=s.page if s else None,
            page_label=s.page_label if s else None,
            pages=s.pages if s else [],
            start=s.start if s else None,
            end=s.end if s else None,
            text_sha256=s.text_sha256 if s else None,
            rects=[list(r) for r in s.rects] if s else [],
        )
        if s and s.read_by_ocr:  # the quote is what OCR read: an auditor sees how sure it was
            d.update(read_by_ocr=True, ocr_confidence=s.ocr_confidence, ocr_min_confidence=s.ocr_min_confidence)
        return d


class Chunk(BaseModel):
    """A retrieved piece of one document; start/end index that document's text."""

    chunk_id: str
    document_id: str
    start: int
    end: int
    text: str
    page: int
    section_heading: str | None = None
    score: float = 0.0


class Candidate(BaseModel):
    """An extracted quote before the pipeline anchors it in the PDF and gives it an ID.
    `start`/`end` are set when the backend knows the exact offsets (rules); otherwise the
    pipeline searches the document for `exact_quote`."""

    exact_quote: str
    chunk_id: str
    document_id: str
    section_heading: str | None = None
    extraction_confidence: Confidence = "medium"
    start: int | None = None
    end: int | None = None


class Draft(BaseModel):
    final_answer: str
    requirement_references: list[RequirementReference] = Field(default_factory=list)
    unused_requirements: list[str] = Field(default_factory=list)


class StageUsage(BaseModel):
    """What one backend call cost; LLM backends fill it in, rules leaves zeros."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    calls: int = 0
    structured_output: str = ""  # how the reply's JSON shape was asked for (openai backend's FORMS)
    raw_failures: list[str] = Field(default_factory=list)


class StageFailure(BaseModel):
    """A backend stage that failed in a run: the run ends fail-safe and the audit trail keeps
    this, the raw reply included, so a failure is never read as a finding about the documents."""

    stage: Stage
    error: str = ""  # the exception's class name, e.g. "BackendError"
    message: str
    raw: str | None = None  # the model's raw reply when there was one


class Verification(BaseModel):
    requirement_id: str
    verified: bool
    rejection_reason: RejectionReason | None = None
    verification_rationale: str = ""
    score: float = 0.0  # 0..1, the verifier's belief that the quote answers the question
    verifier: str = "rules"


class RequirementReference(BaseModel):
    requirement_id: str
    used_in_answer: bool
    statement: str


class EvidenceConflict(BaseModel):
    """Another verified item of the run that says otherwise than the evidence a composed sentence
    cites: the support model reads it as contradicting the cited quote (P ≥ 0.5) and the fact
    check does not find the two stating the same facts (workbench.pipeline.quality.evidence_conflicts)."""

    cited: str  # the sentence's own evidence ID
    other: str  # the verified item that says otherwise
    probability: float  # P(`other` contradicts `cited`), the support model's
    reason: str = ""  # the facts that differ, in words, when the fact check names them


class SentenceSupport(BaseModel):
    """One sentence of a composed answer (seed 004's validate step)."""

    text: str
    citations: list[str] = Field(default_factory=list)
    supported: bool
    reason: str = ""
    verdict: Verdict = "not_stated"  # supported, contradicted (its evidence says otherwise) or not stated
    _fill_verdict = model_validator(mode="before")(_verdict_from_supported)
    score: float | None = None  # a checked draft's sentence: the claim verifier's score in [0, 1]
    answers: float | None = None  # P(the evidence it cites answers the question): its best citation's
    contradicted_by: list[EvidenceConflict] = Field(default_factory=list)  # verified items saying otherwise


VERDICT_WORDS: dict[str, str] = {"supported": "supported", "contradicted": "contradicted", "not_stated": "not stated"}


def verdict_counts(sentences: Sequence[SentenceSupport]) -> dict[str, int]:
    """Sentences per verdict, every verdict present (a badge counts contradicted ones apart)."""
    out = dict.fromkeys(VERDICT_WORDS, 0)
    for s in sentences:
        out[s.verdict] += 1
    return out


def verdict_summary(sentences: Sequence[SentenceSupport]) -> str:
    """"2 supported, 1 contradicted, 1 not stated": the verdicts a checked draft's reader counts
    (a verdict no sentence has is left out, supported always said)."""
    counts = verdict_counts(sentences)
    return ", ".join(f"{n} {VERDICT_WORDS[v]}" for v, n in counts.items() if n or v == "supported")


class QualityFinding(BaseModel):
    check: str  # e.g. "every_sentence_cites", "cited_ids_verified", "no_speculation", "coverage"
    passed: bool
    detail: str = ""


class Answer(BaseModel):
    final_answer: str = ""
    requirement_references: list[RequirementReference] = Field(default_factory=list)
    unused_requirements: list[str] = Field(default_factory=list)
    missing_evidence: list[str] = Field(default_factory=list)
    grounding_confidence: GroundingConfidence = "insufficient"
    sentences: list[SentenceSupport] = Field(default_factory=list)
    support_ratio: float = 0.0  # supported sentences / sentences (seed 004)
    citation_coverage: float = 0.0  # cited verified IDs / verified IDs (seed 002)
    quality: list[QualityFinding] = Field(default_factory=list)
    revisions: int = 0
    # P(the cited evidence answers the question): the best cited quote's learned relevance (1.0
    # for a quote a human marked supported); None when not measured. Caps the confidence and badge.
    answers_question: float | None = None
    result: str | None = None  # NO_AUTHORITATIVE_EVIDENCE when nothing was verified
    message: str | None = None


class ClaimCheck(BaseModel):
    """Per-claim verdict of `workbench verify` (seed 004): `supported` (the boolean of old) and
    `verdict`, which tells a claim the documents contradict from one they do not state; the first
    evidence span is the deciding one (the span that states or contradicts it)."""

    claim: str
    supported: bool
    score: float
    reason: str
    verdict: Verdict = "not_stated"
    evidence: list[Span] = Field(default_factory=list)

    _fill_verdict = model_validator(mode="before")(_verdict_from_supported)


class StageEvent(BaseModel):
    """Progress a UI can show live."""

    stage: Stage
    status: Literal["started", "progress", "done", "failed", "skipped"]
    counts: dict[str, int] = Field(default_factory=dict)
    elapsed: float = 0.0  # seconds since the stage started
    message: str = ""
    question_index: int = 0
    question_total: int = 1


class ReviewEvent(BaseModel):
    """A human decision, append-only. The current label is derived from the events."""

    id: int | None = None
    run_id: str
    requirement_id: str  # an evidence ID, or "SENT-<n>" for an answer sentence
    label: Label
    reviewer: str
    note: str = ""
    timestamp: datetime = Field(default_factory=utcnow)
    previous_label: Label | None = None  # the human label current before this one
    verifier_verdict: FinalStatus | None = None  # what the verifier said at the time
    kind: EventKind = "label"
    evidence: Evidence | None = None  # the item a reviewer added (kind "added")
    value: str | None = None  # kind "correction": the cell's answer as the reviewer states it


RunKind = Literal["question", "draft"]


class Run(BaseModel):
    """One question asked of documents, or (kind "draft") an analyst's draft checked sentence by
    sentence (seed 004): the draft's sentences are the answer, each citing its best evidence."""

    run_id: str
    question: str
    kind: RunKind = "question"
    draft: str | None = None  # kind "draft": the draft as the analyst gave it
    document_ids: list[str]
    backend: str = "rules"
    settings: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime = Field(default_factory=utcnow)
    stage_timings: dict[str, float] = Field(default_factory=dict)
    chunks_retrieved: int = 0
    evidence: list[Evidence] = Field(default_factory=list)
    verifications: list[Verification] = Field(default_factory=list)
    answer: Answer = Field(default_factory=Answer)
    usage: dict[str, StageUsage] = Field(default_factory=dict)  # tokens / latency per stage (LLM backends)
    failures: list[StageFailure] = Field(default_factory=list)  # stage failures, raw replies kept
    # A run over several documents: each document's short title by id, named in every answer
    # statement and on its citation chips (empty for one document, and for runs stored before)
    document_titles: dict[str, str] = Field(default_factory=dict)

    def verification_for(self, requirement_id: str) -> Verification | None:
        return next((v for v in self.verifications if v.requirement_id == requirement_id), None)

    def audit_trail(self, answer: Answer | None = None) -> dict[str, Any]:
        """Seed 000's audit-trail JSON, each extracted requirement carrying its span.

        `answer` is the answer a reader sees after review: where given, seed 000's answer fields
        (`final_answer`, `grounding_confidence`, references, sentences, quality) are that answer,
        so whoever reads `final_answer` reads what the human decided, and `machine_answer` keeps
        what the pipeline composed. The verifier's own verdicts stay in `verified_requirements` /
        `rejected_requirements` either way."""
        shown = answer or self.answer
        verified = [v for v in self.verifications if v.verified]
        rejected = [v for v in self.verifications if not v.verified]
        n_ext = len(self.evidence)
        out: dict[str, Any] = {
            "run_id": self.run_id,
            "question": self.question,
            "grounding_confidence": shown.grounding_confidence,
            "extracted_requirements": [e.audit_dict() for e in self.evidence],
            "verified_requirements": [v.model_dump() for v in verified],
            "rejected_requirements": [v.model_dump() for v in rejected],
            **_answer_fields(shown),
            "evidence_audit_trail": {
                "total_chunks_retrieved": self.chunks_retrieved,
                "total_requirements_extracted": n_ext,
                "total_requirements_verified": len(verified),
                "verification_pass_rate": round(len(verified) / n_ext, 4) if n_ext else 0.0,
                "composition_confidence": self.answer.grounding_confidence,
                "support_ratio": self.answer.support_ratio,
                "citation_coverage": self.answer.citation_coverage,
                "revisions": self.answer.revisions,
                "stage_timings": self.stage_timings,
                "backend": self.backend,
                "settings": self.settings,  # what decided: retrieval, quote limits, judgment thresholds and gates
                "document_ids": self.document_ids,
                "usage": {k: u.model_dump() for k, u in self.usage.items()},
                "failures": [f.model_dump() for f in self.failures],
            },
        }
        if shown.result:
            out["result"] = shown.result
            out["message"] = shown.message
        if answer is not None:
            out["machine_answer"] = {**_answer_fields(self.answer),
                                     "grounding_confidence": self.answer.grounding_confidence,
                                     "result": self.answer.result, "message": self.answer.message}
        return out


def _answer_fields(answer: Answer) -> dict[str, Any]:
    """Seed 000's answer fields of one answer (the machine's or the reader's)."""
    return {
        "final_answer": answer.final_answer,
        "requirement_references": [r.model_dump() for r in answer.requirement_references],
        "unused_requirements": answer.unused_requirements,
        "missing_evidence": answer.missing_evidence,
        "sentence_support": [s.model_dump() for s in answer.sentences],
        "quality_review": [q.model_dump() for q in answer.quality],
    }


class EvidenceStatus(BaseModel):
    """An evidence item as a reviewer sees it: both verdicts and the one that counts."""

    run_id: str
    evidence: Evidence
    verification: Verification | None = None
    verifier_verdict: FinalStatus
    human_label: HumanLabel | None = None  # None: no human decision (or reset)
    final_status: FinalStatus  # the human label's status (label_status) when there is one, else the verifier's
    reviewer: str | None = None
    note: str | None = None
    reviewed_at: datetime | None = None
    hash_ok: bool = True  # False: the stored PDF no longer yields this quote's SHA-256
    human_added: bool = False  # a reviewer added it (the pipeline missed it); reviewer/note say who and why
    reviewer_labels: dict[str, HumanLabel] = Field(default_factory=dict)  # each reviewer's current label
    conflict: bool = False  # reviewers disagree and no adjudication settled it
    adjudicated: bool = False  # the human label is an adjudicator's decision


Badge = Literal["green", "amber", "red"]


ANSWERS = 0.5  # P(the cited evidence answers the question) below this: it does not answer
ANSWERS_WELL = 0.8  # ... from this on it answers well; between the two at most amber / medium


def support_badge(support_ratio: float, answers: float | None = None) -> Badge:
    """Seed 004's support-ratio badge: >= 75 % green, 40-74 % amber, < 40 % red; then capped by
    whether the cited evidence answers the question (`answers`, see Answer.answers_question):
    below ANSWERS red, below ANSWERS_WELL at most amber. Citing is not answering."""
    badge: Badge = "green" if support_ratio >= 0.75 else "amber" if support_ratio >= 0.40 else "red"
    if answers is not None and answers < ANSWERS:
        return "red"
    if answers is not None and answers < ANSWERS_WELL and badge == "green":
        return "amber"
    return badge


class AnswerRevision(BaseModel):
    """One recomposition of the answer a reader sees: what changed and which review events
    caused it (no events: the hash re-check on load). The machine answer is never rewritten."""

    revision: int  # 1, 2, ... in event order
    triggered_by: list[int] = Field(default_factory=list)  # review event ids
    at: datetime | None = None  # when the last triggering event was recorded
    now_citable: list[str] = Field(default_factory=list)  # items that became supported
    no_longer_citable: list[str] = Field(default_factory=list)  # items that stopped being supported
    dropped_sentences: list[str] = Field(default_factory=list)
    added_sentences: list[str] = Field(default_factory=list)
    final_answer: str = ""  # the answer after this revision
    support_ratio: float = 0.0
    citation_coverage: float = 0.0
    grounding_confidence: GroundingConfidence = "insufficient"


class ReviewedRun(BaseModel):
    """A run as a reader sees it once the review events apply: every view (pages, CLI, exports,
    metrics) reads this, so they show the same numbers. Built by workbench.review.reviewed_run."""

    run: Run  # as stored, re-verified: hash failures come back unverified
    event_count: int = 0
    statuses: list[EvidenceStatus] = Field(default_factory=list)  # machine items, then reviewer-added
    machine_answer: Answer = Field(default_factory=Answer)  # what the pipeline composed
    answer: Answer = Field(default_factory=Answer)  # recomposed from final statuses
    revisions: list[AnswerRevision] = Field(default_factory=list)
    badge: Badge = "red"  # support_badge(answer.support_ratio)
    record_problems: list[str] = Field(default_factory=list)  # forged or erased review events (store/chain.py)

    def status_for(self, requirement_id: str) -> EvidenceStatus | None:
        return next((s for s in self.statuses if s.evidence.requirement_id == requirement_id), None)

    @property
    def supported_ids(self) -> list[str]:
        return [s.evidence.requirement_id for s in self.statuses if s.final_status == "supported"]

    @property
    def conflicts(self) -> list[EvidenceStatus]:
        return [s for s in self.statuses if s.conflict]


class ReviewMetrics(BaseModel):
    """Verifier vs human agreement and review progress, for one run (run_id set) or overall.
    Agreement counts only items a human has labelled (current label, resets excluded)."""

    run_id: str | None = None  # None: every stored run
    runs: int = 0
    total: int = 0  # evidence items
    reviewed: int = 0  # items with a current human label
    review_progress: float = 0.0  # reviewed / total
    verified: int = 0  # items the verifier passed
    pass_rate: float = 0.0  # verified / total (the verifier's)
    final_supported: int = 0  # items whose final status is supported
    final_pass_rate: float = 0.0  # final_supported / total (human labels applied)
    rejection_reasons: dict[str, int] = Field(default_factory=dict)  # verifier's, over all items
    # confusion[verifier_verdict][human_label] over reviewed items
    confusion: dict[str, dict[str, int]] = Field(default_factory=dict)
    agreement: float | None = None  # observed agreement over reviewed items
    cohen_kappa: float | None = None  # None when undefined (nothing reviewed, or one class only)
    overrides: int = 0  # reviewed items where the human disagrees with the verifier
    override_rate: float | None = None  # overrides / reviewed
    # per verifier rejection reason ("verified" for items it passed): reviewed, overrides, rate
    override_by_reason: dict[str, dict[str, float]] = Field(default_factory=dict)
    grounding_confidence: dict[str, int] = Field(default_factory=dict)  # runs per level (human labels applied)
    extraction_confidence: dict[str, int] = Field(default_factory=dict)  # items per level
    score_histogram: list[int] = Field(default_factory=list)  # verifier scores in 10 bins of 0.1
    review_events: int = 0
    reviewers: dict[str, int] = Field(default_factory=dict)  # events per reviewer
    labelled_by_reviewer: dict[str, int] = Field(default_factory=dict)  # items each reviewer has a label on
    inter_reviewer_items: int = 0  # items labelled by two or more reviewers
    inter_reviewer_kappa: float | None = None  # agreement between reviewers on those items
    open_conflicts: int = 0  # items where reviewers disagree and no adjudication settled it
    per_run: list[ReviewMetrics] = Field(default_factory=list)  # filled for the overall view
    # Issue 41: what each number rests on. Agreement and κ count the human labels on items the
    # verifier judged (reviewer-added evidence has no verifier verdict to disagree with).
    agreement_labels: int = 0  # labels agreement, overrides and cohen_kappa rest on
    reviewer_added: int = 0  # items a reviewer added (left out of the agreement)
    drafts: int = 0  # checked drafts, not counted as runs (overall view)


JobKind = Literal["ingest", "index", "ask", "verify", "cell"]  # cell: one question over one document, for a review table
JobStatus = Literal["queued", "running", "finished", "failed"]


class JobInfo(BaseModel):
    """A unit of background work (ingest + index, index, a run of one or more questions, a draft
    check) and where it stands. Its stage events are kept beside it (Workbench.job_events)."""

    job_id: str
    kind: JobKind | Literal["unknown"]  # unknown: a refused job whose record proves no kind
    status: JobStatus = "queued"
    progress: float = 0.0  # 0..1
    message: str = ""  # the latest stage event, in words
    attempts: int = 0  # starts so far (a job whose worker died is started once more)
    document_ids: list[str] = Field(default_factory=list)
    run_ids: list[str] = Field(default_factory=list)  # ask: the runs stored, once finished
    result: list[dict[str, Any]] = Field(default_factory=list)  # verify: one row per claim
    error: str | None = None  # why it failed, in words
    refused: bool = False  # never run: its queue record was not what the workbench signed (error says why)
    requested_by: Identity | None = None  # who asked, as the signed job proves it (None: sign-in off)
    created_at: datetime = Field(default_factory=utcnow)
    started_at: datetime | None = None
    ended_at: datetime | None = None


Role = Literal["reviewer", "adjudicator", "admin"]
ROLES: tuple[str, ...] = ("reviewer", "adjudicator", "admin")  # each may do what the ones before it may


class Identity(BaseModel):
    """Who is signed in (sign-in on): the name every review event records, and the role."""

    name: str
    role: Role = "reviewer"
    via: Literal["local", "oidc"] = "local"
    # Proof of the session (workbench.auth.session_proof): an HMAC over the name and the account's
    # session version. The service re-reads the account on every action and refuses a session whose
    # proof no longer matches (password, role or disabled changed since), or has none.
    session: str | None = None


# --- review tables (a data room: documents x questions, every cell a run) ----------------------------
CELL_ID = "CELL"  # the requirement_id of a cell correction event (kind "correction") on the cell's run
QuestionKind = Literal["jurisdiction", "date", "duration", "amount", "percent", "yes_no", "text"]
# done: its run is stored and current; stale: stored, but its document, question or the engine changed
# since; not_run: never asked (or its job is gone with the process that held it)
CellStatus = Literal["done", "stale", "running", "queued", "failed", "not_run"]
CellReview = Literal["unreviewed", "accepted", "rejected", "corrected"]


class TableColumn(BaseModel):
    """A checklist question: its label (the column's header and key), the question asked of each
    document, and the kind of short answer it wants (workbench.table.checklist.question_kind)."""

    key: str
    question: str
    kind: QuestionKind = "text"


class TableRow(BaseModel):
    """A document of the data room. `key` is its file name: a new file of the same name is a new
    version of the row (its cells go stale); `document_id` is the version the row reads now."""

    key: str
    document_id: str
    filename: str
    # amendments and side letters that change this row's document (their document ids): the row's
    # cells read them too, their clauses first (issue 43)
    related: list[str] = Field(default_factory=list)


class ReviewTable(BaseModel):
    """Documents x questions. Rows and columns are added, never silently changed; each cell's
    answer is a stored run (TableCellRecord), so review, history and exports work as for any run."""

    table_id: str
    name: str
    rows: list[TableRow] = Field(default_factory=list)
    columns: list[TableColumn] = Field(default_factory=list)
    created_at: datetime = Field(default_factory=utcnow)
    created_by: str | None = None
    updated_at: datetime = Field(default_factory=utcnow)


class TableCellRecord(BaseModel):
    """One run asked for a cell (append-only: a rerun adds a record, the newest is the cell's), with
    what it was asked of: the document version, the question and the engine version."""

    id: int | None = None
    table_id: str
    row_key: str
    column_key: str
    document_id: str
    question: str
    run_id: str
    job_id: str | None = None
    engine_version: str
    created_at: datetime = Field(default_factory=utcnow)
    requested_by: str | None = None


class CellCitation(BaseModel):
    """A verified quote a cell rests on (the short answer's first)."""

    requirement_id: str
    document_id: str
    page: int | None = None
    page_label: str | None = None
    quote: str
    start: int | None = None
    end: int | None = None
    text_sha256: str | None = None  # of the quote's span as located in the document (re-checked on load)
    final_status: FinalStatus = "supported"
    human_label: HumanLabel | None = None
    ocr_confidence: float | None = None  # the quote was read by OCR (issue 42): its words' mean confidence
    ocr_min_confidence: float | None = None
    amendment: bool = False  # the quote is from an amendment or side letter related to the row's document


class TableCell(BaseModel):
    """A cell as a reader sees it: the short answer (characters of a verified quote, normalised
    beside it; or yes/no citing its clause; or "not found"), the run's answer after review, the
    citations, and where it stands (status, stale reasons, review). A correction wins."""

    table_id: str
    row_key: str
    column_key: str
    document_id: str
    filename: str
    question: str
    kind: QuestionKind = "text"
    status: CellStatus = "not_run"
    stale: list[str] = Field(default_factory=list)  # why it no longer answers the row and column as they are
    short_answer: str | None = None
    normalized: str | None = None
    machine_short_answer: str | None = None  # the engine's, kept beside a reviewer's correction
    answer: str = ""
    result: str | None = None  # NO_AUTHORITATIVE_EVIDENCE: no verified evidence ("not found")
    grounding_confidence: GroundingConfidence = "insufficient"
    badge: Badge | None = None
    citations: list[CellCitation] = Field(default_factory=list)
    basis: str | None = None  # the evidence ID the short answer was read from
    review: CellReview = "unreviewed"
    reviewed_by: str | None = None
    review_note: str | None = None
    reviewed_at: datetime | None = None
    run_id: str | None = None
    job_id: str | None = None
    engine_version: str | None = None
    error: str | None = None  # failed: why
    record_problems: list[str] = Field(default_factory=list)


class TableView(BaseModel):
    """A table with every cell as a reader sees it now, row by row, and the counts by status."""

    table: ReviewTable
    cells: list[TableCell] = Field(default_factory=list)
    engine_version: str
    counts: dict[str, int] = Field(default_factory=dict)

    def cell(self, row_key: str, column_key: str) -> TableCell | None:
        return next((c for c in self.cells if c.row_key == row_key and c.column_key == column_key), None)
