"""The HTTP routes the viewer loads from (mounted by serve.py via st.App): page images, and
each page's words for the selectable text layer (with OCR's per-word confidence on a page it read).

Both serve document content, so with sign-in on each request needs a viewer link the app minted
for a signed-in session (access.py), and the account must still be in the store. Every request
then waits for a render slot (gate.py). Nothing here is cached as public: with sign-in on it is
not stored at all, with sign-in off (one analyst on 127.0.0.1) only by that analyst's browser."""

from __future__ import annotations

import json
import re
import threading

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from workbench.errors import RenderError, WorkbenchError
from workbench.ui.viewer.access import LINK_PARAM, LinkRefused, viewer_links
from workbench.ui.viewer.gate import GateBusy, RenderGate
from workbench.ui.viewer.render import get_renderer

PAGE_ROUTE = "/wbapi/page"
WORDS_ROUTE = "/wbapi/words"
_HEX = re.compile(r"^[0-9a-f]{8,64}$")
_NO_STORE = {"Cache-Control": "private, no-store"}
# Sign-in off: content-addressed, the same URL always yields the same bytes, for this browser only.
_IMMUTABLE = {"Cache-Control": "private, max-age=31536000, immutable"}
# Not immutable: a newer parser may split words differently for the same PDF.
_WORDS = {"Cache-Control": "private, max-age=600"}

_gate: RenderGate | None = None
_gate_lock = threading.Lock()


def _workbench():
    from workbench.ui.workspace import shared_workbench

    return shared_workbench()


def _settings():
    """The server's Settings (the same the shared workbench is built from), without building it:
    a refusal costs no workspace."""
    from workbench.config import get_settings

    return get_settings()


def _sign_in() -> bool:
    """Sign-in on in this process, or required by the store it serves (the shared workbench then
    runs with it on: workspace.shared_workbench)."""
    return _settings().sign_in or _workbench().settings.sign_in


def get_gate() -> RenderGate:
    global _gate
    with _gate_lock:
        if _gate is None:
            s = _settings()
            _gate = RenderGate(s.render_concurrency, s.render_queue, s.render_per_client)
        return _gate


def _refuse(text: str, status: int, **headers: str) -> Response:
    return Response(text, status_code=status, media_type="text/plain", headers={**_NO_STORE, **headers})


def _account_holds(name: str) -> bool:
    """The store still has this account, enabled (one removed or disabled since the link was
    minted has no access)."""
    return _workbench().account_active(name)


async def _admit(request: Request, doc_id: str) -> tuple[str | None, Response | None]:
    """(who asks, for the render gate; or the refusal to answer with). Sign-in off: anyone who
    reaches the port, keyed by address. Sign-in on: the holder of a valid link for this document."""
    if not await run_in_threadpool(_sign_in):
        return f"address:{request.client.host if request.client else '-'}", None
    try:
        link = viewer_links().read(request.query_params.get(LINK_PARAM), doc_id)
    except LinkRefused as e:
        return None, _refuse(str(e), e.status)
    if link.via == "local" and not await run_in_threadpool(_account_holds, link.name):
        return None, _refuse("this account no longer has access: sign in again", 403)
    return f"account:{link.via}:{link.name}", None


async def _serve(request: Request, produce) -> Response:
    """Check the id and the caller, then run `produce(doc_id, page, sign_in)` in a render slot."""
    doc_id = request.path_params["doc"]
    page = request.path_params["page"]
    if not _HEX.match(doc_id):
        return _refuse("bad document id", 400)
    client, refusal = await _admit(request, doc_id)
    if refusal is not None:
        return refusal
    try:
        async with get_gate().slot(client):
            return await run_in_threadpool(produce, doc_id, page, request)
    except GateBusy as e:
        return _refuse(str(e), e.status, **{"Retry-After": "1"})
    except IndexError as e:
        return _refuse(str(e), 404)
    except RenderError as e:  # MuPDF refused (a limit, damaged content): say so, no traceback
        return _refuse(f"page image not available: {e}", 422)
    except (WorkbenchError, FileNotFoundError, KeyError, NotImplementedError) as e:
        return _refuse(f"document not available: {e}", 404)


def _image(doc_id: str, page: int, request: Request) -> Response:
    try:
        zoom = float(request.query_params.get("z", "2"))
    except ValueError:
        zoom = 2.0
    img = get_renderer().render(doc_id, page, zoom)
    return Response(img, media_type="image/jpeg", headers=_NO_STORE if _sign_in() else _IMMUTABLE)


def _words(doc_id: str, page: int, request: Request) -> Response:
    # [x0, y0, x1, y1, text, start, end], and OCR's confidence as an 8th element on a page it read.
    rows = [[round(w[0], 2), round(w[1], 2), round(w[2], 2), round(w[3], 2), *w[4:7], *(round(c, 3) for c in w[7:])]
            for w in _workbench().page_words(doc_id, page)]
    body = json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode()
    return Response(body, media_type="application/json", headers=_NO_STORE if _sign_in() else _WORDS)


async def page_image(request: Request) -> Response:
    return await _serve(request, _image)


async def page_words(request: Request) -> Response:
    return await _serve(request, _words)


ROUTES = [Route(PAGE_ROUTE + "/{doc}/{page:int}", page_image),
          Route(WORDS_ROUTE + "/{doc}/{page:int}", page_words)]
