"""The pages' URLs are served as Streamlit's index.html naming the server's base URL, so a deep
link (/review?run=…) connects at once instead of first probing /review/_stcore/health (a 404
and a 100 ms wait in Streamlit's frontend). Nothing else changes: the same index, no data."""

from __future__ import annotations

from pathlib import Path

import streamlit
from starlette.applications import Starlette
from starlette.testclient import TestClient

from workbench.ui import boot


def test_the_index_is_streamlits_own_with_the_base_script_before_its_first_module():
    original = (Path(streamlit.__file__).parent / "static" / "index.html").read_text(encoding="utf-8")
    html = boot.index_html()
    assert html is not None and html.replace(boot.BASE_SCRIPT + "\n    ", "", 1) == original
    assert html.index(boot.BASE_SCRIPT) < html.index('<script type="module"')
    assert "BACKEND_BASE_URL" in boot.BASE_SCRIPT and "location" in boot.BASE_SCRIPT


def test_every_page_but_the_default_is_served_with_it_and_nothing_else_is():
    assert boot.page_paths() == ["/run", "/table", "/review", "/answer", "/check", "/dashboard", "/export"]
    client = TestClient(Starlette(routes=boot.routes()))
    r = client.get("/review?run=r1&evidence=REQ-P001")
    assert r.status_code == 200 and boot.BASE_SCRIPT in r.text
    assert r.headers["cache-control"] == "no-cache" and r.headers["content-type"].startswith("text/html")
    for other in ("/", "/documents", "/review/_stcore/health", "/wbapi/page/ab/1"):
        assert client.get(other).status_code == 404, other  # left to Streamlit and the viewer's routes
