"""Annotated PDF: the source PDF with one highlight annotation per evidence item per page it
covers, coloured by final status, its popup text carrying the ID, both verdicts and the note.
Pages are left as they are (no cover page) so page references in other exports stay true.
All active content is removed (workbench.pdf.active.strip): actions on open, every link that leaves
the document (URI, GoToR, Launch, ImportData, SubmitForm, ...), JavaScript, XFA, multimedia,
embedded files and attachments: the copy is meant to be opened by others, in readers that might
run them or reach out over the network.

Several documents → a zip holding one annotated PDF per document; all runs' evidence on a
document goes into that document's PDF. The same item cited by several runs is highlighted
once, its popup listing each run's status (amber when the runs disagree).

A scanned page that OCR read (issue 42) gets the words OCR read as an invisible text layer
(workbench.pdf.text_layer), so the copy is searchable and its text can be selected and copied;
a quote read by OCR says so in its popup. Pages with a text layer of their own are left as they are."""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass, field

from workbench.export.bundle import ExportBundle, OcrWords
from workbench.export.common import ocr_note
from workbench.models import EvidenceStatus, Span
from workbench.pdf import active
from workbench.pdf.mupdf import mupdf
from workbench.pdf.text_layer import add_text_layer

COLOURS = {"supported": (0.35, 0.85, 0.35), "unsupported": (1.0, 0.45, 0.45), "mixed": (1.0, 0.78, 0.2)}


@dataclass
class _Item:
    requirement_id: str
    span: Span
    statuses: list[tuple[str, EvidenceStatus]] = field(default_factory=list)  # (run_id, status)

    @property
    def colour_key(self) -> str:
        finals = {st.final_status for _, st in self.statuses}
        return finals.pop() if len(finals) == 1 else "mixed"

    def content(self) -> str:
        lines = [self.requirement_id]
        if self.span.read_by_ocr:
            lines.append(ocr_note(self.span))
        many = len(self.statuses) > 1
        for run_id, st in self.statuses:
            v = st.verification
            reason = f" ({v.rejection_reason})" if v and v.rejection_reason else ""
            prefix = f"[run {run_id}] " if many else ""
            lines.append(f"{prefix}final: {st.final_status}")
            lines.append(f"{prefix}verifier: {st.verifier_verdict}{reason}")
            if st.human_label:
                lines.append(f"{prefix}human: {st.human_label}" + (f" by {st.reviewer}" if st.reviewer else ""))
            else:
                lines.append(f"{prefix}human: not reviewed")
            if st.note:
                lines.append(f"{prefix}note: {st.note}")
        return "\n".join(lines)


def _items_by_document(bundle: ExportBundle) -> dict[str, list[_Item]]:
    docs: dict[str, dict[tuple, _Item]] = {}
    for rb in bundle.runs:
        for st in rb.statuses:
            sp = st.evidence.span
            if sp is None or not sp.rects:
                continue  # not anchored: nothing to highlight (listed in the other formats)
            key = (st.evidence.requirement_id, sp.start, sp.end)
            item = docs.setdefault(sp.document_id, {}).setdefault(key, _Item(st.evidence.requirement_id, sp))
            item.statuses.append((rb.run.run_id, st))
    return {d: list(items.values()) for d, items in docs.items()}


def annotate(pdf: bytes, items: list[_Item], ocr_layer: OcrWords | None = None) -> bytes:
    """Return a copy of `pdf` with the items highlighted, its active content removed and the
    words of `ocr_layer` (page → words OCR read) written invisibly on their pages."""
    pymupdf = mupdf()
    doc = pymupdf.open(stream=pdf, filetype="pdf")
    try:
        active.strip(doc)
        for page_no, words in sorted((ocr_layer or {}).items()):
            if 1 <= page_no <= doc.page_count:
                add_text_layer(doc[page_no - 1], words)
        for item in items:
            by_page: dict[int, list[pymupdf.Rect]] = {}
            for page_no, x0, y0, x1, y1 in item.span.rects:
                by_page.setdefault(int(page_no), []).append(pymupdf.Rect(x0, y0, x1, y1))
            for page_no, rects in sorted(by_page.items()):
                if not 1 <= page_no <= doc.page_count:
                    continue
                page = doc[page_no - 1]  # a bound page: add_highlight_annot needs it
                # Word boxes and annotation quads share the unrotated page space: no derotation.
                annot = page.add_highlight_annot(rects)
                if annot is None:
                    continue
                annot.set_colors(stroke=COLOURS[item.colour_key])
                annot.set_info(title=item.requirement_id, subject=f"Evidence {item.colour_key}",
                               content=item.content())
                annot.update(opacity=0.45)
        return doc.tobytes(garbage=1, deflate=True)
    finally:
        doc.close()


def _safe_name(name: str) -> str:
    stem = re.sub(r"\.pdf$", "", name, flags=re.I)
    return re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("._") or "document"


def to_annotated_pdf(bundle: ExportBundle) -> tuple[bytes, str]:
    """(bytes, media type): a PDF for one document, a zip of PDFs for several."""
    by_doc = _items_by_document(bundle)
    doc_ids = bundle.cited_document_ids() or [d for rb in bundle.runs for d in rb.run.document_ids][:1]
    if len(doc_ids) == 1:
        return annotate(bundle.pdf(doc_ids[0]), by_doc.get(doc_ids[0], []), bundle.ocr_layer(doc_ids[0])), \
            "application/pdf"
    buf = io.BytesIO()
    used: set[str] = set()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for doc_id in doc_ids:
            doc = bundle.document(doc_id)
            name = f"{_safe_name(doc.filename if doc else doc_id[:12])}.annotated.pdf"
            if name in used:
                name = name.replace(".annotated.pdf", f"-{doc_id[:8]}.annotated.pdf")
            used.add(name)
            zf.writestr(name, annotate(bundle.pdf(doc_id), by_doc.get(doc_id, []), bundle.ocr_layer(doc_id)))
    return buf.getvalue(), "application/zip"
