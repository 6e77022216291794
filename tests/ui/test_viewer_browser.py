"""The viewer in real headless Chromium: zoom keeps each highlight on its quoted words (the words
under the box and the ink of the page image read back at every zoom level), page jump by
printed label and by number, keyboard navigation, the sticky full-height pane beside the grid,
and a text selection added as evidence (exact offsets → a cited, human-added item)."""

from __future__ import annotations

import io
import re

import pytest

from tests.ui.conftest import PAGE1, PAGE2, seed_run
from tests.ui.test_browser import browser, expect_highlight, streamlit_idle  # noqa: F401 - fixture
from workbench.ui.devserver import AppServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# The words of the text layer whose centre lies inside one of the target boxes, in reading
# order, and the same check against what the browser actually paints there (elementsFromPoint:
# the highlight box over the page image at that point).
WORDS_UNDER = """(id) => {
  const boxes = [...document.querySelectorAll('*')].map(h => h.shadowRoot).filter(Boolean)
      .flatMap(r => [...r.querySelectorAll(`.wbv-hl.target[data-evidence-id="${id}"]`)]);
  const rects = boxes.map(b => b.getBoundingClientRect());
  const page = boxes[0].parentElement, root = page.getRootNode();
  const out = [], painted = [];
  for (const w of page.querySelectorAll('.wbv-text span')) {
    const r = w.getBoundingClientRect(), cx = (r.left + r.right) / 2, cy = (r.top + r.bottom) / 2;
    if (!rects.some(b => cx >= b.left && cx <= b.right && cy >= b.top && cy <= b.bottom)) continue;
    out.push(w.textContent);
    const stack = root.elementsFromPoint(cx, cy);
    painted.push(stack.some(e => e.tagName === 'IMG' && e.parentElement === page));
  }
  return { words: out, painted: painted.every(Boolean) && painted.length > 0,
           boxes: rects.map(b => [b.left, b.top, b.width, b.height]) };
}"""


def norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text).split()).lower()


def viewer_attr(page, name: str) -> str:
    return page.locator(".wbv").first.get_attribute(name) or ""


def ink_fraction(page, box: list[float]) -> float:
    """Share of dark pixels in the screenshot of a box: the page image's text is under it."""
    from PIL import Image

    x, y, w, h = box
    png = page.screenshot(clip={"x": x, "y": y, "width": max(w, 1), "height": max(h, 1)})
    img = Image.open(io.BytesIO(png)).convert("L")
    px = list(img.getdata())
    return sum(1 for v in px if v < 110) / len(px)


def wait_images(page) -> None:
    page.wait_for_function("""() => [...document.querySelectorAll('*')].map(h => h.shadowRoot).filter(Boolean)
        .flatMap(r => [...r.querySelectorAll('.wbv-page img')]).every(i => i.complete && i.naturalWidth > 0)""",
                           timeout=30_000)
    page.wait_for_timeout(150)


def labelled_workspace(tmp_path, monkeypatch):
    """A six-page PDF whose /PageLabels print i, ii, 1, 2, 3, 4, and a run citing a quote on
    PDF page 5 (printed 3)."""
    import pymupdf

    from workbench.config import get_settings
    from workbench.models import Evidence, Run, Verification
    from workbench.service import Workbench

    texts = [f"Front matter page {i}. This report describes the control baseline." for i in (1, 2)]
    texts += [PAGE1, PAGE2 + " " + PAGE1, PAGE2, "Appendix. Terms and definitions for the glossary."]
    doc = pymupdf.open()
    for t in texts:
        doc.new_page(width=612, height=792).insert_textbox(pymupdf.Rect(72, 72, 540, 720), t, fontsize=11,
                                                           fontname="helv")
    doc.set_page_labels([{"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1},
                         {"startpage": 2, "prefix": "", "style": "D", "firstpagenum": 1}])
    pdf = tmp_path / "labelled.pdf"
    doc.save(pdf)
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "workspace"))
    get_settings.cache_clear()
    wb = Workbench(get_settings())
    d = wb.ingest(pdf, "labelled.pdf", source_type="policy")
    quote = "review and analyze system audit records weekly for indications of inappropriate or unusual activity"
    parsed = wb.parsed(d.id)
    span = parsed.locate(quote, near=parsed.pages[4].start)
    assert span is not None and span.page == 5 and span.page_label == "3" and len(span.rects) == 2
    rid = wb.store.assign_evidence_id(d.id, span.start, span.end, "policy")
    wb.store.save_run(Run(run_id="run-zoom", question="How often are audit records reviewed?", document_ids=[d.id],
                          evidence=[Evidence(requirement_id=rid, source_type="policy", document_id=d.id,
                                             exact_quote=quote, chunk_id="c0", span=span)],
                          verifications=[Verification(requirement_id=rid, verified=True, score=0.9)]))
    return wb, rid, quote


