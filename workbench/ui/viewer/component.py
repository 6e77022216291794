"""The viewer as a Streamlit components-v2 element: pages rendered on demand by the server
(see routes.py), highlight boxes drawn from Span.rects, the target scrolled into view.

Each highlight carries data-evidence-id and data-page so tests and automation can find it."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import streamlit as st
from pydantic import BaseModel, Field

from workbench.models import Evidence, PageRect
from workbench.ui import state
from workbench.ui.viewer.access import viewer_links
from workbench.ui.viewer.render import get_renderer
from workbench.ui.viewer.routes import PAGE_ROUTE, WORDS_ROUTE

if TYPE_CHECKING:
    from workbench.service import Workbench

_HERE = Path(__file__).parent
_component = st.components.v2.component(
    "evidence_workbench.pdf_viewer",
    html=(
        '<div class="wbv">'
        '<div class="wbv-cap" aria-live="polite"><span class="wbv-docname"></span><span class="wbv-where"></span></div>'
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
        '<button data-act="ocr" class="wbv-ocr" aria-pressed="false" hidden title="Show the text OCR read on '
        'the scanned pages, over each word\'s box; words it was unsure of are marked">OCR text</button>'
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
    # A document's pages are shown: grid rows and chips reach the viewer first ("wb:evidence"),
    # so the grid's own report of a selection is an echo, possibly of an older one.
    takes_selection: bool = False


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


def highlights_for(items: Iterable[tuple[str, list[PageRect]]], document_id: str | None = None) -> list[dict]:
    """Flatten (evidence id, rects) pairs to the boxes the viewer draws; with `document_id`,
    each box names its document (a viewer given several documents draws each on its own)."""
    out = []
    for ev_id, rects in items:
        for page, x0, y0, x1, y1 in rects:
            box = {"id": ev_id, "page": int(page), "x0": x0, "y0": y0, "x1": x1, "y1": y1}
            if document_id:
                box["doc"] = document_id
            out.append(box)
    return out


def evidence_highlights(evidence: Iterable[Evidence]) -> list[dict]:
    """The boxes of every anchored item, each naming its document: what a viewer needs to jump
    to any of them, in any document of the run, without asking the app."""
    out: list[dict] = []
    for e in evidence:
        if e.span:
            out += highlights_for([(e.requirement_id, e.span.rects)], e.document_id)
    return out


class ViewerDocument(BaseModel):
    """A document the viewer can show without a rerun: its id, the name it shows in the toolbar,
    each page's printed label and the pages OCR read (the viewer offers their OCR text layer)."""

    id: str
    name: str = ""
    labels: list[str] = Field(default_factory=list)
    ocr_pages: list[int] = Field(default_factory=list)  # 1-based


# document id (its bytes' SHA-256) -> (page labels, pages read by OCR)
_LABELS: OrderedDict[str, tuple[list[str], list[int]]] = OrderedDict()
_LABELS_MAX = 256


def _page_info(wb: Workbench, doc_id: str) -> tuple[list[str], list[int]]:
    """A document's printed page labels and the pages OCR read, remembered: a run's every
    document is named on each of the page's runs, and reading them from the parse cache would
    churn it for a run over many."""
    if doc_id in _LABELS:
        return _LABELS[doc_id]
    try:
        labels = wb.page_labels(doc_id)
    except Exception:  # noqa: BLE001 - labels are an extra; the page numbers still work
        return [], []
    try:
        ocr = [o.page for o in wb.document(doc_id).ocr_pages if o.words]
    except Exception:  # noqa: BLE001 - the toggle is an extra too; the pages still show
        ocr = []
    _LABELS[doc_id] = (labels, ocr)
    while len(_LABELS) > _LABELS_MAX:
        _LABELS.popitem(last=False)
    return labels, ocr


def viewer_documents(wb: Workbench, document_ids: Iterable[str],
                     names: dict[str, str] | None = None) -> list[ViewerDocument]:
    """ViewerDocuments for these ids (in order, once each), named by `names` (else the stored
    file name), with their page labels (a document whose labels cannot be read gets page
    numbers only)."""
    if names is None:
        names = {d.id: d.filename for d in wb.documents()}
    out = []
    for doc_id in dict.fromkeys(document_ids):
        labels, ocr = _page_info(wb, doc_id)
        out.append(ViewerDocument(id=doc_id, name=names.get(doc_id, doc_id[:12]), labels=labels, ocr_pages=ocr))
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
    documents: list[ViewerDocument] | None = None,
    cites: dict[str, str] | None = None,
    hint: str = "",
    ocr_low: float,
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
    offsets into the document's text).

    `documents`: every document the viewer may switch to in the browser (a run over several):
    a J/K, grid row or chip naming an item of another one shows that document's page at once;
    `highlights` then carry each box's document (evidence_highlights). Each gets its own signed
    link, as the shown one does: only documents the page could show anyway.

    The caption above the toolbar names what is shown: the document, the target and where it is
    (`cites`: evidence id -> its citation, "p. 8"), then `hint`. The viewer writes it (as text)
    whenever its target moves, so it follows a J/K, row or chip at once, not one run later.

    A document with pages read by OCR (ViewerDocument.ocr_pages) gets an "OCR text" toggle in
    the toolbar: on, those pages' text layer is drawn visibly over each word's box, and words read
    with confidence below `ocr_low` (pages pass Settings.ocr_low_confidence) are marked, their
    confidence in a tooltip. Selection and "Add as evidence" are the same either way."""
    renderer = get_renderer()
    # Signed in: the routes serve a document's pages only with a link minted for this session.
    ident = state.identity()
    links = viewer_links()
    # Expiry counted from the current minute: reruns within it send the same links.
    now = time.time() // 60 * 60
    shown = ViewerDocument(id=document_id, labels=labels or []) if document_id else None
    docs: dict[str, dict] = {}
    for d in ([shown] if shown else []) + list(documents or []):
        if d.id in docs:  # the shown one, named again in `documents`
            docs[d.id]["name"] = docs[d.id]["name"] or d.name
            docs[d.id]["labels"] = docs[d.id]["labels"] or d.labels
            docs[d.id]["ocr"] = docs[d.id]["ocr"] or d.ocr_pages
            continue
        docs[d.id] = {"sizes": renderer.page_sizes(d.id), "labels": d.labels, "name": d.name,
                      "link": links.mint(ident, d.id, now=now) if ident else "", "ocr": d.ocr_pages}
    current = docs.get(document_id) if document_id else None
    data = {
        "document_id": document_id,
        "documents": docs,
        "sizes": current["sizes"] if current else [],
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
        "link_ttl_s": links.ttl_s if ident and docs else 0,
        "order": order or [],
        "keys": keys,
        "ack": st.session_state.get(_ack_key(key), 0),
        "cites": cites or {},
        "hint": hint,
        "ocr_low": ocr_low,
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
    return ViewerEvents(select if isinstance(select, str) else None, add if isinstance(add, dict) else None,
                        takes_selection=bool(current and current["sizes"]))
