"""Viewer speed in real headless Chromium on the 352-page book (corpus/pdfs/large).

Measures (a) first page visible: navigation start → page 1's image decoded in the viewer, cold
(fresh server, nothing rendered) then warm (new browser context, server cache warm), next to
Streamlit's own first paint (the harness's button visible) for comparison, and
(b) click-to-highlight: a Streamlit button click → the highlight box for a quote on a far page
(default 300) present, inside the viewer's visible area, with that page's image decoded.

It serves the real viewer component and page route (workbench.ui.viewer) from a small harness
script, so it does not need a workspace or the pipeline.

    .venv/bin/python bench/bench_viewer.py [--pdf PATH] [--page 300] [--repeat 5]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT.parent / "shared" / "corpus" / "pdfs" / "large" / "freeculture_Lessig.pdf"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

HARNESS = '''
import json, os
import streamlit as st
from workbench.ui.viewer import pdf_viewer
from workbench.ui.viewer.render import get_renderer

cfg = json.loads(open(os.environ["WB_BENCH_CFG"]).read())
get_renderer().register_file(cfg["doc"], cfg["path"])
st.set_page_config(layout="wide")
n = st.session_state.setdefault("n", 0)
if st.button("Highlight", key="go"):
    st.session_state.n = n = n + 1
target = cfg["target"] if n else None
pdf_viewer(cfg["doc"], cfg["highlights"] if n else [], target=target, scroll_token=n, key="viewer")
'''
SERVE = '''
import pymupdf  # as serve.py: heavy imports at server start, not on the first page request
import streamlit as st
import workbench.service
from workbench.ui.viewer.routes import ROUTES
app = st.App("harness.py", routes=ROUTES)
'''

# Find a selector inside open shadow roots (Streamlit v2 components live in one).
DEEP_QUERY = '''
window.__wbq = (sel) => {
  const direct = document.querySelector(sel); if (direct) return direct;
  for (const h of document.querySelectorAll('*')) {
    if (h.shadowRoot) { const r = h.shadowRoot.querySelector(sel); if (r) return r; }
  }
  return null;
};
'''
VIEWER_MOUNTED = "() => !!(window.__wbq && window.__wbq('.wbv-page'))"
PAGE_VISIBLE = '''(n) => {
  const img = window.__wbq && window.__wbq(`.wbv-page[data-page-number="${n}"] img`);
  return !!(img && img.complete && img.naturalWidth > 0);
}'''
HIGHLIGHT_IN_VIEW = '''([id, page]) => {
  const el = window.__wbq(`[data-evidence-id="${id}"][data-page="${page}"]`);
  if (!el) return false;
  const img = el.parentElement.querySelector('img');
  if (!(img && img.complete && img.naturalWidth > 0)) return false;
  const box = el.getBoundingClientRect(), view = el.closest('.wbv-scroll').getBoundingClientRect();
  if (!(box.top >= view.top && box.bottom <= view.bottom)) return false;
  return performance.now() - window.__clickAt;
}'''


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def quote_rects(pdf: Path, page: int) -> list[list[float]]:
    """The boxes of one text line on `page` (cropbox coordinates, as Span.rects)."""
    import pymupdf

    with pymupdf.open(pdf) as doc:
        words = doc[page - 1].get_text("words", sort=True)
    lines: dict[tuple[int, int], list] = {}
    for w in words:
        lines.setdefault((w[5], w[6]), []).append(w)
    longest = max(lines.values(), key=len)
    x0 = min(w[0] for w in longest)
    y0 = min(w[1] for w in longest)
    x1 = max(w[2] for w in longest)
    y1 = max(w[3] for w in longest)
    return [[page, x0, y0, x1, y1]]


def start_server(workdir: Path, port: int, cfg: Path) -> subprocess.Popen:
    env = dict(os.environ, WB_BENCH_CFG=str(cfg), PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "streamlit", "run", str(workdir / "serve.py"), "--server.port", str(port),
           "--server.headless", "true", "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
            return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("the harness app did not start within 60 s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pdf", type=Path, default=BOOK)
    ap.add_argument("--page", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--screenshot", type=Path, help="save the viewer after the last click here (PNG)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    doc_id = hashlib.sha256(args.pdf.read_bytes()).hexdigest()
    work = Path(tempfile.mkdtemp(prefix="wb-bench-viewer-"))
    (work / "harness.py").write_text(HARNESS)
    (work / "serve.py").write_text(SERVE)
    rects = quote_rects(args.pdf, args.page)
    cfg = work / "cfg.json"
    cfg.write_text(json.dumps({
        "doc": doc_id, "path": str(args.pdf), "target": "REQ-B001",
        "highlights": [{"id": "REQ-B001", "page": r[0], "x0": r[1], "y0": r[2], "x1": r[3], "y1": r[4]} for r in rects],
    }))
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    proc = start_server(work, port, cfg)
    first, mounted, painted, clicks = [], [], [], []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            for i in range(args.repeat):
                ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
                page = ctx.new_page()
                page.add_init_script(DEEP_QUERY)
                page.goto(url, wait_until="commit")
                page.get_by_role("button", name="Highlight").wait_for(timeout=60000)
                painted.append(page.evaluate("performance.now()") / 1000)
                page.wait_for_function(VIEWER_MOUNTED, timeout=60000, polling="raf")
                mounted.append(page.evaluate("performance.now()") / 1000)
                page.wait_for_function(PAGE_VISIBLE, arg=1, timeout=60000, polling="raf")
                first.append(page.evaluate("performance.now()") / 1000)
                page.evaluate("document.addEventListener('click', () => { window.__clickAt = performance.now(); }, true)")
                page.get_by_role("button", name="Highlight").click()
                ms = page.wait_for_function(HIGHLIGHT_IN_VIEW, arg=["REQ-B001", args.page], timeout=60000, polling="raf")
                clicks.append(ms.json_value() / 1000)
                print(f"run {i + 1}: Streamlit first paint {painted[-1]:.2f} s, viewer mounted {mounted[-1]:.2f} s, first page {first[-1]:.2f} s, click-to-highlight (page {args.page}) {clicks[-1]:.3f} s",
                      flush=True)
                if args.screenshot and i == args.repeat - 1:
                    page.wait_for_timeout(500)
                    page.screenshot(path=str(args.screenshot))
                ctx.close()
            browser.close()
    finally:
        proc.terminate()
        proc.wait(10)
    warm = first[1:] or first
    print(json.dumps({
        "pdf": args.pdf.name, "pages_target": args.page, "runs": args.repeat,
        "streamlit_first_paint_cold_s": round(painted[0], 2),
        "streamlit_first_paint_warm_median_s": round(statistics.median(painted[1:] or painted), 2),
        "viewer_mounted_cold_s": round(mounted[0], 2),
        "viewer_mounted_warm_median_s": round(statistics.median(mounted[1:] or mounted), 2),
        "first_page_cold_s": round(first[0], 2), "first_page_warm_median_s": round(statistics.median(warm), 2),
        "click_to_highlight_median_s": round(statistics.median(clicks), 3),
        "click_to_highlight_max_s": round(max(clicks), 3),
    }, indent=1))


if __name__ == "__main__":
    main()