def test_zoom_keeps_the_highlight_on_the_quoted_words_and_pages_jump_by_printed_label(
        tmp_path, browser, monkeypatch):  # noqa: F811
    from workbench.config import get_settings

    _, rid, quote = labelled_workspace(tmp_path, monkeypatch)
    with AppServer(tmp_path / "workspace", log=tmp_path / "app.log") as url:
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto(f"{url}review?run=run-zoom&evidence={rid}")
        expect_highlight(page, rid, 5)
        page.locator(".wbv-text span").first.wait_for(state="attached", timeout=30_000)
        assert page.locator(".wbv-pageno").input_value() == "5"
        assert page.locator(".wbv-label").inner_text() == "printed p. 3"
        assert page.locator(".wbv-of").inner_text() == "of 6"

        def check(what: str) -> tuple[float, float]:
            expect_highlight(page, rid, 5)
            wait_images(page)
            got = page.evaluate(WORDS_UNDER, rid)
            assert norm(" ".join(got["words"])) == norm(quote), (what, got["words"])
            assert got["painted"], f"{what}: the page image is not under the highlighted words"
            for box in got["boxes"]:
                assert ink_fraction(page, box) > 0.03, f"{what}: no printed text under the box {box}"
            return float(viewer_attr(page, "data-zoom")), got["boxes"][0][2]

        zooms = [check("fit width")]
        page.get_by_role("button", name="Zoom in").click()
        page.get_by_role("button", name="Zoom in").click()
        zooms.append(check("zoomed in twice"))
        scroll = page.locator(".wbv-scroll")
        box = scroll.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.keyboard.down("Control")
        for _ in range(4):
            page.mouse.wheel(0, 100)
            page.wait_for_timeout(100)
        page.keyboard.up("Control")
        zooms.append(check("Ctrl+wheel out"))
        page.get_by_role("button", name="Fit page").click()
        zooms.append(check("fit page"))
        levels = [z for z, _ in zooms]
        assert len(set(levels)) == 4 and levels[1] > levels[0] > levels[2], levels
        for z, width in zooms:  # the box is the same words at every zoom: its width follows the zoom
            assert width / z == pytest.approx(zooms[0][1] / zooms[0][0], rel=0.03)
        assert viewer_attr(page, "data-fit") == "page"

        # Page jump: a printed label, then a PDF number; "page N of M" follows.
        field = page.get_by_role("textbox", name="Go to page")
        field.fill("ii")
        field.press("Enter")
        page.wait_for_function("() => [...document.querySelectorAll('*')].map(h => h.shadowRoot).filter(Boolean)"
                               ".some(r => r.querySelector('.wbv')?.dataset.current === '2')", timeout=10_000)
        top = page.evaluate("""() => { const r = [...document.querySelectorAll('*')].map(h => h.shadowRoot)
            .filter(Boolean).find(r => r.querySelector('.wbv'));
            const s = r.querySelector('.wbv-scroll').getBoundingClientRect(),
                  p = r.querySelector('.wbv-page[data-page-number="2"]').getBoundingClientRect();
            return p.top - s.top; }""")
        assert 0 <= top <= 30, top
        assert page.locator(".wbv-pageno").input_value() == "2"
        assert page.locator(".wbv-label").inner_text() == "printed p. ii"
        field.fill("6")
        field.press("Enter")
        page.wait_for_function("() => [...document.querySelectorAll('*')].map(h => h.shadowRoot).filter(Boolean)"
                               ".some(r => r.querySelector('.wbv')?.dataset.current === '6')", timeout=10_000)
        assert page.locator(".wbv-label").inner_text() == "printed p. 4"

        # Keyboard: ← / → move a page, + zooms, 0 fits the width again.
        scroll.focus()
        page.keyboard.press("ArrowLeft")
        assert viewer_attr(page, "data-current") == "5"
        page.keyboard.press("ArrowLeft")
        assert viewer_attr(page, "data-current") == "4"
        before = float(viewer_attr(page, "data-zoom"))
        page.keyboard.press("+")
        assert float(viewer_attr(page, "data-zoom")) > before
        page.keyboard.press("0")
        assert viewer_attr(page, "data-fit") == "width"
        assert float(viewer_attr(page, "data-zoom")) == pytest.approx(zooms[0][0], abs=0.002)
        page.close()
    get_settings.cache_clear()


