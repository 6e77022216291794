"""The shared vocabulary. Every layer speaks these models; field names follow the seeds
(000: requirement fields and audit trail; 001: offsets + SHA-256; 004: sentence support)."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

SourceType = Literal["statute", "policy", "contract", "paper", "other"]
SOURCE_TYPES: tuple[str, ...] = ("statute", "policy", "contract", "paper", "other")
# One letter per source type in evidence IDs: REQ-S001 (statute), REQ-P001 (policy), ...
ID_PREFIX: dict[str, str] = {"statute": "S", "policy": "P", "contract": "C", "paper": "R", "other": "O"}

Confidence = Literal["high", "medium", "low"]
GroundingConfidence = Literal["high", "medium", "low", "insufficient"]
RejectionReason = Literal[
    "does_not_address_question",
    "requires_inference",
    "incomplete_quote",
    "quote_not_found",
    "not_a_requirement",
    "backend_error",
    "hash_mismatch",
]
Label = Literal["supported", "unsupported", "reset"]
FinalStatus = Literal["supported", "unsupported"]
Stage = Literal["retrieval", "extract", "verify", "compose", "quality_review", "finalize"]
STAGES: tuple[str, ...] = ("retrieval", "extract", "verify", "compose", "quality_review", "finalize")
NO_AUTHORITATIVE_EVIDENCE = "NO_AUTHORITATIVE_EVIDENCE"

# A box on a page: (page 1-based, x0, y0, x1, y1) in PDF points, origin top-left of the
# page's cropbox, exactly as PyMuPDF reports word boxes. The CLI prints it as a list.
PageRect = tuple[int, float, float, float, float]


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def utcnow() -> datetime:
    return datetime.now(UTC)


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


class ClosestMatch(BaseModel):
    """Not an anchor: the best fuzzy candidate when a quote is not found verbatim."""

    span: Span
    similarity: float  # 0..1


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

    def audit_dict(self) -> dict[str, Any]:
        """Seed 000's extracted-requirement fields plus the span, flat, as the CLI prints it."""
        d = self.model_dump(exclude={"span"})
        s = self.span
        d.update(
            page=s.page if s else None,
            pages=s.pages if s else [],
            start=s.start if s else None,
            end=s.end if s else None,
            text_sha256=s.text_sha256 if s else None,
            rects=[list(r) for r in s.rects] if s else [],
        )
        return d


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


class SentenceSupport(BaseModel):
    """One sentence of a composed answer (seed 004's validate step)."""

    text: str
    citations: list[str] = Field(default_factory=list)
    supported: bool
    reason: str = ""


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
    result: str | None = None  # NO_AUTHORITATIVE_EVIDENCE when nothing was verified
    message: str | None = None


class ClaimCheck(BaseModel):
    """Per-claim verdict of `workbench verify` (seed 004)."""

    claim: str
    supported: bool
    score: float
    reason: str
    evidence: list[Span] = Field(default_factory=list)


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


class Run(BaseModel):
    run_id: str
    question: str
    document_ids: list[str]
    backend: str = "rules"
    settings: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime = Field(default_factory=utcnow)
    stage_timings: dict[str, float] = Field(default_factory=dict)
    chunks_retrieved: int = 0
    evidence: list[Evidence] = Field(default_factory=list)
    verifications: list[Verification] = Field(default_factory=list)
    answer: Answer = Field(default_factory=Answer)
    usage: dict[str, Any] = Field(default_factory=dict)  # tokens / latency per stage (LLM backends)
    failures: list[dict[str, Any]] = Field(default_factory=list)  # stage failures, raw replies kept

    def verification_for(self, requirement_id: str) -> Verification | None:
        return next((v for v in self.verifications if v.requirement_id == requirement_id), None)

    def audit_trail(self) -> dict[str, Any]:
        """Seed 000's audit-trail JSON, each extracted requirement carrying its span."""
        verified = [v for v in self.verifications if v.verified]
        rejected = [v for v in self.verifications if not v.verified]
        n_ext = len(self.evidence)
        out: dict[str, Any] = {
            "run_id": self.run_id,
            "question": self.question,
            "grounding_confidence": self.answer.grounding_confidence,
            "extracted_requirements": [e.audit_dict() for e in self.evidence],
            "verified_requirements": [v.model_dump() for v in verified],
            "rejected_requirements": [v.model_dump() for v in rejected],
            "final_answer": self.answer.final_answer,
            "requirement_references": [r.model_dump() for r in self.answer.requirement_references],
            "unused_requirements": self.answer.unused_requirements,
            "missing_evidence": self.answer.missing_evidence,
            "sentence_support": [s.model_dump() for s in self.answer.sentences],
            "quality_review": [q.model_dump() for q in self.answer.quality],
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
                "document_ids": self.document_ids,
                "usage": self.usage,
                "failures": self.failures,
            },
        }
        if self.answer.result:
            out["result"] = self.answer.result
            out["message"] = self.answer.message
        return out


class EvidenceStatus(BaseModel):
    """An evidence item as a reviewer sees it: both verdicts and the one that counts."""

    run_id: str
    evidence: Evidence
    verification: Verification | None = None
    verifier_verdict: FinalStatus
    human_label: FinalStatus | None = None  # None: no human decision (or reset)
    final_status: FinalStatus  # the human label when there is one, else the verifier's
    reviewer: str | None = None
    note: str | None = None
    reviewed_at: datetime | None = None
    hash_ok: bool = True  # False: the stored PDF no longer yields this quote's SHA-256


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
    per_run: list[ReviewMetrics] = Field(default_factory=list)  # filled for the overall view
