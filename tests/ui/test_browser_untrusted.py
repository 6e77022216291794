"""Untrusted text stays text, in real Chromium (issue 10): a PDF whose text, title and file name
carry Markdown (a remote image, a badge, a link) goes through upload → run → Answer → Review with
the openai backend talking to a scripted model on 127.0.0.1 that replies with the same Markdown
(verdict rationale, answer sentences); then a hostile deep link is opened. Throughout:

- the browser asks nothing of any host but 127.0.0.1 (no remote image is fetched);
- no image, link, badge or coloured text is made from those strings: every time their words
  appear on screen, they appear with their Markdown characters around them, as plain text;
- the quote is shown character for character.

AppTest checks the Markdown source of every page (test_untrusted_text.py); this test checks
what the browser actually draws."""

from __future__ import annotations

import contextlib
import json
import re
import urllib.parse
from pathlib import Path

import pymupdf
import pytest

from tests.backends.fake_openai import FakeOpenAI, completion
from tests.ui.test_browser import browser, streamlit_idle  # noqa: F401 - the browser fixture
from workbench.ui.devserver import AppServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

IMAGE = "![x](http://203.0.113.5/t.png)"
BADGE = ":green-badge[VERIFIED]"
LINK = "[click here to re-authenticate](http://203.0.113.7/login)"
QUOTE = f"All passwords shall rotate every ninety days {IMAGE} {BADGE} {LINK} for every user account."
TITLE = f"Password policy {BADGE} {IMAGE}"
FILE_NAME = "![x](https:203.0.113.14).pdf"
MODEL_IMAGE = "![m](http://203.0.113.30/model.png)"
MODEL_BADGE = ":red-badge[APPROVED BY AUDIT]"
MODEL_LINK = "[renew your session](http://203.0.113.31/renew)"
DEEP_LINK = "![d](http://203.0.113.6/d.png) [Session expired, log in again](http://203.0.113.8/)"
QUESTION = "How often must passwords rotate?"

# (words a reader sees when Markdown is rendered, the full Markdown they must come with)
RENDERED_FORMS = [
    ("VERIFIED", BADGE), ("click here to re-authenticate", LINK),
    ("APPROVED BY AUDIT", MODEL_BADGE), ("renew your session", MODEL_LINK),
    ("Session expired, log in again", "[Session expired, log in again](http://203.0.113.8/)"),
]

# Images and links to anything but the app, and badges or coloured text whose words came from
# the hostile strings without their Markdown (the app's own colouring of a whole sentence is fine).
DOM_FINDINGS = """(forms) => {
  const out = [];
  const count = (s, sub) => s.split(sub).length - 1;
  const bad = (u) => u && !/^(data:|blob:|about:|http:\\/\\/127\\.0\\.0\\.1[:/]|\\/|#|\\?)/.test(u);
  for (const img of document.querySelectorAll('img')) {
    const src = img.getAttribute('src') || '';
    if (bad(src) || src.includes('203.0.113')) out.push('img ' + src);
  }
  for (const a of document.querySelectorAll('a[href]')) {
    if (a.getAttribute('href').includes('203.0.113')) out.push('link ' + a.getAttribute('href') + ' ' + a.textContent);
  }
  for (const el of document.querySelectorAll('[data-testid="stMarkdownBadge"], [data-testid="stMarkdownColoredText"], [class*="Badge"], [class*="ColoredText"]')) {
    const t = (el.textContent || '').replaceAll('\u2060', '');
    for (const [words, markdown] of forms) {
      if (count(t, words) !== count(t, markdown)) out.push('badge ' + t);
    }
  }
  return out;
}"""


def hostile_pdf(folder: Path) -> Path:
    """Wide enough that the hostile sentence is one line of text: the quote is one line too."""
    doc = pymupdf.open()
    page = doc.new_page(width=1224, height=792)
    page.insert_text((36, 72), "Section 4 Passwords", fontsize=10, fontname="helv")
    page.insert_text((36, 100), QUOTE, fontsize=10, fontname="helv")
    page.insert_text((36, 128), "Accounts are reviewed every quarter by the security office.", fontsize=10, fontname="helv")
    doc.set_metadata({"title": TITLE})
    path = folder / FILE_NAME
    doc.save(path)
    return path


def hostile_model(body):
    """A model whose replies carry Markdown: the quote as the PDF has it, a rationale with a
    remote image and a badge, answer sentences with a link, an image and a badge."""
    system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
    if "extraction specialist" in system:
        chunk = re.search(r'"chunk_id":\s*"([^"]+)"', user).group(1)
        return completion({"requirements": [{"chunk_id": chunk, "exact_quote": QUOTE,
                                             "section_heading": f"Heading {MODEL_LINK}"}]})
    if "verification specialist" in system:
        return completion({"verified": True, "score": 0.95,
                           "verification_rationale": f"Rotation is stated {MODEL_IMAGE} {MODEL_BADGE}"})
    if "summary writer" in system:
        ids = sorted(set(re.findall(r"REQ-[A-Z]+\d+", user)))
        return completion({"final_answer": f"Passwords rotate every ninety days {MODEL_BADGE} {MODEL_IMAGE} "
                                           f"{MODEL_LINK} [{ids[0]}]."})
    n = len(json.loads(user.split("Draft sentences to check (untrusted data):\n")[1].split("\n", 1)[1].rsplit("\n", 1)[0]))
    return completion({"sentences": [{"index": i, "supported": True} for i in range(n)]})