def test_the_viewer_stays_beside_the_grid_and_a_selection_becomes_cited_evidence(
        tmp_path, browser, make_pdf, monkeypatch):  # noqa: F811
    from workbench.config import get_settings
    from workbench.service import Workbench

    pdf = make_pdf([PAGE1, PAGE2], name="policy.pdf", fontsize=10)  # a contract's smallest body text
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "workspace"))
    get_settings.cache_clear()
    wb = Workbench(get_settings())
    doc = wb.ingest(pdf, "policy.pdf", source_type="policy")
    run = seed_run(wb, doc.id, run_id="run-select")
    first = run.evidence[0].requirement_id
    with AppServer(tmp_path / "workspace", log=tmp_path / "app.log") as url:
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto(f"{url}review?run={run.run_id}&evidence={first}")
        expect_highlight(page, first, 1)
        # Readable at 1440 × 900 with the sidebar open: "Fit width" (the default) draws 10 pt text
        # at least 11 CSS px tall, fits 90 % without sideways scrolling, and really fits.
        assert page.get_by_test_id("stSidebar").is_visible()
        zoom = float(viewer_attr(page, "data-zoom"))
        assert 10 * 96 / 72 * zoom >= 11 and zoom >= 0.9, zoom
        assert page.locator(".wbv-scroll").first.evaluate("el => el.scrollWidth <= el.clientWidth")
        name = page.get_by_role("textbox", name="Reviewer name")
        name.fill("Dana")
        name.press("Enter")
        streamlit_idle(page)

        # The page scrolls (the grid, the card, the history); the viewer stays whole in the window.
        pane = "() => { const b = document.querySelector('.st-key-wb_viewer_pane').getBoundingClientRect(); " \
               "return [b.top, b.bottom, window.innerHeight]; }"
        main = page.locator('[data-testid="stMain"]')
        height = main.evaluate("el => el.scrollHeight - el.clientHeight")
        assert height > 200, "the page must scroll for this check to mean anything"
        for y in (height // 2, height):
            main.evaluate(f"el => {{ el.scrollTop = {y}; }}")
            page.wait_for_timeout(300)
            top, bottom, inner = page.evaluate(pane)
            assert top >= 0 and bottom <= inner, (y, top, bottom, inner)
            assert bottom - top > 0.8 * inner, "the viewer uses the window's height"
        main.evaluate("el => { el.scrollTop = 0; }")

        # Select words the pipeline did not extract and add them as evidence.
        words = page.locator('.wbv-page[data-page-number="1"] .wbv-text span')
        words.first.wait_for(state="attached", timeout=30_000)
        texts = words.all_inner_texts()
        i = texts.index("Accounts")
        j = texts.index("quarter.")
        a, b = words.nth(i).bounding_box(), words.nth(j).bounding_box()
        page.mouse.move(a["x"] + 1, a["y"] + a["height"] / 2)
        page.mouse.down()
        page.mouse.move(b["x"] + b["width"] - 1, b["y"] + b["height"] / 2, steps=8)
        page.mouse.up()
        add = page.get_by_role("button", name="Add as evidence")
        add.wait_for(state="visible", timeout=10_000)
        text = wb.parsed(doc.id).text
        want_start = text.index("Accounts are reviewed")
        want_end = text.index("quarter.", want_start) + len("quarter.")
        assert int(viewer_attr(page, "data-sel-start")) == want_start
        assert int(viewer_attr(page, "data-sel-end")) in (want_end, want_end - 1)  # with or without the period
        add.click()
        page.get_by_text(re.compile(r"REQ-P\d{3} added as evidence \(p\. 1\), Supported by Dana")).wait_for(
            timeout=30_000)

        rr = wb.reviewed(run.run_id)
        (added,) = [s for s in rr.statuses if s.human_added]
        ev = added.evidence
        assert ev.span.page == 1 and ev.span.start == want_start and ev.span.rects
        assert ev.exact_quote.startswith("Accounts are reviewed every quarter")
        from workbench.models import sha256_text
        assert ev.span.text_sha256 == sha256_text(ev.exact_quote) and added.reviewer == "Dana"
        expect_highlight(page, ev.requirement_id, 1)  # now the selected item, boxed on its words
        assert any(ev.requirement_id in s.citations for s in wb.answer_view(run.run_id).sentences)

        page.get_by_role("link", name="Answer").first.click()
        page.locator("button.wb-chip", has_text=ev.requirement_id).wait_for(timeout=60_000)
        page.close()
    get_settings.cache_clear()


def test_a_run_goes_on_while_the_reviewer_is_elsewhere_and_reloads_and_is_there_when_they_return(
        tmp_path, browser, make_pdf, monkeypatch):  # noqa: F811
    from workbench.config import get_settings
    from workbench.service import Workbench

    # Fifteen pages: the first question builds the document's index, which takes a few seconds.
    pages = [" ".join(f"Section {i}.{j}: the operator shall inspect component {i}-{j} every {j + 2} days and "
                      "record the result in the maintenance log." for j in range(10)) for i in range(15)]
    pdf = make_pdf(pages, name="manual.pdf", fontsize=10)
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "workspace"))
    get_settings.cache_clear()
    wb = Workbench(get_settings())
    wb.ingest(pdf, "manual.pdf", source_type="policy")
    question = "How often must component 3-4 be inspected?"
    with AppServer(tmp_path / "workspace", log=tmp_path / "app.log") as url:
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto(f"{url}run")
        page.get_by_role("textbox", name="Question").fill(question)
        page.get_by_role("button", name="Run", exact=True).click()
        page.get_by_text("Running…").first.wait_for(timeout=30_000)

        # Away to another page mid-run: the sidebar shows the run's stage there; then a reload.
        page.get_by_role("link", name="Documents").first.click()
        page.get_by_role("heading", name="Documents", exact=True).wait_for(timeout=30_000)
        page.get_by_text(re.compile(r"Run (queued|running)")).first.wait_for(timeout=30_000)
        assert wb.runs() == [], "the run is not finished yet: this checks a run that outlives its page"
        page.reload()
        page.get_by_role("heading", name="Documents", exact=True).wait_for(timeout=30_000)

        # Back on Run (a fresh session after the reload): the finished run and its answer.
        page.get_by_role("link", name="Run").first.click()
        page.get_by_text("All stages complete").wait_for(timeout=300_000)
        page.get_by_role("heading", name="Results").wait_for(timeout=30_000)
        # The card: the question, the documents searched, the answer's badge (the page may still
        # be drawing it when the heading appears).
        page.wait_for_function("""(q) => { const t = document.querySelector('[data-testid="stMain"]').innerText;
            const r = t.split('Results')[1] || '';
            return r.includes(q) && r.includes('manual.pdf')
                && /% of sentences supported|No authoritative evidence/.test(r); }""", arg=question, timeout=30_000)
        (run,) = wb.runs()
        assert run.question == question
        page.close()
    get_settings.cache_clear()


