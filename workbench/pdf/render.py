"""Page images for viewers, optionally with highlight boxes drawn on."""

from __future__ import annotations

from typing import Literal

import pymupdf

from workbench.models import PageRect
from workbench.pdf.opening import open_bytes


def render_page(pdf_bytes: bytes, page: int, *, zoom: float = 2.0, fmt: Literal["png", "jpeg"] = "png",
                rects: list[PageRect] | None = None, password: str | None = None) -> bytes:
    """PNG/JPEG of a 1-based page; rects on that page are drawn as translucent yellow boxes."""
    opened = open_bytes(pdf_bytes, "document.pdf", password=password)
    doc = opened.doc
    try:
        if not 1 <= page <= doc.page_count:
            raise ValueError(f"page {page} outside 1..{doc.page_count}")
        pg = doc[page - 1]
        mine = [r for r in rects or [] if r[0] == page]
        if mine:
            shape = pg.new_shape()
            for _, x0, y0, x1, y1 in mine:
                shape.draw_rect(pymupdf.Rect(x0, y0, x1, y1) * pg.derotation_matrix)
            shape.finish(color=None, fill=(1, 0.85, 0), fill_opacity=0.35)
            shape.commit()
        pix = pg.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
        return pix.tobytes("jpeg" if fmt == "jpeg" else "png")
    finally:
        doc.close()