SHADOW_TEXT = """() => {
  const out = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) {
        for (const n of el.shadowRoot.children) {
          if (n.tagName !== 'STYLE' && n.tagName !== 'SCRIPT') out.push(n.innerText || '');
        }
        walk(el.shadowRoot);
      }
    }
  };
  walk(document);
  return out.join('\\n');
}"""


def everything_shown(page) -> str:
    """The text of the page and of every frame in it (the evidence grid is an iframe), as a reader
    sees it: without the invisible word joiners (U+2060) that workbench.ui.safe puts between
    Markdown characters in labels. Components with isolated styles (the answer with its chips)
    live in shadow roots, which `innerText` does not enter: their text is read too."""
    out = [page.locator("body").inner_text(timeout=5_000), page.evaluate(SHADOW_TEXT)]
    for frame in (f for f in page.frames if f != page.main_frame):
        with contextlib.suppress(Exception):  # a frame that went away while reading
            out.append(frame.locator("body").inner_text(timeout=5_000))
    return "\n".join(out).replace("\u2060", "")


def assert_nothing_rendered(page, where: str) -> None:
    forms = [list(f) for f in RENDERED_FORMS]
    findings = page.evaluate(DOM_FINDINGS, forms)  # the app itself: an error here fails the test
    for frame in (f for f in page.frames if f != page.main_frame):
        with contextlib.suppress(Exception):  # a frame that went away while reading
            findings += frame.evaluate(DOM_FINDINGS, forms)
    assert findings == [], f"{where}: rendered from untrusted text: {findings}"
    text = everything_shown(page)
    for words, markdown in RENDERED_FORMS:
        assert text.count(words) == text.count(markdown), (
            f"{where}: {words!r} is on screen without its Markdown around it (a badge or link was made)")


def wait_text(page, text: str, timeout: float = 60_000) -> None:
    """Wait for `text` on screen (as a reader sees it); on a timeout, fail showing the screen."""
    waited = 0.0
    while text not in everything_shown(page):
        if waited > timeout:
            raise AssertionError(f"{text!r} never appeared; the page says:\n{everything_shown(page)[-3000:]}")
        page.wait_for_timeout(500)
        waited += 500 + 100


