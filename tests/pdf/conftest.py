"""PDF-layer fixtures: PDFs with a Unicode font (ligatures, curly quotes, dashes survive into the
text layer, which the base-14 fonts of make_pdf cannot do) and optional running headers/footers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture
def make_unicode_pdf(tmp_path: Path) -> Callable[..., Path]:
    """make_unicode_pdf(["page one", ...], header="ACME", footer="Page {n}") -> path."""
    import pymupdf

    def _make(pages: list[str], name: str = "uni.pdf", header: str | None = None, footer: str | None = None,
              fontsize: float = 11) -> Path:
        doc = pymupdf.open()
        font = pymupdf.Font("cjk").buffer  # bundled with PyMuPDF: has ﬁ, “ ”, – glyphs
        for n, text in enumerate(pages, start=1):
            page = doc.new_page(width=612, height=792)
            page.insert_font(fontname="F0", fontbuffer=font)
            if header:
                page.insert_text((72, 40), header.format(n=n), fontsize=9, fontname="F0")
            page.insert_textbox(pymupdf.Rect(72, 72, 540, 720), text, fontsize=fontsize, fontname="F0")
            if footer:
                page.insert_text((280, 770), footer.format(n=n), fontsize=9, fontname="F0")
        path = tmp_path / name
        doc.save(path)
        doc.close()
        return path

    return _make


@pytest.fixture(scope="session")
def manifest(corpus: Path) -> list[dict[str, str]]:
    import csv

    with open(corpus / "pdfs" / "MANIFEST.tsv", newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def words_under(pdf: Path, rects: list, password: str | None = None) -> str:
    """The words whose centre lies inside a rect (±1 pt), as a reader of the highlight sees them."""
    import pymupdf

    doc = pymupdf.open(pdf)
    if password:
        doc.authenticate(password)
    out: list[str] = []
    for page in sorted({r[0] for r in rects}):
        boxes = [r[1:] for r in rects if r[0] == page]
        for w in doc[page - 1].get_text("words", sort=True):
            cx, cy = (w[0] + w[2]) / 2, (w[1] + w[3]) / 2
            if any(x0 - 1 <= cx <= x1 + 1 and y0 - 1 <= cy <= y1 + 1 for x0, y0, x1, y1 in boxes):
                out.append(w[4])
    doc.close()
    return " ".join(out)
