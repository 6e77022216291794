"""Issue 37, item 5, as attacks on the viewer's HTTP routes (/wbapi/page, /wbapi/words): with
sign-in on, someone who holds no signed-in session (only the URL pattern and a document's
SHA-256) gets neither page images nor page text; a link minted for one signed-in reviewer and
document does not open another document, outlive its expiry, or survive a forged signature; page
images are never cached as public; and a flood of requests renders at most a fixed number of
pages at once, refusing the excess quickly instead of stalling everyone."""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from tests.ui.conftest import PAGE1, PAGE2
from workbench.config import get_settings
from workbench.models import Identity
from workbench.ui import workspace
from workbench.ui.viewer import render as render_mod
from workbench.ui.viewer import routes
from workbench.ui.viewer.routes import PAGE_ROUTE, ROUTES, WORDS_ROUTE

JPEG = b"\xff\xd8\xff"
SECRET = "Confidential merger terms: the purchase price is forty million."
REVIEWER = Identity(name="Rae Reviewer", role="reviewer")


def _workspace(monkeypatch, make_pdf, *, sign_in: bool, **env: str):
    """A workspace holding document A (the policy) and document B (a secret), served by the
    routes as the app would serve them (the process-wide workbench, renderer and render gate)."""
    from workbench.service import Workbench

    monkeypatch.setenv("WORKBENCH_SIGN_IN", "true" if sign_in else "false")
    monkeypatch.setenv("WORKBENCH_INDEX_ON_INGEST", "false")
    for k, v in env.items():
        monkeypatch.setenv(f"WORKBENCH_{k.upper()}", v)
    get_settings.cache_clear()
    wb = Workbench(get_settings())
    a = wb.ingest(make_pdf([PAGE1, PAGE2], name="a.pdf"), "a.pdf", source_type="policy")
    b = wb.ingest(make_pdf([SECRET], name="b.pdf"), "b.pdf", source_type="policy")
    if sign_in:
        wb.add_user("Ada Admin", "admin", "correct horse admin")  # the first account is an admin's
        wb.add_user(REVIEWER.name, REVIEWER.role, "correct horse battery",
                    identity=wb.sign_in("Ada Admin", "correct horse admin"))
    monkeypatch.setattr(workspace, "_instance", wb)
    monkeypatch.setattr(render_mod, "_renderer", None)
    monkeypatch.setattr(routes, "_gate", None, raising=False)
    return wb, a.id, b.id


@pytest.fixture
def team(data_dir, monkeypatch, make_pdf):
    """Sign-in on: (workbench, document A, document B), Rae Reviewer has an account."""
    return _workspace(monkeypatch, make_pdf, sign_in=True)


@pytest.fixture
def analyst(data_dir, monkeypatch, make_pdf):
    """Sign-in off, the embedded default: (workbench, document A, document B)."""
    return _workspace(monkeypatch, make_pdf, sign_in=False)


def _client() -> TestClient:
    return TestClient(Starlette(routes=ROUTES), raise_server_exceptions=False)


def _link(identity: Identity, doc_id: str, **kw) -> str:
    from workbench.ui.viewer.access import viewer_links

    return viewer_links().mint(identity, doc_id, **kw)


def _assert_refused(resp, *texts: str) -> None:
    assert resp.status_code in (401, 403), (resp.status_code, resp.content[:80])
    assert JPEG not in resp.content
    assert resp.headers.get("content-type", "").split(";")[0] not in ("image/jpeg", "application/json")
    for t in texts:
        assert t.lower() not in resp.text.lower()


def test_with_sign_in_on_an_anonymous_request_gets_no_page_image_and_no_page_text(team):
    _, a, _ = team
    client = _client()
    for query in ("", "&t=", "&t=anything"):
        _assert_refused(client.get(f"{PAGE_ROUTE}/{a}/1?z=1{query}"))
        _assert_refused(client.get(f"{WORDS_ROUTE}/{a}/1?{query.lstrip('&')}"), "organization", "access")


def test_a_forged_or_expired_link_is_refused(team):
    from workbench.ui.viewer.access import ViewerLinks

    _, a, _ = team
    client = _client()
    forged = ViewerLinks(key=b"not the server's key" * 2, ttl_s=900).mint(REVIEWER, a)
    expired = _link(REVIEWER, a, now=time.time() - 7 * 24 * 3600)
    good = _link(REVIEWER, a)
    tampered = good[:-1] + ("0" if good[-1] != "0" else "1")
    for token in (forged, expired, tampered):
        _assert_refused(client.get(f"{PAGE_ROUTE}/{a}/1?z=1&t={token}"))
        _assert_refused(client.get(f"{WORDS_ROUTE}/{a}/1?t={token}"), "organization")
    ok = client.get(f"{PAGE_ROUTE}/{a}/1?z=1&t={good}")  # the same request, signed by the server
    assert ok.status_code == 200 and ok.content[:3] == JPEG


def test_a_link_for_document_a_does_not_open_document_b(team):
    _, a, b = team
    client = _client()
    token = _link(REVIEWER, a)
    _assert_refused(client.get(f"{PAGE_ROUTE}/{b}/1?z=1&t={token}"))
    _assert_refused(client.get(f"{WORDS_ROUTE}/{b}/1?t={token}"), "merger", "purchase")
    words = client.get(f"{WORDS_ROUTE}/{a}/1?t={token}")
    assert words.status_code == 200 and "organization" in words.text