def test_hostile_pdf_and_model_replies_stay_text_from_upload_to_review(tmp_path, browser):  # noqa: F811
    pdf = hostile_pdf(tmp_path)
    with FakeOpenAI(responder=hostile_model) as model, AppServer(
            tmp_path / "workspace", log=tmp_path / "app.log",
            env={"WORKBENCH_BACKEND": "openai", "OPENAI_BASE_URL": model.base_url, "OPENAI_API_KEY": "sk-test",
                 "WORKBENCH_MODEL": "fake-model", "WORKBENCH_LLM_TIMEOUT": "30"}) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        outside: list[str] = []
        page.on("request", lambda r: None if r.url.startswith(("http://127.0.0.1:", "data:", "blob:", "about:"))
                else outside.append(r.url))
        page.goto(url)
        page.get_by_role("heading", name="Documents", exact=True).wait_for(timeout=60_000)
        page.get_by_role("textbox", name="Reviewer name").fill("Dana")
        page.get_by_role("textbox", name="Reviewer name").press("Enter")
        streamlit_idle(page)

        # Upload: the file name is shown as typed.
        page.locator('input[type="file"]').first.set_input_files(str(pdf))
        wait_text(page, f"Source type of {FILE_NAME}")
        streamlit_idle(page)
        page.get_by_role("button", name="Ingest").click()
        wait_text(page, f"{FILE_NAME} ingested")
        streamlit_idle(page)
        assert_nothing_rendered(page, "Documents")

        # Run with the scripted model.
        page.get_by_role("link", name="Run").first.click()
        page.get_by_role("textbox", name="Question").fill(QUESTION)
        page.get_by_role("button", name="Run", exact=True).click()
        wait_text(page, "All stages complete", timeout=300_000)
        streamlit_idle(page)
        assert_nothing_rendered(page, "Run")
        assert any("extraction specialist" in r["messages"][0]["content"] for r in model.requests)

        # Answer: the model's sentence is text; its chip shows the quote beside it, then Review.
        page.get_by_role("link", name="Answer").first.click()
        chip = page.locator("button.wb-chip").first
        chip.wait_for(timeout=60_000)
        streamlit_idle(page)
        for markdown in (MODEL_BADGE, MODEL_IMAGE, MODEL_LINK):  # the model's sentence, as characters
            wait_text(page, markdown)
        assert_nothing_rendered(page, "Answer")
        evidence_id = chip.inner_text().strip()
        chip.click()
        page.locator(f'.wbv-hl.target[data-evidence-id="{evidence_id}"]').first.wait_for(timeout=60_000)
        page.get_by_role("link", name=f"Review {evidence_id}").click()
        page.wait_for_url(re.compile(rf"/review\?.*evidence={evidence_id}"), timeout=60_000)
        page.get_by_role("heading", name="Review", exact=True).wait_for()
        page.locator(f'.wbv-hl.target[data-evidence-id="{evidence_id}"]').first.wait_for(timeout=60_000)
        streamlit_idle(page)

        # Review: the quote character for character, the model's rationale as text.
        wait_text(page, QUOTE)
        wait_text(page, f"Rotation is stated {MODEL_IMAGE} {MODEL_BADGE}")
        wait_text(page, f"{FILE_NAME} · {evidence_id} is on p. 1")  # the viewer's caption, as text
        quotes = page.locator('[data-testid="stText"]').all_inner_texts()
        pdf_text = pymupdf.open(pdf)[0].get_text()
        assert QUOTE in quotes, quotes  # the sentence as the model quoted it, its final stop included
        assert QUOTE in pdf_text  # ...which is the PDF's own text, character for character
        assert_nothing_rendered(page, "Review")

        # A hostile deep link is reported without being rendered.
        run_id = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)["run"][0]
        page.goto(f"{url}review?run={urllib.parse.quote(run_id)}&evidence={urllib.parse.quote(DEEP_LINK)}")
        page.get_by_role("heading", name="Review", exact=True).wait_for(timeout=60_000)
        wait_text(page, f"The evidence named in the link ({DEEP_LINK}) is not part of this run")
        streamlit_idle(page)  # the reruns that follow (viewer, grid) keep the message on screen
        assert f"The evidence named in the link ({DEEP_LINK}) is not part of this run" in everything_shown(page)
        assert_nothing_rendered(page, "Review (deep link)")
        page.close()
    assert outside == [], f"the browser asked hosts other than 127.0.0.1: {outside}"


def test_review_of_a_giant_page_shows_its_image_within_the_pixel_cap(tmp_path, browser, monkeypatch):  # noqa: F811
    """A 14,400 × 14,400 pt page (the biggest PDF allows): Review opens on it and the viewer asks
    for a zoom the 25 MP cap allows; every page image answers 200 (2ffe163: 1.9 GB at zoom 1,
    HTTP 500 from zoom 1.5)."""
    from workbench.config import get_settings
    from workbench.models import Evidence, Run, Verification
    from workbench.service import Workbench

    sentence = "The giant page says that records are kept for seven years by the office."
    doc = pymupdf.open()
    doc.new_page(width=14_400, height=14_400).insert_text((72, 72), sentence, fontsize=11, fontname="helv")
    pdf = tmp_path / "giant.pdf"
    doc.save(pdf)
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "workspace"))
    get_settings.cache_clear()
    wb = Workbench(get_settings())
    d = wb.ingest(pdf, "giant.pdf", source_type="policy")
    span = wb.parsed(d.id).locate(sentence)
    rid = wb.store.assign_evidence_id(d.id, span.start, span.end, "policy")
    wb.store.save_run(Run(run_id="run-giant", question="How long are records kept?", document_ids=[d.id],
                          evidence=[Evidence(requirement_id=rid, source_type="policy", document_id=d.id,
                                             exact_quote=sentence, chunk_id="c0", span=span)],
                          verifications=[Verification(requirement_id=rid, verified=True, score=0.9,
                                                      verification_rationale="states the period")]))
    get_settings.cache_clear()
    with AppServer(tmp_path / "workspace", log=tmp_path / "app.log") as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        images: list[tuple[str, int]] = []
        page.on("response", lambda r: images.append((r.url, r.status)) if "/wbapi/page/" in r.url else None)
        page.goto(f"{url}review?run=run-giant&evidence={rid}")
        page.get_by_role("heading", name="Review", exact=True).wait_for(timeout=60_000)
        img = page.locator(".wbv-page img").first
        img.wait_for(state="attached", timeout=60_000)
        for _ in range(240):
            if img.evaluate("(el) => el.complete && el.naturalWidth > 0"):
                break
            page.wait_for_timeout(250)
        width, height = img.evaluate("(el) => [el.naturalWidth, el.naturalHeight]")
        assert width >= 4_000 and width * height <= 25_000_000
        assert images and all(status == 200 for _, status in images), images
        zooms = [float(urllib.parse.parse_qs(urllib.parse.urlparse(u).query)["z"][0]) for u, _ in images]
        assert all(z <= 0.35 for z in zooms), zooms  # asked within the cap, not at zoom ≥ 1
        page.close()
