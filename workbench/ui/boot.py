"""The app's page URLs (/review, /answer, …) served as Streamlit's own index.html plus one inline
script that tells Streamlit's frontend where the server is.

Why: opened at /review, Streamlit's frontend guesses the server's base path from the URL. It asks
/review/_stcore/health first, gets a 404, waits 100 ms and only then asks /_stcore/health. A deep
link (/review?run=…&evidence=…) is a full page load, and that guess was ≈0.12 s of it. The script
names the base (the URL less its last segment: the page's own path), so the first probe is the
right one. It carries no data, only what the browser already knows (its location); any other
path still gets Streamlit's own index.html.

A deep link to Review (/review?run=…&evidence=…) may also carry its first paint (viewer/preview.py):
the cited page's image and the quote's boxes as numbers, drawn while Streamlit boots. Only with
sign-in off; with sign-in on the page is the same index.html as every other."""

from __future__ import annotations

import asyncio
from functools import cache
from pathlib import Path

import streamlit
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from workbench.ui import state

# The page's URL less its last segment (/review → /, /wb/review → /wb/ behind a proxy's prefix).
BASE_SCRIPT = ("<script>(function () { var p = location.pathname.replace(/\\/+$/, '');"
               " window.__streamlit = Object.assign({}, window.__streamlit,"
               " { BACKEND_BASE_URL: location.origin + p.slice(0, p.lastIndexOf('/') + 1) }); })();</script>")
_ANCHOR = '<script type="module"'


@cache
def index_html() -> str | None:
    """Streamlit's index.html with the base script before its first module, or None when this
    Streamlit's index.html has no such place (then nothing is overridden)."""
    path = Path(streamlit.__file__).parent / "static" / "index.html"
    try:
        html = path.read_text(encoding="utf-8")
    except OSError:
        return None
    if html.count(_ANCHOR) < 1:
        return None
    return html.replace(_ANCHOR, BASE_SCRIPT + "\n    " + _ANCHOR, 1)


def page_paths() -> list[str]:
    """The URL paths of the app's pages other than the default one (served at /)."""
    pages = [state.PAGE_RUN, state.PAGE_TABLE, state.PAGE_REVIEW, state.PAGE_ANSWER, state.PAGE_CHECK,
             state.PAGE_DASHBOARD, state.PAGE_EXPORT]
    return ["/" + Path(p).stem for p in pages]


async def _index(request: Request) -> HTMLResponse:
    return HTMLResponse(index_html() or "", headers={"Cache-Control": "no-cache"})


# A first paint that is not ready in this time is left out: the page itself must not wait for it
# (a run read for the first time re-checks its PDFs' hashes; the work still warms the caches).
FIRST_PAINT_WAIT_S = 0.25


def _first_paint(run_id: str | None, evidence_id: str | None) -> str:
    from workbench.config import get_settings

    if get_settings().sign_in:  # before touching the workspace at all
        return ""
    from workbench.ui.viewer import preview
    from workbench.ui.viewer.render import get_renderer
    from workbench.ui.workspace import shared_workbench

    paint = preview.first_paint(shared_workbench(), get_renderer(), run_id, evidence_id)
    return preview.html(paint) if paint else ""


async def _review(request: Request) -> HTMLResponse:
    """Review's index.html; for a deep link, with sign-in off, with its first paint."""
    html = index_html() or ""
    run_id, evidence_id = request.query_params.get(state.QP_RUN), request.query_params.get(state.QP_EVIDENCE)
    extra = ""
    if run_id and evidence_id and request.method == "GET":
        try:
            extra = await asyncio.wait_for(run_in_threadpool(_first_paint, run_id, evidence_id), FIRST_PAINT_WAIT_S)
        except Exception:  # noqa: BLE001 - slow or failed: the ordinary page
            extra = ""
    if not extra:
        return HTMLResponse(html, headers={"Cache-Control": "no-cache"})
    return HTMLResponse(html.replace("</body>", extra + "</body>", 1), headers={"Cache-Control": "private, no-store"})


def routes() -> list[Route]:
    """A route per page path when this Streamlit's index.html could be amended, else none."""
    if index_html() is None:
        return []
    review = "/" + Path(state.PAGE_REVIEW).stem
    return [Route(path, _review if path == review else _index, methods=["GET", "HEAD"]) for path in page_paths()]
