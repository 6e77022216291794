"""The app's page URLs (/review, /answer, …) served as Streamlit's own index.html plus one inline
script that tells Streamlit's frontend where the server is.

Why: opened at /review, Streamlit's frontend guesses the server's base path from the URL. It asks
/review/_stcore/health first, gets a 404, waits 100 ms and only then asks /_stcore/health. A deep
link (/review?run=…&evidence=…) is a full page load, and that guess was ≈0.12 s of it. The script
names the base (the URL less its last segment: the page's own path), so the first probe is the
right one. It carries no data, only what the browser already knows (its location); any other
path still gets Streamlit's own index.html."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import streamlit
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


def routes() -> list[Route]:
    """A route per page path when this Streamlit's index.html could be amended, else none."""
    if index_html() is None:
        return []
    return [Route(path, _index, methods=["GET", "HEAD"]) for path in page_paths()]
