"""The viewer switches documents in the browser (issue 41): in a run over two documents, J/K on
Review, a grid row and an Answer citation chip naming an item of the other document show that
document's page with the quote highlighted while every message from the browser to the app is
held back (so no Streamlit rerun can have helped); once the messages go through, the app catches
up (the card names the new item) and the viewer stays where the reviewer is. The caption above
the viewer (document, item, page) is the viewer's own and follows at once, held messages or not. With
sign-in on, each document's pages still load only through its own signed link."""

from __future__ import annotations

import re

import pytest

from tests.ui.conftest import two_document_run
from tests.ui.test_browser import browser, expect_highlight, streamlit_idle  # noqa: F401 - fixture
from workbench.ui.devserver import AppServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

class HeldApp:
    """Holds back every message the page sends to the app (Streamlit's websocket) while `held`:
    a rerun cannot start, so what the page shows meanwhile is the browser's own doing."""

    def __init__(self, page):
        self.held = False
        self.queue: list = []
        self.server = None
        self.connections = 0
        page.route_web_socket(re.compile(r"/_stcore/stream"), self._route)

    def _route(self, ws) -> None:
        self.connections += 1  # more than one: the page reconnected (a new session) mid-test
        self.server = ws.connect_to_server()
        ws.on_message(lambda msg: self.queue.append(msg) if self.held else self.server.send(msg))

    def hold(self) -> None:
        self.held = True

    def release(self) -> int:
        """Let the held messages through; returns how many there were."""
        self.held = False
        n = len(self.queue)
        for msg in self.queue:
            self.server.send(msg)
        self.queue.clear()
        return n


def viewer_doc(page) -> str:
    return page.locator(".wbv").first.get_attribute("data-doc") or ""


def shows(page, where, rid: str) -> None:
    """The viewer shows `rid`'s document with its quote highlighted as the target, in view, and
    the caption above it names that document, the item and its page (the viewer's own line: it
    must not wait for the app's rerun)."""
    name, doc_id, page_no = where[rid]
    expect_highlight(page, rid, page_no)
    assert viewer_doc(page) == doc_id, f"{rid} is in {name}: the viewer must show that document"
    assert page.locator(".wbv-docname").first.inner_text() == name
    cap = page.locator(".wbv-cap").first.inner_text()
    assert f"{rid} is on p. {page_no}" in cap and cap.startswith(name), cap


def card(page, rid: str):
    """The Review card's heading naming `rid` (written by the app's run, not the viewer)."""
    return page.get_by_test_id("stMarkdownContainer").locator("strong", has_text=re.compile(f"^{rid}$")).first


def catches_up(page, app: HeldApp, rid: str, log) -> None:
    """The app's rerun names `rid` on the Review card; on failure, say why (a reconnect, the app's log)."""
    try:
        card(page, rid).wait_for(timeout=60_000)
    except Exception as exc:  # noqa: BLE001 - re-raised with what the app said
        tail = log.read_text(errors="replace")[-3000:] if log.exists() else "(no log)"
        raise AssertionError(f"the card never named {rid} (websocket connections: {app.connections}); "
                             f"app log:\n{tail}") from exc


def test_j_k_and_a_grid_row_into_the_other_document_land_without_a_rerun(tmp_path, browser, make_pdf,  # noqa: F811
                                                                         monkeypatch):
    from workbench.config import get_settings

    _, run, where, order, _ = two_document_run(tmp_path, monkeypatch, make_pdf)
    first_doc = where[order[0]][1]
    last_of_first = max(i for i, r in enumerate(order) if where[r][1] == first_doc)
    here, there = order[last_of_first], order[last_of_first + 1]  # J crosses into the other document
    assert where[here][1] != where[there][1]
    with AppServer(tmp_path / "workspace", log=tmp_path / "app.log") as url:
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        app = HeldApp(page)
        probes: list[str] = []
        page.on("request", lambda r: probes.append(r.url) if "_stcore/health" in r.url else None)
        page.goto(f"{url}review?run={run.run_id}&evidence={here}")
        shows(page, where, here)
        streamlit_idle(page)
        page.wait_for_timeout(500)
        # The deep link connects at once: no guess at /review/_stcore/… first (workbench/ui/boot.py).
        assert probes and all(u.startswith(f"{url}_stcore/") for u in probes), probes

        # J into the other document, then K back, with the app unreachable.
        app.hold()
        page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.focus(); }")
        page.keyboard.press("j")
        shows(page, where, there)
        page.keyboard.press("k")
        shows(page, where, here)
        page.keyboard.press("j")
        shows(page, where, there)
        assert not page.get_by_test_id("stStatusWidget").is_visible(), "no script ran"
        assert app.release() >= 1, "the viewer told the app (its messages were held back)"

        # The app catches up: the card names the item shown; the viewer stays.
        catches_up(page, app, there, tmp_path / "app.log")
        streamlit_idle(page)
        shows(page, where, there)

        # A grid row of the first document, the app unreachable again.
        app.hold()
        grid = page.frame_locator("iframe[title*='aggrid' i]")
        grid.locator(".ag-row [col-id='ID']", has_text=order[0]).first.click()
        shows(page, where, order[0])
        assert app.release() >= 1
        catches_up(page, app, order[0], tmp_path / "app.log")
        streamlit_idle(page)
        shows(page, where, order[0])
        page.close()
    get_settings.cache_clear()


