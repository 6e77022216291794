"""Drive the app through every page in headless Chromium at 1440 × 900 and write docs/img/page-<name>.png.

Starts the app (the same entry as `make run`) on a free 127.0.0.1 port with a fresh workspace,
loads the sample document, asks a question, opens the answer, clicks a citation chip (the
viewer beside the answer shows it), opens it in Review, labels the evidence, checks a short draft, and photographs each page on the way.

    .venv/bin/python scripts/screenshots.py [--out docs/img] [--question "..."]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.ui.devserver import CHROMIUM_ARGS, AppServer  # noqa: E402

QUESTION = "What is required for multifactor authentication?"
DRAFT = ("Multifactor authentication is required for local and network access to privileged accounts.\n"
         "Audit records are retained for exactly seven years.\n"
         "Organizations must limit system access to authorized users.")


def settle(page, ms: int = 800) -> None:
    """Wait until Streamlit is idle (no 'Running' indicator), then a little for paint."""
    page.wait_for_timeout(300)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=120_000)
    page.wait_for_timeout(ms)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    ap.add_argument("--question", default=QUESTION)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    data = Path(tempfile.mkdtemp(prefix="wb-shots-"))
    with AppServer(data / "workspace", log=data / "app.log") as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto(url)
        page.get_by_role("heading", name="Documents", exact=True).wait_for(timeout=60_000)
        page.get_by_role("textbox", name="Reviewer name").fill("Dana Reviewer")
        page.get_by_role("textbox", name="Reviewer name").press("Enter")
        page.get_by_role("button", name="Load the sample document").click()
        page.get_by_text("ingested").first.wait_for(timeout=120_000)
        settle(page, 2500)
        shot(page, args.out, "documents")

        page.get_by_role("link", name="Run").first.click()
        page.get_by_role("textbox", name="Question").fill(args.question)
        page.get_by_role("button", name="Run", exact=True).click()
        page.get_by_text("All stages complete").wait_for(timeout=300_000)
        settle(page)
        shot(page, args.out, "run")

        page.get_by_role("link", name="Answer").first.click()
        settle(page, 1500)
        chips = page.locator("button.wb-chip")
        if chips.count() > 1:  # the viewer beside the answer follows the chip
            chips.nth(1).click()
            settle(page, 1500)
        shot(page, args.out, "answer")

        if chips.count():
            ev_id = chips.nth(min(1, chips.count() - 1)).inner_text().strip()
            page.get_by_role("link", name=f"Review {ev_id}").click()
            page.get_by_role("heading", name="Review", exact=True).wait_for(timeout=60_000)
            settle(page, 2500)
            page.get_by_role("button", name=re.compile(r"^Supported")).click()
            settle(page, 2500)
        else:
            page.get_by_role("link", name="Review").first.click()
            settle(page, 2500)
        shot(page, args.out, "review")

        page.get_by_role("link", name="Check a draft").first.click()
        page.get_by_role("textbox", name="Draft").fill(DRAFT)
        page.get_by_role("button", name="Check the draft").click()
        page.get_by_text(re.compile(r"% of sentences supported")).first.wait_for(timeout=300_000)
        settle(page, 1500)
        shot(page, args.out, "check")

        page.get_by_role("link", name="Dashboard").first.click()
        settle(page, 1000)
        page.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=60_000)
        page.wait_for_timeout(2000)
        shot(page, args.out, "dashboard")

        page.get_by_role("link", name="Export").first.click()
        settle(page, 1500)
        shot(page, args.out, "export")
        browser.close()


def shot(page, out: Path, name: str) -> None:
    path = out / f"page-{name}.png"
    page.evaluate("() => { const m = document.querySelector('[data-testid=\"stMain\"]'); if (m) m.scrollTo(0, 0); "
                  "window.scrollTo(0, 0); }")
    page.mouse.move(5, 5)  # no hover tooltips in the picture
    page.wait_for_timeout(600)
    # Viewport, not full_page: a full-page capture resizes the page and loses the canvas grids.
    page.screenshot(path=str(path))
    print(path)


if __name__ == "__main__":
    main()
