"""The HTTP route that serves page images to the viewer (mounted by serve.py via st.App)."""

from __future__ import annotations

import re

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from workbench.errors import RenderError, WorkbenchError
from workbench.ui.viewer.render import get_renderer

PAGE_ROUTE = "/wbapi/page"
_HEX = re.compile(r"^[0-9a-f]{8,64}$")


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
    # Content-addressed: the same URL always yields the same image.
    return Response(img, media_type="image/jpeg", headers={"Cache-Control": "public, max-age=31536000, immutable"})


ROUTES = [Route(PAGE_ROUTE + "/{doc}/{page:int}", page_image)]
