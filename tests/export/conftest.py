"""Bundles built straight from models over PDFs the tests make: no store, no pipeline.

Spans are located here with PyMuPDF's own search (the test's independent locator): offsets
index the document text = page texts joined, rects come from `search_for` per page."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pymupdf
import pytest

from workbench.export.bundle import ExportBundle, RunBundle
from workbench.models import (
    Answer,
    Document,
    Evidence,
    EvidenceStatus,
    ReviewEvent,
    Run,
    SentenceSupport,
    Span,
    Verification,
    sha256_text,
)

PAGE_1 = (
    "Section 1. Access control. Organizations shall limit system access to authorized users and devices. "
    "Mobile devices must encrypt controlled unclassified information at rest before they leave the site. "
    "This paragraph is context that nobody cites in the tests at all."
)
PAGE_2 = (
    "Section 2. Audit. The contractor shall retain audit records for at least three years after closeout. "
    "Reviewers should note that retention periods may vary between agencies and programs."
)
Q1 = "Organizations shall limit system access to authorized users and devices."
Q2 = "Mobile devices must encrypt controlled unclassified information at rest"
Q3 = "The contractor shall retain audit records for at least three years after closeout."


@dataclass
class PdfDoc:
    path: Path
    data: bytes
    text: str
    document: Document
    page_offsets: list[int] = field(default_factory=list)


def load_pdf(path: Path, *, title: str | None = "Security Requirements for Test Systems",
             author: str | None = "Jane Doe; National Institute of Testing", created: str | None = "2020-02-01",
             source_type: str = "statute") -> PdfDoc:
    data = path.read_bytes()
    doc = pymupdf.open(path)
    texts = [p.get_text() for p in doc]
    offsets, pos = [], 0
    for t in texts:
        offsets.append(pos)
        pos += len(t)
    document = Document(id=hashlib.sha256(data).hexdigest(), filename=path.name, title=title, author=author,
                        created=created, source_type=source_type, pages=doc.page_count, has_text_layer=True,
                        size_bytes=len(data))
    doc.close()
    return PdfDoc(path, data, "".join(texts), document, offsets)


def locate(pdf: PdfDoc, quote: str) -> Span:
    """The span of `quote` in the PDF: first occurrence in the joined text (whitespace as the
    PDF has it), rects from search_for on each page it touches."""
    words = quote.split()
    import re

    m = re.search(r"\s+".join(map(re.escape, words)), pdf.text)
    assert m, f"test quote not in the test PDF: {quote!r}"
    start, end = m.span()
    doc = pymupdf.open(pdf.path)
    pages = [i + 1 for i, off in enumerate(pdf.page_offsets)
             if off < end and start < off + len(doc[i].get_text())]
    rects = []
    for p in pages:
        off = pdf.page_offsets[p - 1]
        part = pdf.text[max(start, off):min(end, off + len(doc[p - 1].get_text()))]
        for r in doc[p - 1].search_for(" ".join(part.split())):
            rects.append((p, r.x0, r.y0, r.x1, r.y1))
    doc.close()
    text = pdf.text[start:end]
    return Span(document_id=pdf.document.id, page=pages[0], pages=pages, start=start, end=end, text=text,
                text_sha256=sha256_text(text), rects=rects)


def evidence(pdf: PdfDoc, rid: str, quote: str) -> Evidence:
    return Evidence(requirement_id=rid, source_type=pdf.document.source_type, document_id=pdf.document.id,
                    exact_quote=quote, chunk_id="c1", span=locate(pdf, quote))


def status(run_id: str, ev: Evidence, verified: bool, human: str | None = None, reviewer: str | None = None,
           note: str | None = None, reason: str | None = None) -> EvidenceStatus:
    verdict = "supported" if verified else "unsupported"
    return EvidenceStatus(
        run_id=run_id, evidence=ev,
        verification=Verification(requirement_id=ev.requirement_id, verified=verified, rejection_reason=reason,
                                  verification_rationale="test", score=0.9 if verified else 0.2),
        verifier_verdict=verdict, human_label=human, final_status=human or verdict, reviewer=reviewer, note=note,
        reviewed_at=datetime(2026, 11, 22, 12, 0, tzinfo=UTC) if human else None,
    )


def make_bundle(pdfs: list[PdfDoc], runs: list[RunBundle]) -> ExportBundle:
    by_id = {p.document.id: p for p in pdfs}
    return ExportBundle(runs=runs, documents={p.document.id: p.document for p in pdfs},
                        pdf_bytes=lambda d: by_id[d].data, document_text=lambda d: by_id[d].text)


@pytest.fixture
def sample_pdf(make_pdf: Callable[..., Path]) -> PdfDoc:
    return load_pdf(make_pdf([PAGE_1, PAGE_2], name="requirements.pdf"))


@pytest.fixture
def reviewed(sample_pdf: PdfDoc) -> tuple[ExportBundle, PdfDoc]:
    """A run with three evidence items: S001 verified and confirmed by a human, S002 verified
    but overridden to unsupported by alice (with a note), S003 rejected by the verifier and
    never reviewed. The answer cites S001 and S002, one sentence each."""
    run_id = "run-1"
    e1, e2, e3 = (evidence(sample_pdf, "REQ-S001", Q1), evidence(sample_pdf, "REQ-S002", Q2),
                  evidence(sample_pdf, "REQ-S003", Q3))
    statuses = [
        status(run_id, e1, True, human="supported", reviewer="bob", note="exact wording"),
        status(run_id, e2, True, human="unsupported", reviewer="alice", note="talks about storage, not transit"),
        status(run_id, e3, False, reason="does_not_address_question"),
    ]
    answer = Answer(
        final_answer="Access is limited to authorized users and devices [REQ-S001]. "
                     "Mobile devices must encrypt CUI at rest [REQ-S002].",
        sentences=[SentenceSupport(text="Access is limited to authorized users and devices [REQ-S001].",
                                   citations=["REQ-S001"], supported=True),
                   SentenceSupport(text="Mobile devices must encrypt CUI at rest [REQ-S002].",
                                   citations=["REQ-S002"], supported=True)],
        grounding_confidence="medium", support_ratio=1.0,
    )
    run = Run(run_id=run_id, question="What must organizations do to protect CUI on mobile devices?",
              document_ids=[sample_pdf.document.id], evidence=[e1, e2, e3],
              verifications=[s.verification for s in statuses], answer=answer)
    history = [
        ReviewEvent(id=1, run_id=run_id, requirement_id="REQ-S001", label="supported", reviewer="bob",
                    note="exact wording", timestamp=datetime(2026, 11, 22, 11, 0, tzinfo=UTC),
                    verifier_verdict="supported"),
        ReviewEvent(id=2, run_id=run_id, requirement_id="REQ-S002", label="unsupported", reviewer="alice",
                    note="talks about storage, not transit", timestamp=datetime(2026, 11, 22, 12, 0, tzinfo=UTC),
                    verifier_verdict="supported"),
    ]
    return make_bundle([sample_pdf], [RunBundle(run=run, statuses=statuses, history=history)]), sample_pdf


@pytest.fixture
def passing(sample_pdf: PdfDoc) -> tuple[ExportBundle, PdfDoc]:
    """A run whose one sentence cites verified, human-confirmed evidence: the gate lets it through."""
    run_id = "run-ok"
    e1 = evidence(sample_pdf, "REQ-S001", Q1)
    st = status(run_id, e1, True, human="supported", reviewer="bob")
    answer = Answer(final_answer="Access is limited to authorized users and devices [REQ-S001].",
                    sentences=[SentenceSupport(text="Access is limited to authorized users and devices [REQ-S001].",
                                               citations=["REQ-S001"], supported=True)],
                    grounding_confidence="high", support_ratio=1.0)
    run = Run(run_id=run_id, question="Who may access the system?", document_ids=[sample_pdf.document.id],
              evidence=[e1], verifications=[st.verification], answer=answer)
    return make_bundle([sample_pdf], [RunBundle(run=run, statuses=[st])]), sample_pdf
