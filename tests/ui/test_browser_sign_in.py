"""Sign-in on, in real Chromium: nothing is shown before a login, failed sign-ins are throttled
with a message saying for how long, a decision records the signed-in identity, and a reviewer
cannot record an adjudication."""

from __future__ import annotations

import re

import pytest

from tests.ui.conftest import PAGE1, PAGE2, seed_run
from tests.ui.test_browser import browser, streamlit_idle  # noqa: F401 - the browser fixture
from workbench.ui.devserver import AppServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_reviewer_signs_in_their_decision_carries_their_identity_and_adjudicating_is_refused(
        tmp_path, browser, make_pdf, monkeypatch):  # noqa: F811
    from workbench.config import Settings, get_settings
    from workbench.service import Workbench

    data = tmp_path / "workspace"
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(data))
    get_settings.cache_clear()
    wb = Workbench(Settings(data_dir=data, sign_in=True))
    doc = wb.ingest(make_pdf([PAGE1, PAGE2], name="policy.pdf"), "policy.pdf", source_type="policy")
    run = seed_run(wb, doc.id, run_id="run-sign-in")
    rid = run.evidence[1].requirement_id
    wb.add_user("Ada Admin", "admin", "the first admin's password")  # the data folder's owner bootstraps
    ada = wb.sign_in("Ada Admin", "the first admin's password")
    wb.add_user("Rae Reviewer", "reviewer", "correct horse battery", identity=ada)

    env = {"WORKBENCH_SIGN_IN": "true", "WORKBENCH_SIGN_IN_MAX_FAILURES": "2"}
    with AppServer(data, env=env, log=tmp_path / "app.log") as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{url}review?run={run.run_id}&evidence={rid}")
        page.get_by_role("heading", name="Sign in", exact=True).wait_for(timeout=120_000)
        assert page.get_by_role("textbox", name="Reviewer name").count() == 0  # no free-text name
        assert page.get_by_text(run.evidence[1].exact_quote[:30]).count() == 0  # nothing before a login

        page.get_by_role("textbox", name="Name").fill("Ada Admin")  # a guesser, throttled after 2 failures
        for _ in range(2):
            page.get_by_role("textbox", name="Password").fill("password123")
            page.get_by_role("button", name="Sign in").click()
            page.get_by_text("unknown name or wrong password").wait_for(timeout=90_000)
            streamlit_idle(page)
        page.get_by_role("textbox", name="Password").fill("the first admin's password")
        page.get_by_role("button", name="Sign in").click()
        page.get_by_text(re.compile(r"too many failed sign-ins .* try again in 15 minutes")).wait_for(timeout=90_000)
        assert page.get_by_text("Signed in as").count() == 0

        page.get_by_role("textbox", name="Name").fill("Rae Reviewer")
        page.get_by_role("textbox", name="Password").fill("wrong password")
        page.get_by_role("button", name="Sign in").click()
        page.get_by_text("unknown name or wrong password").wait_for(timeout=90_000)
        page.get_by_role("textbox", name="Password").fill("correct horse battery")
        page.get_by_role("button", name="Sign in").click()
        page.get_by_text(re.compile(r"Signed in as Rae Reviewer \(reviewer\)")).wait_for(timeout=120_000)

        streamlit_idle(page)
        page.get_by_role("heading", name="Review", exact=True).wait_for(timeout=120_000)
        streamlit_idle(page)
        page.get_by_role("button", name=re.compile(r"^Unsupported")).click()
        page.get_by_text(f"{rid}: Unsupported (by Rae Reviewer).").wait_for(timeout=90_000)

        page.get_by_text("Record as adjudication").click()
        streamlit_idle(page)
        page.get_by_role("button", name=re.compile(r"^Supported")).click()
        page.get_by_text(re.compile("needs the adjudicator role")).wait_for(timeout=90_000)
        page.close()

    events = Workbench(Settings(data_dir=data)).history(run.run_id, rid)
    assert [(e.reviewer, e.label, e.kind) for e in events] == [("Rae Reviewer", "unsupported", "label")]
    get_settings.cache_clear()


def test_signed_in_the_viewer_shows_the_page_and_a_browser_without_sign_in_gets_nothing(
        tmp_path, browser, make_pdf, monkeypatch):  # noqa: F811
    from tests.ui.test_browser import expect_highlight
    from workbench.config import Settings, get_settings
    from workbench.service import Workbench

    data = tmp_path / "workspace"
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(data))
    get_settings.cache_clear()
    wb = Workbench(Settings(data_dir=data, sign_in=True))
    doc = wb.ingest(make_pdf([PAGE1, PAGE2], name="policy.pdf"), "policy.pdf", source_type="policy")
    run = seed_run(wb, doc.id, run_id="run-viewer-sign-in")
    rid = run.evidence[1].requirement_id
    wb.add_user("Ada Admin", "admin", "correct horse admin")  # the first account is an admin's
    wb.add_user("Rae Reviewer", "reviewer", "correct horse battery", identity=wb.sign_in("Ada Admin", "correct horse admin"))

    with AppServer(data, env={"WORKBENCH_SIGN_IN": "true"}, log=tmp_path / "app.log") as url:
        outsider = browser.new_context()  # no sign-in: what anyone who reaches the port holds
        for path in (f"wbapi/page/{doc.id}/2?z=1", f"wbapi/words/{doc.id}/2"):
            resp = outsider.request.get(url + path)
            assert resp.status in (401, 403) and b"\xff\xd8\xff" not in resp.body()
            assert "audit" not in resp.text().lower()

        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{url}review?run={run.run_id}&evidence={rid}")
        page.get_by_role("textbox", name="Name").fill("Rae Reviewer")
        page.get_by_role("textbox", name="Password").fill("correct horse battery")
        page.get_by_role("button", name="Sign in").click()
        page.get_by_text(re.compile(r"Signed in as Rae Reviewer \(reviewer\)")).wait_for(timeout=120_000)
        streamlit_idle(page)
        box = expect_highlight(page, rid, 2)  # the page image under the highlight loaded
        src = box.evaluate("el => el.parentElement.querySelector('img').src")
        mine = page.request.get(src)  # the signed-in viewer's own request
        assert mine.status == 200 and mine.body()[:3] == b"\xff\xd8\xff"
        assert "public" not in mine.headers["cache-control"] and "private" in mine.headers["cache-control"]

        bare = re.sub(r"[?&]t=[^&]*", "", src)  # the same URL without the viewer's signed link
        resp = outsider.request.get(bare)
        assert resp.status in (401, 403) and b"\xff\xd8\xff" not in resp.body()
        outsider.close()
        page.close()
    get_settings.cache_clear()
