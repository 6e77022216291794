"""The viewer as a Streamlit components-v2 element: pages rendered on demand by the server
(see routes.py), highlight boxes drawn from Span.rects, the target scrolled into view.

Each highlight carries data-evidence-id and data-page so tests and automation can find it."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

import streamlit as st

from workbench.models import PageRect
from workbench.ui import state
from workbench.ui.viewer.access import viewer_links
from workbench.ui.viewer.render import get_renderer
from workbench.ui.viewer.routes import PAGE_ROUTE, WORDS_ROUTE

_HERE = Path(__file__).parent
_component = st.components.v2.component(
    "evidence_workbench.pdf_viewer",
    html=(
        '<div class="wbv">'
        '<div class="wbv-bar" role="toolbar" aria-label="Viewer">'
        '<button data-act="prev" title="Previous page (←)" aria-label="Previous page">‹</button>'
        '<input class="wbv-pageno" aria-label="Go to page" title="Type a page number or a '
        'printed page label, then Enter (g)"><span class="wbv-of"></span>'
        '<button data-act="next" title="Next page (→)" aria-label="Next page">›</button>'
        '<span class="wbv-label"></span><span class="wbv-sp"></span>'
        '<button data-act="out" title="Zoom out (−, Ctrl+wheel)" aria-label="Zoom out">−</button>'
        '<span class="wbv-zoom" aria-live="polite"></span>'
        '<button data-act="in" title="Zoom in (+, Ctrl+wheel)" aria-label="Zoom in">+</button>'
        '<button data-act="width" title="Fit width (0)">Fit width</button>'
        '<button data-act="page" title="Fit page">Fit page</button>'
        '</div>'
        '<div class="wbv-msg" role="status" hidden></div>'
        '<div class="wbv-scroll" tabindex="0" aria-label="PDF pages"></div>'
        '<button class="wbv-add" hidden>Add as evidence</button>'
        '</div>'
    ),
    css=(_HERE / "viewer.css").read_text(),
    js=(_HERE / "viewer.js").read_text(),
    isolate_styles=True,
)


class ViewerEvents(NamedTuple):
    select: str | None  # the evidence id the viewer last chose (a highlight, J/K, a grid row, a chip)
    add: dict | None  # a text selection the reviewer chose to add as evidence


def _ack_key(key: str) -> str:
    return f"{key}__ack"


def _selected(key: str) -> str | None:
    """The evidence id the viewer reported ({id, seq}, its state value), remembering its seq: the
    next data says the app has seen it, so the viewer stops guarding its own newer target."""
    raw = getattr(st.session_state.get(key), "select", None)
    if isinstance(raw, dict):
        seq = raw.get("seq")
        if isinstance(seq, int):
            st.session_state[_ack_key(key)] = max(seq, st.session_state.get(_ack_key(key), 0))
        raw = raw.get("id")
    return raw if isinstance(raw, str) else None


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
    height: int | None = 760,
    fill_offset: int = 150,
    labels: list[str] | None = None,
    selectable: bool = False,
    key: str = "pdf_viewer",
    on_select: Callable[[str], None] | None = None,
    empty_message: str = "Select an evidence item to see its page.",
    order: list[str] | None = None,
    keys: bool = False,
) -> ViewerEvents:
    """Mount the viewer. `height=None` fills the window's height less `fill_offset` px.
    `labels`: each page's printed label (shown beside the page number; the page box accepts
    them). `selectable`: offer "Add as evidence" for a text selection.

    The viewer moves its target itself, at once, on a highlight click, on a `wb:evidence` event
    (grid rows, citation chips: see workbench/ui/selection.py) and, with `keys`, on J/K through
    `order` (evidence ids in the page's order); then it reports the id. `on_select(id)` runs
    before the page's script (a callback), so the page renders the new selection in one run.

    Returns this run's events: the evidence id of a highlight the user clicked, and a text
    selection to add as evidence ({start, end, page, text, document_id}: exact character
    offsets into the document's text)."""
    renderer = get_renderer()
    sizes = renderer.page_sizes(document_id) if document_id else []
    # Signed in: the routes serve this document's pages only with a link minted for this session.
    ident = state.identity()
    links = viewer_links()
    # Expiry counted from the current minute: reruns within it send the same link.
    link = links.mint(ident, document_id, now=time.time() // 60 * 60) if ident and document_id else ""
    data = {
        "document_id": document_id,
        "sizes": sizes,
        "labels": labels or [],
        "highlights": highlights,
        "target": target,
        "page": page,
        "scroll_token": scroll_token,
        "height": height,
        "fill_offset": fill_offset,
        "base": PAGE_ROUTE,
        "max_pixels": renderer.max_pixels,
        "words_base": WORDS_ROUTE,
        "selectable": selectable,
        "empty": empty_message,
        "link": link,
        "link_ttl_s": links.ttl_s if link else 0,
        "order": order or [],
        "keys": keys,
        "ack": st.session_state.get(_ack_key(key), 0),
    }
    # `stale`: the viewer's link ran out (a reviewer idle past its expiry); the rerun this
    # trigger causes mints a fresh one.
    def selected() -> None:
        ev_id = _selected(key)
        if ev_id and on_select:
            on_select(ev_id)

    result = _component(key=key, data=data, on_select_change=selected,
                        on_add_change=lambda: None, on_stale_change=lambda: None)
    add = getattr(result, "add", None)
    raw = getattr(result, "select", None)
    select = raw.get("id") if isinstance(raw, dict) else raw
    return ViewerEvents(select if isinstance(select, str) else None, add if isinstance(add, dict) else None)
