"""Page images for the viewer, rendered once per (document SHA-256, page, zoom).

Rendering is the expensive part of showing a 352-page book, so it happens on demand (the
browser asks for the pages near the viewport), is cached in an LRU, and concurrent
requests for the same image wait for one render instead of repeating it. Every image is capped
at Settings.render_max_pixels: the zoom is scaled down to fit (workbench.pdf.render)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from workbench.config import default
from workbench.pdf.render import PageImages, capped_zoom

ZOOMS = (1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 3.0)


def snap_zoom(z: float) -> float:
    """Clamp a requested zoom to a few steps so the cache is shared between clients."""
    return min(ZOOMS, key=lambda s: abs(s - z))


class PageRenderer:
    """Renders pages of stored PDFs as JPEG, keyed by document id (= SHA-256 of the bytes)."""

    def __init__(self, load_pdf: Callable[[str], bytes], max_images: int = 192, max_docs: int = 4,
                 max_pixels: int = default("render_max_pixels")):
        self.max_pixels = max_pixels
        self._load_pdf = load_pdf
        self._paths: dict[str, Path] = {}
        self._docs: OrderedDict[str, tuple[PageImages, threading.Lock]] = OrderedDict()
        self._images: OrderedDict[tuple[str, int, float], bytes] = OrderedDict()
        self._inflight: dict[tuple[str, int, float], threading.Event] = {}
        self._lock = threading.Lock()
        self._sizes: dict[str, list[tuple[float, float]]] = {}
        self.max_images = max_images
        self.max_docs = max_docs
        self.renders = 0  # how many times a page was actually rendered (tests, bench)

    def register_file(self, document_id: str, path: str | Path) -> None:
        """Serve a PDF from a path instead of the workspace (the viewer benchmark)."""
        self._paths[document_id] = Path(path)

    def _doc(self, document_id: str) -> tuple[PageImages, threading.Lock]:
        with self._lock:
            if document_id in self._docs:
                self._docs.move_to_end(document_id)
                return self._docs[document_id]
        path = self._paths.get(document_id)
        data = path.read_bytes() if path else self._load_pdf(document_id)
        entry = (PageImages(data, self.max_pixels), threading.Lock())
        with self._lock:
            self._docs[document_id] = entry
            while len(self._docs) > self.max_docs:
                self._docs.popitem(last=False)
        return entry

    def page_sizes(self, document_id: str) -> list[tuple[float, float]]:
        """(width, height) in points of each page's cropbox: the viewer's placeholders and
        the frame of Span.rects. A document not open for drawing is opened to measure and let go,
        so measuring a run's documents does not push the ones being drawn out of the cache."""
        if document_id not in self._sizes:
            with self._lock:
                entry = self._docs.get(document_id)
            if entry is None:  # only measured (a viewer's other documents): not kept open
                path = self._paths.get(document_id)
                data = path.read_bytes() if path else self._load_pdf(document_id)
                self._sizes[document_id] = PageImages(data, self.max_pixels).page_sizes()
            else:
                doc, lock = entry
                with lock:
                    self._sizes[document_id] = doc.page_sizes()
        return self._sizes[document_id]

    def zoom_for(self, document_id: str, page: int, zoom: float) -> float:
        """The zoom a page is drawn at when `zoom` is asked for: snapped to a step, then scaled
        down to the pixel cap. Raises IndexError for a page out of range."""
        sizes = self.page_sizes(document_id)
        if not 1 <= page <= len(sizes):
            raise IndexError(f"page {page} is outside 1..{len(sizes)}")
        w, h = sizes[page - 1]
        return capped_zoom(w, h, snap_zoom(zoom), self.max_pixels)

    def render(self, document_id: str, page: int, zoom: float) -> bytes:
        """JPEG of a 1-based page at a snapped zoom, within the pixel cap. Raises IndexError for a
        page out of range, workbench.errors.RenderError when MuPDF cannot draw it."""
        key = (document_id, page, self.zoom_for(document_id, page, zoom))
        while True:
            with self._lock:
                if key in self._images:
                    self._images.move_to_end(key)
                    return self._images[key]
                wait = self._inflight.get(key)
                if wait is None:
                    self._inflight[key] = threading.Event()
                    break
            wait.wait(30)
        try:
            doc, lock = self._doc(document_id)
            with lock:
                img = doc.jpeg(page, key[2])
                self.renders += 1
            with self._lock:
                self._images[key] = img
                while len(self._images) > self.max_images:
                    self._images.popitem(last=False)
            return img
        finally:
            with self._lock:
                self._inflight.pop(key).set()


_renderer: PageRenderer | None = None
_renderer_lock = threading.Lock()


def get_renderer() -> PageRenderer:
    """The process-wide renderer, reading PDFs through the service."""
    global _renderer
    with _renderer_lock:
        if _renderer is None:
            from workbench.ui.workspace import shared_workbench

            _renderer = PageRenderer(lambda doc_id: shared_workbench().pdf_bytes(doc_id),
                                     max_pixels=shared_workbench().settings.render_max_pixels)
        return _renderer
