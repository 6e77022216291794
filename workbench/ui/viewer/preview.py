"""A deep link's first paint: /review?run=…&evidence=… served with the cited page's image and the
quote's boxes already in Streamlit's index.html, drawn where the viewer will be while Streamlit's
frontend boots (≈0.5–1 s of React drawing the page), and faded out once the real viewer has drawn
its target (viewer.js sends "wb:viewer-shown").

Only with sign-in off, in this process and in the store (Workbench.sign_in_required): there,
whoever reaches the port can open the run anyway. With sign-in on, identity lives only in the
Streamlit session (no cookie), so an HTML response cannot know who asks: the deep link is served
exactly as any other page, with nothing of the run in it.

What goes into the HTML is numbers only: the document's id (its SHA-256, hex), the page number,
page sizes and box coordinates in PDF points. No quote, name or id of the run is written, so no
untrusted text can reach the markup. An unknown run or evidence id, a quote without boxes, a run
whose record has problems: no preview, the ordinary page."""

from __future__ import annotations

import json
import math
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, field_validator

from workbench.text.citations import ID_PATTERN
from workbench.ui.viewer.routes import PAGE_ROUTE

if TYPE_CHECKING:
    from workbench.service import Workbench
    from workbench.ui.viewer.render import PageRenderer

RUN_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
EVIDENCE_ID = re.compile(ID_PATTERN)
DOC_ID = re.compile(r"[0-9a-f]{64}")
Box = tuple[float, float, float, float]


class FirstPaint(BaseModel):
    """Where the viewer will land, in numbers: the page (1-based) of document `doc`, its size and
    the document's widest page (the viewer fits that width), the heights of the pages above it
    and of all pages (the viewer's scroll position), the target's boxes and the other items'
    boxes on that page, in PDF points."""

    doc: str
    page: int
    pages: int
    w: float
    h: float
    max_w: float
    above: float
    total: float
    max_pixels: int
    target: list[Box]
    others: list[Box]

    @field_validator("doc")
    @classmethod
    def _hex(cls, v: str) -> str:
        if not DOC_ID.fullmatch(v):
            raise ValueError("a document id is 64 hex digits")
        return v

    @field_validator("w", "h", "max_w", "above", "total")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not math.isfinite(v) or v < 0:
            raise ValueError("sizes are finite and not negative")
        return round(v, 2)

    @field_validator("target", "others")
    @classmethod
    def _boxes(cls, v: list[Box]) -> list[Box]:
        if not all(math.isfinite(x) for b in v for x in b):
            raise ValueError("boxes are finite numbers")
        return [tuple(round(x, 2) for x in b) for b in v]


def first_paint(wb: Workbench, renderer: PageRenderer, run_id: str | None, evidence_id: str | None) -> FirstPaint | None:
    """The first paint for this deep link, or None: sign-in on (here or recorded in the store),
    ids that are not ids, an unknown run or item, an item without boxes, a record with problems."""
    if wb.settings.sign_in or not run_id or not evidence_id:
        return None
    if not RUN_ID.fullmatch(run_id) or not EVIDENCE_ID.fullmatch(evidence_id):
        return None
    if wb.sign_in_required():
        return None
    try:
        reviewed = wb.reviewed(run_id)
    except Exception:  # noqa: BLE001 - an unknown or unreadable run: the page says so itself
        return None
    if reviewed.record_problems:  # the page opens with that warning: nothing to paint ahead of it
        return None
    items = [s.evidence for s in reviewed.statuses]
    ev = next((e for e in items if e.requirement_id == evidence_id), None)
    if ev is None or ev.span is None or not ev.span.rects:
        return None
    doc = ev.document_id
    page = ev.span.rects[0][0]
    try:
        sizes = renderer.page_sizes(doc)
    except Exception:  # noqa: BLE001 - the PDF is gone: the page says so itself
        return None
    if not 1 <= page <= len(sizes):
        return None
    others = [(x0, y0, x1, y1) for e in items if e.span and e.document_id == doc and e.requirement_id != evidence_id
              for p, x0, y0, x1, y1 in e.span.rects if p == page]
    return FirstPaint(doc=doc, page=page, pages=len(sizes), w=sizes[page - 1][0], h=sizes[page - 1][1],
                      max_w=max(s[0] for s in sizes), above=sum(s[1] for s in sizes[:page - 1]),
                      total=sum(s[1] for s in sizes), max_pixels=renderer.max_pixels,
                      target=[(x0, y0, x1, y1) for p, x0, y0, x1, y1 in ev.span.rects if p == page], others=others)


@cache
def _script() -> str:
    return (Path(__file__).parent / "preview.js").read_text(encoding="utf-8")


def html(paint: FirstPaint) -> str:
    """The markup that goes before </body>: the numbers as a JSON object (only numbers and the
    hex id, so nothing in it can close the script), then the script that draws them."""
    data = json.dumps({**paint.model_dump(), "base": PAGE_ROUTE}, separators=(",", ":"))
    assert "<" not in data and "&" not in data  # noqa: S101 - numbers and hex only, by the model
    return f"<script>window.__wbFirstPaint={data};</script>\n<script>{_script()}</script>\n"
