"""Click → highlight in the app `make run` serves, in headless Chromium at 1440 × 900.

Seeds a workspace (a CUAD contract and, with --book, the 352-page Free Culture book), asks one
question per document through the service (the real pipeline), starts the app as `make run`
does (serve.py through workbench.ui.devserver's command) and measures, warm, from the user's
gesture (a capture listener's timestamp) to the cited quote's highlight box drawn as the target,
inside the viewer's visible area, over a decoded page image:

- chip: a citation chip on the Answer page,
- row: a row of the evidence grid on Review,
- jk: the J key on Review (next item),
- link: a deep link (/review?run=…&evidence=…) opened in the same tab (a full page load), until the
  quote's highlight is in view over a decoded page image: the deep link's first paint (drawn from
  the HTML while Streamlit boots, workbench/ui/viewer/preview.py) or the viewer, whichever is
  first; link_viewer: until the viewer's own highlight is (Streamlit booted, the page's script run).

With --cross, a third case: one run over two contracts (CONTRACT and CONTRACT2, one question),
every gesture landing in the other document than the one shown: J/K at the documents' boundary
(xjk), grid rows of the two documents in turn (xrow), chips of the two documents in turn (xchip).

`--tree DIR` (repeatable) measures another checkout of the app (e.g. the commit before a change,
extracted with `git archive REV | tar -x -C DIR`) against the same workspace, in the same run,
so before/after share the machine's load. The load average is printed beside every figure.

    .venv/bin/python -m bench.bench_click [--tree /tmp/before] [--clicks 20] [--book]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bench.common import CORPUS, ROOT

CONTRACT = CORPUS / "cuad" / "pdf" / "ADAMSGOLFINC_03_21_2005-EX-10.17-ENDORSEMENT AGREEMENT.PDF"
CONTRACT_Q = "What must Adams Golf pay the consultant and when?"
CONTRACT2 = CORPUS / "cuad" / "pdf" / "ADIANUTRITION,INC_04_01_2005-EX-10.D2-RESELLER AGREEMENT.PDF"
CROSS_Q = ["How can this agreement be terminated?", "Which state's law governs this agreement?"]
BOOK = CORPUS / "pdfs" / "large" / "freeculture_Lessig.pdf"
BOOK_Q = "How does copyright law affect creativity?"
CHROMIUM = "/usr/bin/chromium"

# The gesture's time, taken in the capture phase before any handler runs (the grid lives in an
# iframe: its document reports to the parent's clock).
# Registered before the app's own scripts (an init script), on window in the capture phase: the
# first listener any gesture meets, whatever the app's handlers then stop.
MARK_INIT = """
window.__clickAt = null;
for (const type of ['pointerdown', 'keydown'])
  window.addEventListener(type, () => { window.__clickAt = performance.now(); }, true);
