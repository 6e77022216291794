"""The viewer as a Streamlit components-v2 element: pages rendered on demand by the server
(see routes.py), highlight boxes drawn from Span.rects, the target scrolled into view.

Each highlight carries data-evidence-id and data-page so tests and automation can find it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import streamlit as st

from workbench.models import PageRect
from workbench.ui.viewer.render import get_renderer
from workbench.ui.viewer.routes import PAGE_ROUTE

_HERE = Path(__file__).parent
_component = st.components.v2.component(
    "evidence_workbench.pdf_viewer",
    html='<div class="wbv-scroll" tabindex="0"></div>',
    css=(_HERE / "viewer.css").read_text(),
    js=(_HERE / "viewer.js").read_text(),
    isolate_styles=True,
)


def highlights_for(items: Iterable[tuple[str, list[PageRect]]]) -> list[dict]:
    """Flatten (evidence id, rects) pairs to the boxes the viewer draws."""
    out = []
    for ev_id, rects in items:
        for page, x0, y0, x1, y1 in rects:
            out.append({"id": ev_id, "page": int(page), "x0": x0, "y0": y0, "x1": x1, "y1": y1})
    return out


def pdf_viewer(
    document_id: str | None,
    highlights: list[dict],
    *,
    target: str | None = None,
    page: int | None = None,
    scroll_token: int = 0,
    height: int = 760,
    key: str = "pdf_viewer",
    on_select: Callable[[], None] | None = None,
    empty_message: str = "Select an evidence item to see its page.",
) -> str | None:
    """Mount the viewer. Returns the evidence id of a highlight the user clicked (this run only)."""
    renderer = get_renderer()
    sizes = renderer.page_sizes(document_id) if document_id else []
    data = {
        "document_id": document_id,
        "sizes": sizes,
        "highlights": highlights,
        "target": target,
        "page": page,
        "scroll_token": scroll_token,
        "height": height,
        "base": PAGE_ROUTE,
        "max_pixels": renderer.max_pixels,
        "empty": empty_message,
    }
    result = _component(key=key, data=data, on_select_change=on_select or (lambda: None))
    return getattr(result, "select", None)
