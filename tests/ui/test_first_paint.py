"""A Review deep link's first paint (workbench/ui/viewer/preview.py, served by workbench/ui/boot.py):
with sign-in off, /review?run=…&evidence=… comes with the cited page and the quote's boxes as
numbers, drawn while Streamlit boots. What must hold:

- it names the page and the boxes the viewer will show, in numbers; no text of the run (quote,
  question, file name, ids) is written into the HTML, however hostile;
- an id that is not an id, an unknown run or item, an item without boxes: the ordinary page;
- with sign-in on (this process, or recorded in the store by a process that had it on), the
  deep link is Streamlit's index.html exactly as every other page, and no route serves a page
  image without a signed link: nothing of the run or its documents is in any response."""

from __future__ import annotations

import json
import re

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from tests.ui.conftest import PAGE1, PAGE2, QUOTES, seed_run
from workbench.config import get_settings
from workbench.ui import boot, workspace
from workbench.ui.viewer import preview
from workbench.ui.viewer import render as render_mod
from workbench.ui.viewer import routes as viewer_routes

HOSTILE = "</script><img src=x onerror=alert(1)> \u2028 & <b>"


def _client(monkeypatch, wb) -> TestClient:
    monkeypatch.setattr(workspace, "_instance", wb)
    monkeypatch.setattr(render_mod, "_renderer", None)
    monkeypatch.setattr(viewer_routes, "_gate", None, raising=False)
    monkeypatch.setattr(boot, "FIRST_PAINT_WAIT_S", 30)  # a slow test machine still gets it
    return TestClient(Starlette(routes=[*boot.routes(), *viewer_routes.ROUTES]))


def _paint(html: str) -> dict | None:
    m = re.search(r"<script>window\.__wbFirstPaint=(\{[^<]*\});</script>", html)
    return json.loads(m.group(1)) if m else None


@pytest.fixture
def local(data_dir, monkeypatch, make_pdf):
    """Sign-in off: (workbench, document, run) with a hostile file name and question."""
    from workbench.service import Workbench

    monkeypatch.setenv("WORKBENCH_SIGN_IN", "false")
    monkeypatch.setenv("WORKBENCH_INDEX_ON_INGEST", "false")
    get_settings.cache_clear()
    wb = Workbench(get_settings())
    doc = wb.ingest(make_pdf([PAGE1, PAGE2], name="p.pdf"), f"policy {HOSTILE}.pdf", source_type="policy")
    return wb, doc, seed_run(wb, doc.id, question=f"What {HOSTILE}?")


def test_a_deep_link_carries_the_page_and_boxes_as_numbers_and_no_text(local, monkeypatch):
    wb, doc, run = local
    client = _client(monkeypatch, wb)
    target = wb.reviewed(run.run_id).statuses[1].evidence  # the item on page 2
    r = client.get(f"/review?run={run.run_id}&evidence={target.requirement_id}")
    assert r.status_code == 200 and r.headers["cache-control"] == "private, no-store"
    paint = _paint(r.text)
    assert paint is not None, "sign-in off: the deep link carries its first paint"
    (page, x0, y0, x1, y1), *_ = target.span.rects
    assert paint["doc"] == doc.id and paint["page"] == page == 2 and paint["pages"] == 2
    assert paint["target"][0] == pytest.approx([x0, y0, x1, y1], abs=0.01)
    other = wb.reviewed(run.run_id).statuses[2].evidence  # the rejected item, on the same page: drawn quieter
    assert paint["others"] == [[round(x, 2) for x in r[1:]] for r in other.span.rects if r[0] == 2]
    assert paint["others"] and paint["base"] == viewer_routes.PAGE_ROUTE
    assert paint["above"] == pytest.approx(paint["h"]) and paint["total"] == pytest.approx(2 * paint["h"])
    # Numbers and the document's hex id only: nothing of the run's text.
    assert all(isinstance(v, (int, float)) or k in ("doc", "base") for k, v in paint.items()
               if k not in ("target", "others"))
    for text in (target.exact_quote, QUOTES[0][0], HOSTILE, "onerror", run.question, "policy ",
                 run.run_id, target.requirement_id):
        assert text not in r.text, text
    # The first paint asks for the image at the route the viewer uses, served to this browser.
    img = client.get(f"{viewer_routes.PAGE_ROUTE}/{doc.id}/2?z=1")
    assert img.status_code == 200 and img.content[:3] == b"\xff\xd8\xff"