def test_a_link_naming_an_account_the_store_does_not_hold_is_refused(team):
    _, a, _ = team
    token = _link(Identity(name="Gone Away", role="admin"), a)  # e.g. an account since removed
    _assert_refused(_client().get(f"{PAGE_ROUTE}/{a}/1?z=1&t={token}"))


def test_with_sign_in_on_page_images_and_words_are_not_stored_by_any_cache(team):
    _, a, _ = team
    token = _link(REVIEWER, a)
    client = _client()
    for url in (f"{PAGE_ROUTE}/{a}/1?z=1&t={token}", f"{WORDS_ROUTE}/{a}/1?t={token}"):
        resp = client.get(url)
        assert resp.status_code == 200
        cache = resp.headers["cache-control"]
        assert "public" not in cache and "private" in cache and "no-store" in cache


def test_with_sign_in_off_page_images_are_cached_privately_only(analyst):
    _, a, _ = analyst
    client = _client()
    for url in (f"{PAGE_ROUTE}/{a}/1?z=1", f"{WORDS_ROUTE}/{a}/1"):
        resp = client.get(url)
        assert resp.status_code == 200  # one analyst on 127.0.0.1: no link needed, as before
        assert "public" not in resp.headers["cache-control"] and "private" in resp.headers["cache-control"]


class _SlowRenderer:
    """Stands in for PageRenderer: each render blocks until released, counting how many run at
    once (the attack's effect on the server, measured without timing anything)."""

    def __init__(self):
        self.release = threading.Event()
        self._lock = threading.Lock()
        self.now = self.most = self.calls = 0

    def render(self, doc_id, page, zoom):
        with self._lock:
            self.now += 1
            self.calls += 1
            self.most = max(self.most, self.now)
        try:
            self.release.wait(30)
            return JPEG + b"fake"
        finally:
            with self._lock:
                self.now -= 1


async def _until(done, what: str) -> None:
    for _ in range(1500):  # a safety net against hanging, not a timing assertion
        if done():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(what)


async def _flood(app, url: str, n: int, client_addr: str, answered: list[int]) -> list[asyncio.Task]:
    transport = httpx.ASGITransport(app=app, client=(client_addr, 50000))
    http = httpx.AsyncClient(transport=transport, base_url="http://testserver")

    async def one():
        resp = await http.get(url)
        answered.append(resp.status_code)
        return resp

    tasks = [asyncio.ensure_future(one()) for _ in range(n)]
    asyncio.gather(*tasks, return_exceptions=True).add_done_callback(lambda _: asyncio.ensure_future(http.aclose()))
    return tasks


def test_fifty_concurrent_requests_render_at_most_the_limit_and_the_excess_is_refused_at_once(
        data_dir, monkeypatch, make_pdf):
    _, a, _ = _workspace(monkeypatch, make_pdf, sign_in=False, render_concurrency="3", render_queue="7",
                         render_per_client="50")
    slow = _SlowRenderer()
    monkeypatch.setattr(render_mod, "_renderer", slow)
    app = Starlette(routes=ROUTES)
    answered: list[int] = []

    async def attack():
        tasks = await _flood(app, f"{PAGE_ROUTE}/{a}/1?z=1", 50, "10.0.0.66", answered)
        try:  # while every admitted render is still blocked, the other 40 have their answer
            await _until(lambda: len(answered) >= 40, f"the excess was not refused while renders ran: {answered}")
            assert slow.most <= 3
        finally:
            slow.release.set()
        return await asyncio.gather(*tasks)

    responses = asyncio.run(attack())
    codes = sorted(r.status_code for r in responses)
    assert codes == [200] * 10 + [503] * 40
    assert all(r.headers.get("retry-after") for r in responses if r.status_code == 503)
    assert slow.calls == 10 and slow.most <= 3


def test_one_clients_flood_leaves_room_for_another_reviewer(data_dir, monkeypatch, make_pdf):
    _, a, _ = _workspace(monkeypatch, make_pdf, sign_in=False, render_concurrency="2", render_queue="20",
                         render_per_client="4")
    slow = _SlowRenderer()
    monkeypatch.setattr(render_mod, "_renderer", slow)
    app = Starlette(routes=ROUTES)
    flood: list[int] = []
    reviewer: list[int] = []

    async def attack():
        tasks = await _flood(app, f"{PAGE_ROUTE}/{a}/1?z=1", 50, "10.0.0.66", flood)
        try:
            await _until(lambda: len(flood) >= 46, f"the flood was not cut to its share: {flood}")
            mine = await _flood(app, f"{PAGE_ROUTE}/{a}/2?z=1", 1, "10.0.0.7", reviewer)
        finally:
            slow.release.set()
        return await asyncio.gather(*tasks), await asyncio.gather(*mine)

    flooded, mine = asyncio.run(attack())
    assert sorted(r.status_code for r in flooded) == [200] * 4 + [429] * 46
    assert [r.status_code for r in mine] == [200]
    assert slow.most <= 2