def test_after_a_citation_click_review_knows_the_reviewer_name(tmp_path, browser, make_pdf, monkeypatch):  # noqa: F811
    from workbench.config import get_settings
    from workbench.service import Workbench

    pdf = make_pdf([PAGE1, PAGE2], name="policy.pdf")
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "workspace"))
    get_settings.cache_clear()
    wb = Workbench(get_settings())
    doc = wb.ingest(pdf, "policy.pdf", source_type="policy")
    seed_run(wb, doc.id, run_id="run-name")
    with AppServer(tmp_path / "workspace", log=tmp_path / "app.log") as url:
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto(f"{url}answer?run=run-name")
        name = page.get_by_role("textbox", name="Reviewer name")
        name.wait_for(timeout=60_000)
        name.fill("Dana")
        name.press("Enter")
        page.wait_for_timeout(1500)
        chip = page.locator("button.wb-chip").first
        ev_id = chip.inner_text().strip()
        chip.click()
        page.get_by_role("link", name=f"Review {ev_id}").click()
        page.get_by_role("heading", name="Review", exact=True).wait_for(timeout=60_000)
        streamlit_idle(page)
        page.wait_for_timeout(1000)
        assert page.get_by_text("Enter your Reviewer name").count() == 0, "a false prompt for the name"
        page.close()
    get_settings.cache_clear()
