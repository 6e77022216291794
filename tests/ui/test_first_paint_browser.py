"""A Review deep link in Chromium at 1440 × 900 (sign-in off): the cited page with the quote's box
is drawn from the HTML alone, while every message to the app is held back (no script run, no
viewer), and once the app runs, the viewer's own highlight lands where the first paint showed
it and the first paint is gone."""

from __future__ import annotations

import pytest

from tests.ui.conftest import two_document_run
from tests.ui.test_browser import browser, expect_highlight, streamlit_idle  # noqa: F401 - fixture
from tests.ui.test_viewer_documents_browser import HeldApp
from workbench.ui.devserver import AppServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAINTED = """() => {
  const box = document.querySelector('#wb-first-paint .wbp-hl.target');
  const img = box && box.parentElement.querySelector('img');
  if (!(img && img.complete && img.naturalWidth > 0)) return null;
  const b = box.getBoundingClientRect();
  return [b.left, b.top, b.width, b.height];
}"""
VIEWER_BOX = """(id) => {
  for (const h of document.querySelectorAll('*')) if (h.shadowRoot) {
    const t = h.shadowRoot.querySelector(`.wbv-hl.target[data-evidence-id="${id}"]`);
    if (t) { const b = t.getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; }
  }
  return null;
}"""


def test_a_deep_link_shows_its_page_before_the_app_runs_and_the_viewer_lands_in_its_place(
        tmp_path, browser, make_pdf, monkeypatch):  # noqa: F811
    from workbench.config import get_settings

    _, run, where, order, _ = two_document_run(tmp_path, monkeypatch, make_pdf)
    rid = order[-1]  # the vendor terms' last item, page 3 of 3
    with AppServer(tmp_path / "workspace", log=tmp_path / "app.log") as url:
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto(f"{url}review?run={run.run_id}&evidence={order[0]}")  # the server reads the run once
        expect_highlight(page, order[0], where[order[0]][2])
        streamlit_idle(page)

        app = HeldApp(page)
        app.hold()
        page.goto(f"{url}review?run={run.run_id}&evidence={rid}")
        painted = page.wait_for_function(PAINTED, timeout=30_000).json_value()
        assert page.evaluate(VIEWER_BOX, rid) is None, "no viewer yet: the app has not run"
        src = page.locator("#wb-first-paint img").get_attribute("src")
        assert src.startswith(f"/wbapi/page/{where[rid][1]}/{where[rid][2]}?z=")
        assert painted[1] >= 0 and painted[1] + painted[3] <= 900 and painted[0] > 1440 * 0.4, painted

        app.release()
        expect_highlight(page, rid, where[rid][2])
        page.locator("#wb-first-paint").wait_for(state="detached", timeout=30_000)
        streamlit_idle(page)
        landed = page.evaluate(VIEWER_BOX, rid)
        # The same place (the page fitted to the same width, the quote a third of the way down).
        assert all(abs(a - b) <= 4 for a, b in zip(painted, landed, strict=True)), (painted, landed)
        # The same image: the viewer's request is the first paint's, served from the browser's cache.
        viewer_src = page.evaluate("""(id) => { for (const h of document.querySelectorAll('*')) if (h.shadowRoot) {
            const t = h.shadowRoot.querySelector(`.wbv-hl.target[data-evidence-id="${id}"]`);
            if (t) return t.parentElement.querySelector('img').getAttribute('src'); } return null; }""", rid)
        assert viewer_src == src
        page.close()
    get_settings.cache_clear()
