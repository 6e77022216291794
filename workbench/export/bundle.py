"""What every exporter reads: runs with their reviewed state, the documents they cite and a way
to reach the PDFs and their text. `service.export` builds it from the store; tests build it
directly from models, so every format is a pure function of a bundle."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from workbench.models import Answer, AnswerRevision, Document, EvidenceStatus, ReviewEvent, Run, utcnow


class GateDecision(BaseModel):
    """Seed 003's verdict on one run's answer, kept inside the export that it let through."""

    run_id: str
    passed: bool
    evidence_coverage: float  # answer sentences citing supported evidence / answer sentences
    support_ratio: float  # seed 004: supported sentences / sentences, after human labels
    min_coverage: float
    min_support: float
    needs_human_check: list[str] = Field(default_factory=list)
    no_authoritative_evidence: bool = False


class ForcedExport(BaseModel):
    """An export let through despite the gate: who decided, when and why."""

    reason: str
    by: str
    at: datetime = Field(default_factory=utcnow)
    overridden: list[GateDecision] = Field(default_factory=list)


class RunBundle(BaseModel):
    """One run as a reviewer left it."""

    run: Run
    statuses: list[EvidenceStatus] = Field(default_factory=list)
    history: list[ReviewEvent] = Field(default_factory=list)
    answer: Answer | None = None  # the answer recomposed from final statuses; None: run.answer
    revisions: list[AnswerRevision] = Field(default_factory=list)  # how review changed the answer
    record_problems: list[str] = Field(default_factory=list)  # forged or erased review record: no export

    @property
    def effective_answer(self) -> Answer:
        return self.answer if self.answer is not None else self.run.answer

    def status_for(self, requirement_id: str) -> EvidenceStatus | None:
        return next((s for s in self.statuses if s.evidence.requirement_id == requirement_id), None)


# page → the words OCR read there: (x0, y0, x1, y1, text, block, line) in the unrotated page space
OcrWords = dict[int, list[tuple[float, float, float, float, str, int, int]]]


class ExportBundle(BaseModel):
    """Runs, the documents they cite, and getters for PDF bytes and document text (the text is
    what span offsets index: prefix/suffix for Web Annotation, the hash re-check), and for the
    words OCR read on a scan (the annotated PDF writes them as an invisible text layer)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    runs: list[RunBundle]
    documents: dict[str, Document] = Field(default_factory=dict)
    pdf_bytes: Callable[[str], bytes] | None = None
    document_text: Callable[[str], str] | None = None
    ocr_words: Callable[[str], OcrWords] | None = None
    generated_at: datetime = Field(default_factory=utcnow)
    generator: str = "Evidence Workbench"
    gate: list[GateDecision] = Field(default_factory=list)
    forced: ForcedExport | None = None

    def document(self, document_id: str) -> Document | None:
        return self.documents.get(document_id)

    def text(self, document_id: str) -> str | None:
        return self.document_text(document_id) if self.document_text else None

    def pdf(self, document_id: str) -> bytes:
        if self.pdf_bytes is None:
            raise ValueError("this bundle carries no PDF getter")
        return self.pdf_bytes(document_id)

    def ocr_layer(self, document_id: str) -> OcrWords:
        """The words OCR read on the pages of this document that have no usable text layer of
        their own: a page whose own text OCR read again (OCR forced) keeps its text alone."""
        doc = self.document(document_id)
        if self.ocr_words is None or doc is None or not doc.ocr_pages:
            return {}
        bare = set(doc.pages_without_text)
        return {page: words for page, words in self.ocr_words(document_id).items() if page in bare and words}

    def cited_document_ids(self) -> list[str]:
        """Documents with evidence in any run, in first-seen order (then the runs' other documents)."""
        seen: dict[str, None] = {}
        for rb in self.runs:
            for s in rb.statuses:
                seen.setdefault(s.evidence.document_id, None)
        return list(seen)

    def pages_cited(self, document_id: str) -> list[int]:
        """Pages of this document that the answers cite: evidence an answer sentence cites and
        whose final status is supported (an extracted item the answer left out, or one a
        reviewer rejected, is not cited)."""
        pages: set[int] = set()
        for rb in self.runs:
            answer = rb.effective_answer
            cited = {c for sent in answer.sentences for c in sent.citations}
            cited |= {r.requirement_id for r in answer.requirement_references if r.used_in_answer}
            for s in rb.statuses:
                sp = s.evidence.span
                if (s.evidence.document_id == document_id and sp is not None
                        and s.evidence.requirement_id in cited and s.final_status == "supported"):
                    pages.update(sp.pages or [sp.page])
        return sorted(pages)

    def export_meta(self) -> dict[str, Any]:
        """The provenance block every structured format carries."""
        return {
            "generator": self.generator,
            "generated_at": self.generated_at.isoformat(),
            "run_ids": [rb.run.run_id for rb in self.runs],
            "safety_gate": [g.model_dump(mode="json") for g in self.gate],
            "forced": self.forced.model_dump(mode="json") if self.forced else None,
        }
