"""Page images: the one place outside extraction that draws PDF pages with PyMuPDF, so the
viewer (workbench/ui/viewer) caches and serves images without touching the PDF library."""

from __future__ import annotations

import pymupdf


class PageImages:
    """An open PDF that renders its pages. Not thread-safe: callers serialise use per document."""

    def __init__(self, data: bytes):
        self._doc = pymupdf.open(stream=data, filetype="pdf")

    @property
    def page_count(self) -> int:
        return self._doc.page_count

    def page_sizes(self) -> list[tuple[float, float]]:
        """(width, height) in points of each page's cropbox, the frame of Span.rects."""
        return [(round(p.rect.width, 2), round(p.rect.height, 2)) for p in self._doc]

    def jpeg(self, page: int, zoom: float, quality: int = 82) -> bytes:
        """JPEG of a 1-based page. Raises IndexError for a page out of range."""
        if not 1 <= page <= self._doc.page_count:
            raise IndexError(f"page {page} is outside 1..{self._doc.page_count}")
        pix = self._doc[page - 1].get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
        return pix.tobytes("jpeg", jpg_quality=quality)