@pytest.mark.parametrize("query", [
    "run={run}",  # no evidence named
    "evidence={ev}",  # no run named
    "run=nope&evidence={ev}",  # an unknown run
    "run={run}&evidence=REQ-P999",  # an unknown item
    "run={run}&evidence={rejected}x",  # not an evidence id
    "run=../../etc&evidence={ev}",  # not a run id
    "run={run}&evidence=%3Cscript%3E",  # markup, not an id
    "run=%3C%2Fscript%3E&evidence={ev}",
])
def test_anything_but_a_known_item_with_boxes_gets_the_ordinary_page(local, monkeypatch, query):
    wb, _, run = local
    client = _client(monkeypatch, wb)
    ids = [s.evidence.requirement_id for s in wb.reviewed(run.run_id).statuses]
    r = client.get("/review?" + query.format(run=run.run_id, ev=ids[0], rejected=ids[2]))
    assert r.status_code == 200 and r.text == boot.index_html()
    assert r.headers["cache-control"] == "no-cache"


def test_an_item_without_boxes_gets_the_ordinary_page(local, monkeypatch):
    wb, _, run = local
    evidence = [run.evidence[0].model_copy(update={"span": None}), *run.evidence[1:]]  # a quote not anchored
    wb.store.save_run(run.model_copy(update={"run_id": "run-unanchored", "evidence": evidence}))
    assert wb.reviewed("run-unanchored").statuses[0].evidence.span is None
    r = _client(monkeypatch, wb).get(f"/review?run=run-unanchored&evidence={run.evidence[0].requirement_id}")
    assert r.text == boot.index_html()


@pytest.mark.parametrize("how", ["this process", "recorded in the store"])
def test_with_sign_in_on_a_deep_link_is_the_ordinary_page_and_no_route_serves_the_page(
        data_dir, monkeypatch, make_pdf, how):
    from workbench.service import Workbench

    monkeypatch.setenv("WORKBENCH_SIGN_IN", "true")
    monkeypatch.setenv("WORKBENCH_INDEX_ON_INGEST", "false")
    get_settings.cache_clear()
    wb = Workbench(get_settings())
    doc = wb.ingest(make_pdf([PAGE1, PAGE2], name="p.pdf"), "secret.pdf", source_type="policy")
    wb.add_user("Ada Admin", "admin", "correct horse admin")
    run = seed_run(wb, doc.id)
    if how == "recorded in the store":  # a server started with sign-in off on the team's store
        monkeypatch.setenv("WORKBENCH_SIGN_IN", "false")
        get_settings.cache_clear()
        assert not get_settings().sign_in and Workbench(get_settings()).sign_in_required()
        monkeypatch.setattr(workspace, "_instance", None)
        wb = workspace.shared_workbench()  # the server's workbench, as the app and the routes build it
        assert wb.settings.sign_in  # the store's requirement wins over this process's setting
    client = _client(monkeypatch, wb)
    ev = run.evidence[0]
    r = client.get(f"/review?run={run.run_id}&evidence={ev.requirement_id}")
    assert r.status_code == 200 and r.text == boot.index_html()
    assert doc.id not in r.text and "__wbFirstPaint" not in r.text and "wbapi" not in r.text
    assert preview.first_paint(wb, render_mod.get_renderer(), run.run_id, ev.requirement_id) is None
    for route in (viewer_routes.PAGE_ROUTE, viewer_routes.WORDS_ROUTE):  # no page without a signed link
        got = client.get(f"{route}/{doc.id}/{ev.span.page}?z=1")
        assert got.status_code == 401 and QUOTES[0][0] not in got.text and got.content[:3] != b"\xff\xd8\xff"
