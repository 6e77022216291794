"""The HTTP routes the viewer loads from (mounted by serve.py via st.App): page images, and
each page's words for the selectable text layer."""

from __future__ import annotations

import json
import re

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from workbench.errors import RenderError, WorkbenchError
from workbench.ui.viewer.render import get_renderer

PAGE_ROUTE = "/wbapi/page"
WORDS_ROUTE = "/wbapi/words"
_HEX = re.compile(r"^[0-9a-f]{8,64}$")
# Content-addressed: the same URL always yields the same bytes.
_IMMUTABLE = {"Cache-Control": "public, max-age=31536000, immutable"}


async def page_image(request: Request) -> Response:
    doc_id = request.path_params["doc"]
    page = request.path_params["page"]
    if not _HEX.match(doc_id):
        return Response("bad document id", status_code=400)
    try:
        zoom = float(request.query_params.get("z", "2"))
    except ValueError:
        zoom = 2.0
    try:
        img = await run_in_threadpool(get_renderer().render, doc_id, page, zoom)
    except IndexError as e:
        return Response(str(e), status_code=404)
    except RenderError as e:  # MuPDF refused (a limit, damaged content): say so, no traceback
        return Response(f"page image not available: {e}", status_code=422, media_type="text/plain")
    except (WorkbenchError, FileNotFoundError, KeyError, NotImplementedError) as e:
        return Response(f"document not available: {e}", status_code=404)
    return Response(img, media_type="image/jpeg", headers=_IMMUTABLE)


def _words(doc_id: str, page: int) -> bytes:
    from workbench.ui.workspace import shared_workbench

    words = shared_workbench().page_words(doc_id, page)
    return json.dumps([[round(x0, 2), round(y0, 2), round(x1, 2), round(y1, 2), t, s, e]
                       for x0, y0, x1, y1, t, s, e in words], ensure_ascii=False, separators=(",", ":")).encode()


async def page_words(request: Request) -> Response:
    doc_id = request.path_params["doc"]
    page = request.path_params["page"]
    if not _HEX.match(doc_id):
        return Response("bad document id", status_code=400)
    try:
        body = await run_in_threadpool(_words, doc_id, page)
    except IndexError as e:
        return Response(str(e), status_code=404)
    except (WorkbenchError, FileNotFoundError, KeyError, NotImplementedError) as e:
        return Response(f"document not available: {e}", status_code=404)
    # Not immutable: a newer parser may split words differently for the same PDF.
    return Response(body, media_type="application/json", headers={"Cache-Control": "private, max-age=600"})


ROUTES = [Route(PAGE_ROUTE + "/{doc}/{page:int}", page_image),
          Route(WORDS_ROUTE + "/{doc}/{page:int}", page_words)]