"""
MARK = """() => {
  const mark = () => { window.__clickAt = performance.now(); };
  for (const f of document.querySelectorAll('iframe')) {
    try {
      const d = f.contentDocument;
      if (d && !d.__wbMarked) { d.__wbMarked = true; d.addEventListener('pointerdown', mark, true); }
    } catch (_) {}
  }
  window.__clickAt = null;
}"""
# The target highlight for `id` (or any id but `not`), in view over a decoded image: ms since the gesture.
LANDED = """([id, not]) => {
  if (window.__clickAt == null) return false;
  const q = (sel) => {
    const out = [...document.querySelectorAll(sel)];
    for (const h of document.querySelectorAll('*')) if (h.shadowRoot) out.push(...h.shadowRoot.querySelectorAll(sel));
    return out;
  };
  for (const el of q('.wbv-hl.target')) {
    const eid = el.dataset.evidenceId;
    if ((id && eid !== id) || (not && eid === not)) continue;
    const img = el.parentElement.querySelector('img');
    if (!(img && img.complete && img.naturalWidth > 0)) continue;
    const box = el.getBoundingClientRect(), view = el.closest('.wbv-scroll').getBoundingClientRect();
    if (box.height > 0 && box.top >= view.top - 1 && box.bottom <= view.bottom + 1
        && box.top >= 0 && box.bottom <= window.innerHeight) return {ms: performance.now() - window.__clickAt, id: eid};
  }
  return false;
}"""
# A deep link's first paint: its target box over its decoded image, inside the window.
FIRST_PAINT = """(id) => {
  const el = document.querySelector('#wb-first-paint .wbp-hl.target');
  const img = el && el.parentElement.querySelector('img');
  if (!(img && img.complete && img.naturalWidth > 0)) return false;
  const box = el.getBoundingClientRect();
  return box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight && performance.now();
}"""
IDLE = "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
# A page opened on a deep link records, on every frame from its first, when the named evidence's
# highlight is first in view (the first paint or the viewer: `first`) and when the viewer's own is
# (`viewer`), in ms since the navigation began: exact, whatever Playwright's round trips cost.
LINK_WATCH = f"""
(function () {{
  const want = new URLSearchParams(location.search).get('evidence');
  if (!want || window.top !== window) return;
  const painted = {FIRST_PAINT};
  const viewer = {LANDED.replace("if (window.__clickAt == null) return false;", "const at0 = 0;")
                  .replace("performance.now() - window.__clickAt", "performance.now() - at0")};
  const at = window.__wbAt = {{}};
  const tick = () => {{
    if (document.body) {{
      const v = viewer([want, null]);
      if (at.first == null && (v || painted(want))) {{
        at.first = performance.now();
        at.kind = v ? 'viewer' : 'first paint';
        const nav = performance.getEntriesByType('navigation')[0];
        at.html = nav ? nav.responseEnd : null;
        const img = performance.getEntriesByType('resource').filter(e => e.name.includes('/wbapi/page/'))[0];
        at.img = img ? [img.startTime, img.responseEnd] : null;
      }}
      if (v) {{ at.viewer = performance.now(); return; }}
    }}
    requestAnimationFrame(tick);
  }};
  requestAnimationFrame(tick);
}})();
"""


def seed(data_dir: Path, book: bool, cross: bool = False) -> list[dict]:
    """Ingest, ask; return one case per document: its run id, the cited and all evidence ids."""
    os.environ["WORKBENCH_DATA_DIR"] = str(data_dir)
    os.environ.pop("WORKBENCH_DATABASE_URL", None)
    from workbench.config import get_settings
    from workbench.service import Workbench

    get_settings.cache_clear()
    wb = Workbench(get_settings())
    cases = []
    for pdf, q, kind in [(CONTRACT, CONTRACT_Q, "contract")] + ([(BOOK, BOOK_Q, "other")] if book else []):
        doc = wb.ingest(pdf, pdf.name, source_type=kind)
        (run,) = wb.ask([q], [doc.id])
        reviewed = wb.reviewed(run.run_id)
        cited = [r.requirement_id for r in reviewed.answer.requirement_references if r.used_in_answer]
        ids = [s.evidence.requirement_id for s in reviewed.statuses if s.evidence.span]
        cases.append({"name": f"{pdf.name[:40]} ({doc.pages} pages)", "run": run.run_id, "cited": cited,
                      "ids": ids, "pages": doc.pages})
        print(f"seeded {pdf.name}: {len(ids)} evidence items, {len(cited)} cited", flush=True)
    if cross:
        docs = [wb.ingest(pdf, pdf.name, source_type="contract") for pdf in (CONTRACT, CONTRACT2)]
        for q in CROSS_Q:  # the first question whose evidence and citations span both contracts
            (run,) = wb.ask([q], [d.id for d in docs])
            reviewed = wb.reviewed(run.run_id)
            doc_of = {s.evidence.requirement_id: s.evidence.document_id for s in reviewed.statuses
                      if s.evidence.span}
            cited = [r.requirement_id for r in reviewed.answer.requirement_references
                     if r.used_in_answer and r.requirement_id in doc_of]
            if len(set(doc_of.values())) == 2 and len({doc_of[c] for c in cited}) == 2:
                break
        else:
            raise SystemExit("no question cites both contracts: the cross-document case cannot run")
        order = [s.evidence.requirement_id for s in wb.review_queue(run.run_id, "document") if s.evidence.span]
        cases.append({"name": "two contracts, cross-document", "run": run.run_id, "cited": cited, "ids": order,
                      "doc_of": doc_of, "cross": True})
        print(f"seeded two contracts: {len(order)} evidence items, {len(cited)} cited, question {q!r}", flush=True)
    wb.store.dispose()
    return cases


class Server:
    """The app from one checkout, started the way `make run` starts it."""

    def __init__(self, tree: Path, data_dir: Path, log: Path):
        self.tree, self.data_dir, self.log = tree, data_dir, log

    def __enter__(self) -> str:
        from workbench.ui.devserver import free_port

        port = free_port()
        cmd = [sys.executable, "-m", "streamlit", "run", str(self.tree / "serve.py"), "--server.port", str(port),
               "--server.headless", "true", "--browser.gatherUsageStats", "false",
               "--logger.hideWelcomeMessage", "true", "--server.address", "127.0.0.1"]
        env = {k: v for k, v in os.environ.items() if k != "WORKBENCH_DATABASE_URL"}
        env.update(WORKBENCH_DATA_DIR=str(self.data_dir), PYTHONPATH=str(self.tree))
        self.proc = subprocess.Popen(cmd, cwd=self.tree, env=env, stdout=open(self.log, "wb"),  # noqa: SIM115
                                     stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}/"
        for _ in range(300):
            try:
                urllib.request.urlopen(url + "_stcore/health", timeout=1)
                return url
            except OSError:
                time.sleep(0.3)
        raise SystemExit(f"the app from {self.tree} did not start (log: {self.log})")

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def settle(page) -> None:
    page.wait_for_timeout(200)
    page.wait_for_function(IDLE, timeout=120_000)
    page.wait_for_timeout(300)


def landed(page, want: str | None = None, not_: str | None = None) -> float:
    h = page.wait_for_function(LANDED, arg=[want, not_], timeout=60_000, polling="raf")
    return h.json_value()["ms"] / 1000


def alternate(ids: list[str], doc_of: dict[str, str]) -> list[str]:
    """Ids in turn from the two documents, each next one in the other document."""
    a = [i for i in ids if doc_of[i] == doc_of[ids[0]]]
    b = [i for i in ids if doc_of[i] != doc_of[ids[0]]]
    return [x for pair in zip(a * 4, b * 4, strict=False) for x in pair]


def measure_cross(url: str, case: dict, clicks: int, warmup: int) -> dict[str, list[float]]:
    """Gestures that land in the other document than the one shown."""
    from playwright.sync_api import sync_playwright

    from workbench.ui.devserver import CHROMIUM_ARGS

    out: dict[str, list[float]] = {"xjk": [], "xrow": [], "xchip": []}
    run, ids, doc_of = case["run"], case["ids"], case["doc_of"]
    last_a = max(i for i, r in enumerate(ids) if doc_of[r] == doc_of[ids[0]])
    boundary = [ids[last_a], ids[last_a + 1]]  # J from the first crosses, K from the second
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.add_init_script(MARK_INIT)
        page.goto(f"{url}review?run={run}&evidence={boundary[0]}")
        page.get_by_role("heading", name="Review", exact=True).wait_for(timeout=120_000)
        landed_after_load(page, boundary[0])
        settle(page)
        page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.focus(); }")
        for i in range(warmup + clicks):
            key, want = ("j", boundary[1]) if i % 2 == 0 else ("k", boundary[0])
            page.evaluate(MARK)
            page.keyboard.press(key)
            ms = landed(page, want)
            if i >= warmup:
                out["xjk"].append(ms)
            settle(page)

        grid = page.frame_locator("iframe[title*='aggrid' i]")
        grid.locator(".ag-row").first.wait_for(timeout=60_000)
        # Rows the grid shows without scrolling (the first 8), the two documents in turn.
        shown_rows = [grid.locator(f".ag-center-cols-container .ag-row[row-index='{k}'] [col-id='ID']")
                      .inner_text().strip() for k in range(min(8, len(ids)))]
        turns = alternate(sorted(shown_rows, key=ids.index), doc_of)
        for i in range(warmup + clicks):
            want = turns[(i + 1) % len(turns)]
            page.evaluate(MARK)
            grid.locator(".ag-row [col-id='ID']", has_text=want).first.click()
            ms = landed(page, want)
            if i >= warmup:
                out["xrow"].append(ms)
            settle(page)

        page.goto(f"{url}answer?run={run}")
        page.locator("button.wb-chip").first.wait_for(timeout=60_000)
        settle(page)
        chips = alternate(case["cited"], doc_of)
        shown = page.evaluate("""() => { for (const h of document.querySelectorAll('*')) if (h.shadowRoot) {
            const t = h.shadowRoot.querySelector('.wbv-hl.target'); if (t) return t.dataset.evidenceId; }
            return null; }""")
        start = next((k for k, c in enumerate(chips) if doc_of[c] != doc_of.get(shown, "")), 0)
        for i in range(warmup + clicks):
            want = chips[(start + i) % len(chips)]
            page.evaluate(MARK)
            page.locator("button.wb-chip", has_text=want).first.click()
            ms = landed(page, want)
            if i >= warmup:
                out["xchip"].append(ms)
            settle(page)
        browser.close()
    return out


def measure(url: str, case: dict, clicks: int, warmup: int, shots: Path | None, tag: str,
            link_only: bool = False) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    from workbench.ui.devserver import CHROMIUM_ARGS

    out: dict[str, list[float]] = {"chip": [], "row": [], "jk": [], "link": [], "link_viewer": [], "link_html": [],
                                   "link_img_asked": [], "link_img_came": [], "link_by_first_paint": []}
    run, ids = case["run"], case["ids"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.add_init_script(MARK_INIT)
        page.add_init_script(LINK_WATCH)
        # Warm the server and the browser's cache of the app's scripts.
        page.goto(f"{url}review?run={run}&evidence={ids[0]}")
        page.get_by_role("heading", name="Review", exact=True).wait_for(timeout=120_000)
        landed_after_load(page, ids[0])
        settle(page)

        # Deep link: a full load of /review naming the evidence.
        for i in range(warmup + max(5, clicks // 2)):
            want = ids[(i * 3 + 1) % len(ids)]
            # Times taken in the page by LINK_WATCH (ms since the navigation began).
            page.goto(f"{url}review?run={run}&evidence={want}", wait_until="commit")
            at = page.wait_for_function("() => window.__wbAt && window.__wbAt.viewer != null && window.__wbAt",
                                        timeout=60_000).json_value()
            if i >= warmup:
                out["link"].append(at["first"] / 1000)
                out["link_viewer"].append(at["viewer"] / 1000)
                # where the first highlight's time went: the HTML received, its image asked for and
                # received (the first request for a page image), whether the first paint drew it
                out["link_html"].append((at.get("html") or 0) / 1000)
                if at.get("img"):
                    out["link_img_asked"].append(at["img"][0] / 1000)
                    out["link_img_came"].append(at["img"][1] / 1000)
                out["link_by_first_paint"].append(1.0 if at.get("kind") == "first paint" else 0.0)
            settle(page)
        if shots:
            page.screenshot(path=str(shots / f"review-{tag}.png"))
        if link_only:
            browser.close()
            return out

        # Grid rows.
        grid = page.frame_locator("iframe[title*='aggrid' i]")
        has_iframe = page.locator("iframe[title*='aggrid' i]").count() > 0
        rows = grid.locator(".ag-row") if has_iframe else page.locator("[data-wb-row]")
        rows.first.wait_for(timeout=60_000)
        n_rows = rows.count()
        prev = None
        for i in range(warmup + clicks):
            row = rows.nth((i * 2 + 1) % min(n_rows, 8))
            want = (row.get_attribute("data-wb-row") if not has_iframe
                    else row.locator("[col-id='ID']").inner_text().strip())
            if want == prev:
                continue
            page.evaluate(MARK)
            row.locator("[col-id='ID']").click() if has_iframe else row.click()
            ms = landed(page, want)
            if i >= warmup:
                out["row"].append(ms)
            prev = want
            settle(page)

        # J: the next item, whatever it is.
        page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.focus(); }")
        for i in range(warmup + clicks):
            cur = page.evaluate("""() => { for (const h of document.querySelectorAll('*')) if (h.shadowRoot) {
                const t = h.shadowRoot.querySelector('.wbv-hl.target'); if (t) return t.dataset.evidenceId; }
                return null; }""")
            page.evaluate(MARK)
            page.keyboard.press("j")
            ms = landed(page, None, cur)
            if i >= warmup:
                out["jk"].append(ms)
            settle(page)

        # Citation chips on the Answer page.
        page.goto(f"{url}answer?run={run}")
        chips = page.locator("button.wb-chip")
        chips.first.wait_for(timeout=60_000)
        settle(page)
        if shots:
            page.screenshot(path=str(shots / f"answer-{tag}.png"))
        prev = None
        for i in range(warmup + clicks):
            chip = chips.nth(i % chips.count())
            want = chip.inner_text().strip()
            if want == prev and chips.count() > 1:  # the same chip again lands nowhere new
                chip = chips.nth((i + 1) % chips.count())
                want = chip.inner_text().strip()
            prev = want
            page.evaluate(MARK)
            chip.click()
            ms = landed(page, want)
            if i >= warmup:
                out["chip"].append(ms)
            settle(page)
            if "/answer" not in page.url:  # the chip switched pages: go back for the next one
                page.goto(f"{url}answer?run={run}")
                chips.first.wait_for(timeout=60_000)
                settle(page)
        if shots:
            page.screenshot(path=str(shots / f"answer-chip-{tag}.png"))
        browser.close()
    return out


def landed_after_load(page, want: str) -> None:
    page.wait_for_function(LANDED.replace("if (window.__clickAt == null) return false;", "window.__clickAt = 0;"),
                           arg=[want, None], timeout=120_000, polling="raf")


def summary(xs: list[float]) -> dict:
    if not xs:
        return {}
    if set(xs) <= {0.0, 1.0}:  # a share, not a time
        return {"n": len(xs), "share": round(sum(xs) / len(xs), 2)}
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]
    return {"n": len(xs), "p50_s": round(statistics.median(xs), 3), "p95_s": round(p95, 3), "max_s": round(xs[-1], 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=Path, action="append", default=[],
                    help="another checkout to measure (before); this one is always measured last")
    ap.add_argument("--clicks", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--book", action="store_true", help="also the 352-page book")
    ap.add_argument("--cross", action="store_true", help="also a run over two contracts: cross-document jumps")
    ap.add_argument("--only-cross", action="store_true", help="the cross-document case only (implies --cross)")
    ap.add_argument("--shots", type=Path, help="save screenshots of Review and Answer here")
    ap.add_argument("--workspace", type=Path, help="a folder an earlier run seeded (it prints it): no new seeding")
    ap.add_argument("--link-only", action="store_true", help="deep links only")
    args = ap.parse_args()
    if args.workspace:
        work = args.workspace
        cases = json.loads((work / "cases.json").read_text())
        cases = [c for c in cases if args.cross or args.only_cross or not c.get("cross")]
    else:
        work = Path(tempfile.mkdtemp(prefix="wb-bench-click-"))
        cases = seed(work / "workspace", args.book, args.cross or args.only_cross)
        (work / "cases.json").write_text(json.dumps(cases))
    print(f"workspace: {work}", flush=True)
    if args.link_only:
        cases = [c for c in cases if not c.get("cross")]
    if args.only_cross:
        cases = [c for c in cases if c.get("cross")]
    if args.shots:
        args.shots.mkdir(parents=True, exist_ok=True)
    results = []
    for tree in [*args.tree, ROOT]:
        tag = "after" if tree == ROOT else tree.name
        for case in cases:
            with Server(tree.resolve(), work / "workspace", work / f"app-{tag}.log") as url:
                load0 = os.getloadavg()
                t = (measure_cross(url, case, args.clicks, args.warmup) if case.get("cross")
                     else measure(url, case, args.clicks, args.warmup, args.shots, tag, args.link_only))
                load1 = os.getloadavg()
            res = {"tree": str(tree), "case": case["name"], "load_1min_before_after": [round(load0[0], 2),
                                                                                        round(load1[0], 2)],
                   **{k: summary(v) for k, v in t.items()}}
            results.append(res)
            print(json.dumps(res), flush=True)
    print(json.dumps({"cpus": os.cpu_count(), "results": results}, indent=1))


if __name__ == "__main__":
    main()
