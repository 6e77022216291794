"""Page images: the one place outside extraction that draws PDF pages with PyMuPDF, so the
viewer (workbench/ui/viewer) caches and serves images without touching the PDF library.

Every image is capped in pixels (Settings.render_max_pixels, about 25 MP): a page that would be
bigger at the requested zoom is drawn at the largest zoom that fits. A 14,400 × 14,400 pt page
(the biggest PDF allows, in an 800-byte file) would otherwise take 2 GB at zoom 1 and make
MuPDF refuse ("Overly large image") from zoom 1.5 up. What MuPDF still refuses becomes a
RenderError that says so, never a traceback."""

from __future__ import annotations

import math

from workbench.config import default
from workbench.errors import RenderError
from workbench.pdf.mupdf import mupdf

# JPEG's own limit is 65,535 px a side; a long thin page stays well inside it.
MAX_SIDE = 30_000


def capped_zoom(width: float, height: float, zoom: float, max_pixels: int) -> float:
    """The zoom to draw a width × height pt page at: `zoom`, or less so the image has at most
    max_pixels pixels and MAX_SIDE pixels a side."""
    w, h = max(width, 1.0), max(height, 1.0)
    z = math.floor(min(zoom, math.sqrt(max_pixels / (w * h)), MAX_SIDE / max(w, h)) * 10_000) / 10_000
    while z > 0.0001 and math.ceil(w * z) * math.ceil(h * z) > max_pixels:  # MuPDF rounds sizes up
        z = math.floor(z * 0.999 * 10_000) / 10_000
    return z


class PageImages:
    """An open PDF that renders its pages. Not thread-safe: callers serialise use per document."""

    def __init__(self, data: bytes, max_pixels: int = default("render_max_pixels")):
        self.max_pixels = max_pixels
        try:
            self._doc = mupdf().open(stream=data, filetype="pdf")
        except Exception as exc:  # noqa: BLE001 - MuPDF's FzError* family
            raise RenderError(f"the PDF cannot be opened for drawing ({_said(exc)})") from exc

    @property
    def page_count(self) -> int:
        return self._doc.page_count

    def page_sizes(self) -> list[tuple[float, float]]:
        """(width, height) in points of each page's cropbox, the frame of Span.rects."""
        return [(round(p.rect.width, 2), round(p.rect.height, 2)) for p in self._doc]

    def zoom_for(self, page: int, zoom: float) -> float:
        """The zoom a 1-based page is actually drawn at when `zoom` is asked for (see capped_zoom)."""
        self._check(page)
        r = self._doc[page - 1].rect
        return capped_zoom(r.width, r.height, zoom, self.max_pixels)

    def jpeg(self, page: int, zoom: float, quality: int = 82) -> bytes:
        """JPEG of a 1-based page at `zoom`, scaled down to the pixel cap. Raises IndexError for a
        page out of range, RenderError when MuPDF cannot draw it."""
        z = self.zoom_for(page, zoom)
        try:
            pix = self._doc[page - 1].get_pixmap(matrix=mupdf().Matrix(z, z), alpha=False)
            return pix.tobytes("jpeg", jpg_quality=quality)
        except MemoryError as exc:
            raise RenderError(f"page {page} is too big to draw in memory: open it in a PDF reader") from exc
        except Exception as exc:  # noqa: BLE001 - MuPDF's FzError* family (limits, damaged content)
            raise RenderError(f"page {page} cannot be drawn ({_said(exc)}): open it in a PDF reader") from exc

    def _check(self, page: int) -> None:
        if not 1 <= page <= self._doc.page_count:
            raise IndexError(f"page {page} is outside 1..{self._doc.page_count}")


def _said(exc: BaseException) -> str:
    """MuPDF's message on one short line ('code=5: Overly large image' -> 'Overly large image')."""
    msg = " ".join(str(exc).split())
    return (msg.split(": ", 1)[1] if msg.startswith("code=") and ": " in msg else msg)[:120] or type(exc).__name__