def test_a_chip_of_the_other_document_on_answer_lands_without_a_rerun_and_the_text_is_readable(
        tmp_path, browser, make_pdf, monkeypatch):  # noqa: F811
    from workbench.config import get_settings

    _, run, where, _, cited = two_document_run(tmp_path, monkeypatch, make_pdf)
    with AppServer(tmp_path / "workspace", log=tmp_path / "app.log") as url:
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        app = HeldApp(page)
        page.goto(f"{url}answer?run={run.run_id}")
        shows(page, where, cited[0])
        streamlit_idle(page)
        # Readable beside the answer too (1440 × 900, the sidebar open): a contract's 10 pt body
        # text at least 11 CSS px tall at the default zoom, without sideways scrolling.
        assert page.get_by_test_id("stSidebar").is_visible()
        zoom = float(page.locator(".wbv").first.get_attribute("data-zoom"))
        assert 10 * 96 / 72 * zoom >= 11, zoom
        assert page.locator(".wbv-scroll").first.evaluate("el => el.scrollWidth <= el.clientWidth")
        page.wait_for_timeout(500)

        for rid in (cited[1], cited[0], cited[1]):
            app.hold()
            page.locator("button.wb-chip", has_text=rid).first.click()
            shows(page, where, rid)
            assert not page.get_by_test_id("stStatusWidget").is_visible(), "no script ran"
            assert app.release() >= 1
            streamlit_idle(page)
        page.get_by_role("link", name=f"Review {cited[1]}").wait_for(timeout=30_000)
        shows(page, where, cited[1])
        page.close()
    get_settings.cache_clear()


def test_signed_in_each_document_loads_through_its_own_link(tmp_path, browser, make_pdf, monkeypatch):  # noqa: F811
    """Sign-in on: the switch fetches the other document's pages with the link minted for it
    (the routes refuse a link for one document on another, test_viewer_access.py)."""
    from workbench.config import get_settings

    wb, run, where, order, _ = two_document_run(tmp_path, monkeypatch, make_pdf, sign_in="true",
                                                index_on_ingest="false")
    wb.add_user("Ada Admin", "admin", "correct horse admin")
    first_doc = where[order[0]][1]
    i = max(i for i, r in enumerate(order) if where[r][1] == first_doc)
    here, there = order[i], order[i + 1]
    refused: list[str] = []
    with AppServer(tmp_path / "workspace", log=tmp_path / "app.log", env={"WORKBENCH_SIGN_IN": "true"}) as url:
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.on("response", lambda r: refused.append(f"{r.status} {r.url}")
                if "/wbapi/" in r.url and r.status >= 400 else None)
        page.goto(f"{url}review?run={run.run_id}&evidence={here}")
        page.get_by_role("textbox", name="Name").fill("Ada Admin")
        page.get_by_role("textbox", name="Password").fill("correct horse admin")
        page.get_by_role("button", name="Sign in").click()
        page.get_by_text(re.compile(r"Signed in as Ada Admin")).wait_for(timeout=120_000)
        shows(page, where, here)
        streamlit_idle(page)
        page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.focus(); }")
        page.keyboard.press("j")
        shows(page, where, there)
        urls = page.evaluate("""() => [...document.querySelectorAll('*')].map(h => h.shadowRoot).filter(Boolean)
            .flatMap(r => [...r.querySelectorAll('.wbv-page img')]).map(i => i.src)""")
        assert urls and all(f"/{where[there][1]}/" in u and "t=" in u for u in urls), urls
        assert refused == [], refused
        page.close()
    get_settings.cache_clear()
