"""Small pieces several formats share: the flat evidence row, document naming, dates, authors."""

from __future__ import annotations

import re
from typing import Any

from workbench.export.bundle import ExportBundle, RunBundle
from workbench.models import CellCitation, Document, EvidenceStatus, Span
from workbench.text.ranges import page_ranges

_DATE = re.compile(r"(\d{4})(?:-?(\d{2}))?(?:-?(\d{2}))?")


def evidence_row(rb: RunBundle, st: EvidenceStatus, bundle: ExportBundle) -> dict[str, Any]:
    """One evidence item with both verdicts and the one that counts (CSV columns, JSONL base)."""
    ev, sp, v = st.evidence, st.evidence.span, st.verification
    doc = bundle.document(ev.document_id)
    return {
        "run_id": rb.run.run_id,
        "requirement_id": ev.requirement_id,
        "document_id": ev.document_id,
        "document": doc.filename if doc else "",
        "source_type": ev.source_type,
        "section_heading": ev.section_heading or "",
        "page": sp.page if sp else None,
        "page_label": (sp.page_label or "") if sp else "",
        "pages": " ".join(str(p) for p in sp.pages) if sp else "",
        "quote": ev.exact_quote,
        "start": sp.start if sp else None,
        "end": sp.end if sp else None,
        "text_sha256": sp.text_sha256 if sp else "",
        "read_by_ocr": bool(sp and sp.read_by_ocr),
        "ocr_confidence": sp.ocr_confidence if sp else None,
        "ocr_min_confidence": sp.ocr_min_confidence if sp else None,
        "verifier_verdict": st.verifier_verdict,
        "rejection_reason": (v.rejection_reason or "") if v else "",
        "verification_rationale": v.verification_rationale if v else "",
        "verifier_score": v.score if v else None,
        "human_label": st.human_label or "",
        "reviewer": st.reviewer or "",
        "note": st.note or "",
        "reviewed_at": st.reviewed_at.isoformat() if st.reviewed_at else "",
        "final_status": st.final_status,
        "human_added": st.human_added,  # a reviewer added it: a positive the pipeline missed
    }


def ocr_note(span: Span | CellCitation | None) -> str:
    """"read by OCR, confidence 0.87, lowest word 0.41" for a quote OCR read (issue 42), "" for
    one in the PDF's own text layer: the quote is what the machine read, and a reader of any
    export must know that and how sure it was before relying on the wording."""
    if span is None or span.ocr_confidence is None:
        return ""
    low = span.ocr_min_confidence
    return f"read by OCR, confidence {span.ocr_confidence:.2f}" + (f", lowest word {low:.2f}" if low is not None else "")


def ocr_pages_note(doc: Document | None) -> str:
    """"pages 1-2 read by OCR (tesseract 5.3.0, eng), confidence 0.87" for a document some of
    whose pages OCR read; "" when its text is all its own."""
    o = doc.ocr_pages if doc else []
    if not o:
        return ""
    words = sum(p.words for p in o)
    mean = sum(p.mean_confidence * p.words for p in o) / words if words else 0.0
    return (f"page{'s' if len(o) > 1 else ''} {page_ranges([p.page for p in o])} read by OCR "
            f"({o[0].engine}, {o[0].languages}), confidence {mean:.2f}")


def doc_title(doc: Document | None, document_id: str = "") -> str:
    if doc is None:
        return document_id[:12]
    return (doc.title or "").strip() or doc.filename


def date_parts(value: str | None) -> list[int]:
    """[year, month, day] as far as the metadata says; [] when it says nothing usable."""
    m = _DATE.match((value or "").strip().removeprefix("D:"))
    if not m:
        return []
    return [int(g) for g in m.groups() if g]


def authors(value: str | None) -> list[str]:
    """PDF /Author often holds several names: split on ';', '&' and ' and '."""
    if not value or not value.strip():
        return []
    parts = re.split(r"\s*;\s*|\s+&\s+|\s+and\s+", value.strip())
    return [p.strip() for p in parts if p.strip()]


def citation_numbers(bundle: ExportBundle) -> dict[tuple[str, str], int]:
    """(run_id, requirement_id) → the number readers see: order of first citation in the answers,
    then the uncited evidence, so numbers are stable for a given bundle."""
    from workbench.export.gate import answer_sentences

    numbers: dict[tuple[str, str], int] = {}
    for rb in bundle.runs:
        for sent in answer_sentences(rb):
            for c in sent.citations:
                if rb.status_for(c) is not None:
                    numbers.setdefault((rb.run.run_id, c), len(numbers) + 1)
        for st in rb.statuses:
            numbers.setdefault((rb.run.run_id, st.evidence.requirement_id), len(numbers) + 1)
    return numbers
