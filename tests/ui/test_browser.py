"""The app in real headless Chromium (Playwright on /usr/bin/chromium): what AppTest cannot
reach — the uploader, the live run, the citation chips, the viewer's highlight boxes, reloads.
Each test starts the app (serve.py, as `make run` does) on a free 127.0.0.1 port with its own
WORKBENCH_DATA_DIR."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import PAGE1, PAGE2, seed_run
from workbench.ui.devserver import CHROMIUM_ARGS, AppServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]
QUESTION = "How often must audit records be reviewed?"
QUOTE = "review and analyze system audit records weekly"

# True when the element's box lies inside the viewer's scroll area and inside the window.
IN_VIEW = """(el) => {
  const scroll = el.closest('.wbv-scroll');
  if (!scroll) return false;  // a box of a viewer being replaced by the next run's: not yet
  const box = el.getBoundingClientRect(), view = scroll.getBoundingClientRect();
  return box.height > 0 && box.top >= view.top && box.bottom <= view.bottom
      && box.top >= 0 && box.bottom <= window.innerHeight;
}"""
PAGE_IMAGE_LOADED = ("(el) => { const img = el.parentElement && el.parentElement.querySelector('img'); "
                     "return !!img && img.complete && img.naturalWidth > 0; }")


@pytest.fixture
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def policy_pdf_path(make_pdf) -> Path:
    return make_pdf([PAGE1, PAGE2], name="policy.pdf")


def streamlit_idle(page, timeout: float = 120_000) -> None:
    page.wait_for_timeout(250)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=timeout)


def expect_highlight(page, evidence_id: str, page_no: int):
    """The highlight box for this evidence on this page: present, marked as the target, in view,
    over a loaded page image."""
    box = page.locator(f'.wbv-hl.target[data-evidence-id="{evidence_id}"][data-page="{page_no}"]').first
    box.wait_for(state="visible", timeout=30_000)
    for check, what in ((IN_VIEW, "the highlight is not scrolled into view"),
                        (PAGE_IMAGE_LOADED, "the page image under the highlight did not load")):
        for _ in range(80):
            if box.evaluate(check):
                break
            page.wait_for_timeout(250)
        assert box.evaluate(check), what
    return box


def test_reviewer_uploads_runs_follows_a_citation_marks_it_unsupported_and_it_survives_reload(
        tmp_path, browser, policy_pdf_path):
    with AppServer(tmp_path / "workspace", log=tmp_path / "app.log") as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        outside: list[str] = []  # the app must work offline: nothing but 127.0.0.1 is asked for
        page.on("request", lambda r: None if r.url.startswith(("http://127.0.0.1:", "data:", "blob:"))
                else outside.append(r.url))
        page.goto(url)
        page.get_by_role("heading", name="Documents", exact=True).wait_for(timeout=60_000)
        page.get_by_role("textbox", name="Reviewer name").fill("Dana")
        page.get_by_role("textbox", name="Reviewer name").press("Enter")
        streamlit_idle(page)

        # Upload through the uploader, choose the source type, ingest.
        page.locator('input[type="file"]').first.set_input_files(str(policy_pdf_path))
        page.get_by_text("Source type of policy.pdf").wait_for(timeout=30_000)
        streamlit_idle(page)
        page.get_by_role("combobox", name=re.compile("Source type of policy.pdf")).click()
        page.get_by_role("option", name="policy").click()
        streamlit_idle(page)
        page.get_by_role("button", name="Ingest").click()
        page.get_by_text(re.compile(r"policy\.pdf ingested: 2 pages, source type policy")).wait_for(timeout=60_000)

        # Ask a question and watch every stage complete.
        page.get_by_role("link", name="Run").first.click()
        page.get_by_role("textbox", name="Question").fill(QUESTION)
        page.get_by_role("button", name="Run", exact=True).click()
        page.get_by_text("All stages complete").wait_for(timeout=300_000)
        rows = page.locator('[data-testid="stTable"]').first.locator("tbody tr").all_inner_texts()
        status = {r.split("\t")[0].strip(): r.split("\t")[1].strip() for r in rows}
        assert status == {stage: "done" for stage in
                          ("Retrieval", "Extract", "Verify", "Compose", "Quality review", "Finalize")}, rows
        streamlit_idle(page)

        # The answer cites the weekly-review quote; its chip opens Review on it, highlighted.
        page.get_by_role("link", name="Answer").first.click()
        chip = page.locator("button.wb-chip").first
        chip.wait_for(timeout=60_000)
        evidence_id = chip.inner_text().strip()
        assert re.fullmatch(r"REQ-P\d{3}", evidence_id)
        chip.click()  # lands beside the answer: no page switch
        expect_highlight(page, evidence_id, 2)
        assert "/answer" in page.url
        page.get_by_role("link", name=f"Review {evidence_id}").click()
        page.wait_for_url(re.compile(rf"/review\?.*evidence={evidence_id}"), timeout=60_000)
        assert re.search(r"[?&]run=[^&]+", page.url)
        page.get_by_role("heading", name="Review", exact=True).wait_for()
        expect_highlight(page, evidence_id, 2)
        streamlit_idle(page)  # the viewer is drawn first (its highlight may be the first paint's): the card follows
        shown = " ".join(page.locator('[data-testid="stText"]').all_inner_texts())
        assert QUOTE in " ".join(shown.split())  # the quote as the PDF has it, line break included

        # Mark it Unsupported with a note.
        page.get_by_role("textbox", name="Note").fill("weekly is about analysis, not review cadence")
        page.get_by_role("textbox", name="Note").press("Enter")
        streamlit_idle(page)
        unsupported = page.get_by_role("button", name=re.compile(r"^Unsupported"))
        expect(unsupported).to_have_count(1, timeout=30_000)  # a rerun's stale copy has gone
        unsupported.click()
        page.get_by_text(f"{evidence_id}: Unsupported (by Dana).").wait_for(timeout=30_000)

        # Reload: the deep link brings back the same item, its label, its history.
        url_before = page.url
        page.reload()
        page.get_by_role("heading", name="Review", exact=True).wait_for(timeout=60_000)
        streamlit_idle(page)
        assert page.url == url_before
        expect_highlight(page, evidence_id, 2)
        assert page.get_by_text(re.compile(r"Human:\s*unsupported\s*by Dana")).count() == 1
        history = page.locator('[data-testid="stTable"]').last.inner_text()
        assert "Dana" in history and "— → unsupported" in history
        assert "weekly is about analysis, not review cadence" in history

        # The answer's support changed with the label: no supported evidence remains.
        page.get_by_role("link", name="Answer").first.click()
        page.get_by_text("No authoritative evidence.").wait_for(timeout=60_000)
        assert page.locator("button.wb-chip", has_text=evidence_id).count() == 0  # its sentence was dropped
        # the machine answer stays visible beside the revision, with the ID it cited
        page.get_by_text("Machine answer and revisions").click()
        page.locator('[data-testid="stText"]').filter(has_text=f"[{evidence_id}]").first.wait_for(timeout=30_000)
        assert page.get_by_text(re.compile(r"Well supported")).count() == 0

        # The charts and the downloads render offline too.
        page.get_by_role("link", name="Dashboard").first.click()
        page.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=60_000)
        page.get_by_role("link", name="Export").first.click()
        # With its only evidence unsupported, the recomposed answer makes no claim, so the safety
        # gate has nothing to block; the evidence table downloads.
        page.get_by_role("combobox", name=re.compile("Format")).click()
        page.get_by_role("option", name="Evidence table (CSV)").click()
        page.get_by_role("button", name="Download Evidence table (CSV)").wait_for(timeout=60_000)
        assert page.get_by_text("Blocked by the safety gate").count() == 0
        page.close()
        assert outside == []


def test_deep_link_opened_first_on_a_fresh_server_shows_the_evidence_highlighted(
        tmp_path, browser, policy_pdf_path, monkeypatch):
    from workbench.config import get_settings
    from workbench.service import Workbench

    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "workspace"))
    get_settings.cache_clear()
    wb = Workbench(get_settings())
    doc = wb.ingest(policy_pdf_path, "policy.pdf", source_type="policy")
    run = seed_run(wb, doc.id, run_id="run-deep-link")
    target = run.evidence[1]
    with AppServer(tmp_path / "workspace", log=tmp_path / "app.log") as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{url}review?run={run.run_id}&evidence={target.requirement_id}")
        page.get_by_role("heading", name="Review", exact=True).wait_for(timeout=60_000)
        assert page.get_by_text("Page not found").count() == 0
        expect_highlight(page, target.requirement_id, target.span.page)
        # Exactly the quote's rects: one element per rect, placed where the rect is on its page.
        boxes = page.locator(f'[data-evidence-id="{target.requirement_id}"]')
        assert boxes.count() == len(target.span.rects)
        width, height = 612, 792  # the test PDF's page size in points
        for i, (pno, x0, y0, x1, y1) in enumerate(target.span.rects):
            el = boxes.nth(i)
            assert el.get_attribute("data-page") == str(pno)
            got = el.evaluate("""(el) => { const p = el.parentElement.getBoundingClientRect(),
                                                  b = el.getBoundingClientRect();
                return [(b.left - p.left) / p.width, (b.top - p.top) / p.height,
                        (b.right - p.left) / p.width, (b.bottom - p.top) / p.height]; }""")
            assert got == pytest.approx([x0 / width, y0 / height, x1 / width, y1 / height], abs=0.004)
        page.close()

        # The same parameters on the root URL land on Review too.
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{url}?run={run.run_id}&evidence={target.requirement_id}")
        page.wait_for_url(re.compile(rf"/review\?.*evidence={target.requirement_id}"), timeout=60_000)
        expect_highlight(page, target.requirement_id, target.span.page)
        page.close()
    get_settings.cache_clear()


def test_grid_row_click_and_keyboard_shortcuts_move_the_highlight(tmp_path, browser, policy_pdf_path, monkeypatch):
    from workbench.config import get_settings
    from workbench.service import Workbench

    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "workspace"))
    get_settings.cache_clear()
    wb = Workbench(get_settings())
    doc = wb.ingest(policy_pdf_path, "policy.pdf", source_type="policy")
    run = seed_run(wb, doc.id, run_id="run-keys")
    first, second, third = (e.requirement_id for e in run.evidence)
    with AppServer(tmp_path / "workspace", log=tmp_path / "app.log") as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{url}review?run={run.run_id}&evidence={first}")
        expect_highlight(page, first, 1)

        grid = page.frame_locator("iframe[title*='aggrid' i]")
        grid.locator(".ag-row", has_text=second).first.click()
        expect_highlight(page, second, 2)
        # J at once, before the app has heard from the grid: the grid's late report of the row
        # it was clicked on must not move the selection back.
        page.get_by_role("heading", name="Review", exact=True).click()  # focus out of the grid's iframe
        page.keyboard.press("j")
        expect_highlight(page, third, 2)
        page.wait_for_url(re.compile(rf"evidence={third}"), timeout=30_000)
        streamlit_idle(page)
        expect_highlight(page, third, 2)
        page.keyboard.press("k")
        expect_highlight(page, second, 2)

        # Clicking another item's box on the page selects that item.
        page.locator(f'.wbv-hl.other[data-evidence-id="{third}"]').first.click()
        expect_highlight(page, third, 2)
        page.wait_for_url(re.compile(rf"evidence={third}"), timeout=30_000)
        streamlit_idle(page)
        expect_highlight(page, third, 2)

        # A page past the end: the viewer says so and stays where it was.
        box = page.get_by_role("textbox", name="Go to page")
        box.fill("99")
        box.press("Enter")
        expect(page.locator(".wbv-msg")).to_have_text(re.compile(r"No page .99.: this document has 2 pages"))
        assert box.input_value() == "99"
        expect_highlight(page, third, 2)
        page.close()
    get_settings.cache_clear()


def test_viewer_loads_pages_near_the_target_only_and_unloads_far_ones(tmp_path, browser, make_pdf, monkeypatch):
    from workbench.config import get_settings
    from workbench.models import Evidence, Run, Verification
    from workbench.service import Workbench

    n = 60
    pdf = make_pdf([f"Page {i} of the manual. Section {i} requires component {i} inspection every {i} days."
                    for i in range(1, n + 1)], name="manual.pdf")
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "workspace"))
    get_settings.cache_clear()
    wb = Workbench(get_settings())
    doc = wb.ingest(pdf, "manual.pdf", source_type="policy")
    span = wb.parsed(doc.id).locate("Section 50 requires component 50 inspection every 50 days")
    assert span is not None and span.page == 50
    rid = wb.store.assign_evidence_id(doc.id, span.start, span.end, "policy")
    wb.store.save_run(Run(run_id="run-lazy", question="When is component 50 inspected?", document_ids=[doc.id],
                          evidence=[Evidence(requirement_id=rid, source_type="policy", document_id=doc.id,
                                             exact_quote=span.text, chunk_id="c0", span=span)],
                          verifications=[Verification(requirement_id=rid, verified=True, score=0.9)]))
    requested: list[str] = []
    with AppServer(tmp_path / "workspace", log=tmp_path / "app.log") as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.on("request", lambda r: requested.append(r.url) if "/wbapi/page/" in r.url else None)
        page.goto(f"{url}review?run=run-lazy&evidence={rid}")
        expect_highlight(page, rid, 50)
        page.wait_for_timeout(1000)
        loaded = page.locator(".wbv-page img")
        assert 1 <= loaded.count() <= 12, loaded.count()
        assert page.locator('.wbv-page[data-page-number="1"] img').count() == 0
        assert requested and all(re.search(r"/(4[0-9]|5[0-9]|60)\?z=", u) for u in requested), requested

        page.locator(".wbv-scroll").evaluate("el => { el.scrollTop = 0; }")
        page.locator('.wbv-page[data-page-number="1"] img').wait_for(state="attached", timeout=30_000)
        page.wait_for_timeout(1000)
        assert page.locator('.wbv-page[data-page-number="50"] img').count() == 0  # far away now: unloaded
        assert page.locator(f'[data-evidence-id="{rid}"]').count() == len(span.rects)  # the box stays
        page.close()
    get_settings.cache_clear()


@pytest.mark.browser
@pytest.mark.slow
def test_a_citation_of_several_ids_gives_one_chip_per_id_each_showing_its_evidence_beside_the_answer(
        tmp_path, browser, policy_pdf_path, monkeypatch):
    from workbench.config import get_settings
    from workbench.models import SentenceSupport
    from workbench.service import Workbench

    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "workspace"))
    get_settings.cache_clear()
    wb = Workbench(get_settings())
    doc = wb.ingest(policy_pdf_path, "policy.pdf", source_type="policy")
    run = seed_run(wb, doc.id, run_id="run-two-ids")
    a, b = run.evidence[0], run.evidence[1]
    text = f"The organization must limit access and review audit records [{a.requirement_id}, {b.requirement_id}]."
    run.answer.final_answer = text
    run.answer.sentences = [SentenceSupport(text=text, citations=[a.requirement_id, b.requirement_id], supported=True)]
    wb.store.save_run(run)
    with AppServer(tmp_path / "workspace", log=tmp_path / "app.log") as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{url}answer?run={run.run_id}")
        page.get_by_role("heading", name="Answer", exact=True).wait_for(timeout=60_000)
        chips = page.locator("button.wb-chip")
        chips.first.wait_for(timeout=60_000)
        assert chips.all_inner_texts() == [a.requirement_id, b.requirement_id]
        expect_highlight(page, a.requirement_id, a.span.page)  # the first cited item, beside the answer
        page.locator("button.wb-chip", has_text=b.requirement_id).click()
        expect_highlight(page, b.requirement_id, b.span.page)
        # a's box is still drawn, quieter: the selected item alone is the target
        assert page.locator(f'.wbv-hl.other[data-evidence-id="{a.requirement_id}"]').count() >= 1
        assert "/answer" in page.url
        page.close()
    get_settings.cache_clear()


@pytest.mark.browser
@pytest.mark.slow
def test_the_reviewer_name_survives_a_browser_reload_but_is_never_put_in_the_url(tmp_path, browser):
    with AppServer(tmp_path / "workspace", log=tmp_path / "app.log") as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(url)
        field = page.get_by_role("textbox", name="Reviewer name")
        field.wait_for(timeout=60_000)
        field.fill("Dana Reviewer")
        field.press("Enter")
        streamlit_idle(page)
        # the component stores the name once it has rendered the rerun (seconds on a loaded machine)
        page.wait_for_function("() => localStorage.getItem('evidence-workbench.reviewer') === 'Dana Reviewer'",
                               timeout=60_000)
        page.reload()
        field = page.get_by_role("textbox", name="Reviewer name")
        field.wait_for(timeout=60_000)
        page.wait_for_function("() => [...document.querySelectorAll('input')].some(i => i.value === 'Dana Reviewer')",
                               timeout=60_000)
        assert "Dana" not in page.url
        page.close()


@pytest.mark.browser
@pytest.mark.slow
def test_over_two_contracts_each_chip_names_its_contract_and_opens_its_page(tmp_path, browser, corpus, monkeypatch):
    """Issue 39: every sentence names its contract; a chip's tooltip names it too, and a click
    lands on that contract's page with the quote highlighted."""
    from workbench.config import get_settings
    from workbench.service import Workbench

    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "workspace"))
    get_settings.cache_clear()
    wb = Workbench(get_settings())
    adams, cano = (wb.ingest(corpus / "cuad" / "pdf" / f, source_type="contract") for f in (
        "ADAMSGOLFINC_03_21_2005-EX-10.17-ENDORSEMENT AGREEMENT.PDF",
        "CANOPETROLEUM,INC_12_13_2007-EX-10.1-Sponsorship Agreement.PDF"))
    [run] = wb.ask(["Which state's law governs this agreement?"], [adams.id, cano.id])
    [kansas] = [s for s in run.answer.sentences if "Kansas" in s.text]
    ev = next(e for e in run.evidence if e.requirement_id == kansas.citations[0])
    wb.store.dispose()
    with AppServer(tmp_path / "workspace", log=tmp_path / "app.log") as url:
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto(f"{url}answer?run={run.run_id}")
        page.get_by_role("heading", name="Answer", exact=True).wait_for(timeout=60_000)
        chip = page.locator(f'button.wb-chip[data-citation="{ev.requirement_id}"]')
        chip.wait_for(timeout=60_000)
        expect(page.locator(".wb-answer")).to_contain_text("In the Adams Golf Endorsement Agreement: ")
        expect(page.locator(".wb-answer")).to_contain_text("In the Cano Petroleum Sponsorship Agreement: ")
        assert chip.get_attribute("title") == f"Open {ev.requirement_id} (Adams Golf Endorsement Agreement) in Review"
        assert page.locator(".wb-answer .wb-doc").count() == 2  # one paragraph per contract
        page.screenshot(path=str(tmp_path / "answer.png"))
        chip.click()  # lands beside the answer, on that contract's page
        expect_highlight(page, ev.requirement_id, ev.span.page)
        assert "/answer" in page.url
        # the viewer shows Adams Golf's PDF, its caption names it
        assert "ADAMSGOLF" in page.locator(".st-key-wb_viewer_pane .wbv-cap").inner_text()
        page.close()
    get_settings.cache_clear()
