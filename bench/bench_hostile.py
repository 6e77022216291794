"""Peak memory and time on the two hostile PDFs of issue 10: one 14,400 × 14,400 pt page
(under 1 KB) drawn by the viewer, and one page showing 2 M words (about 26 KB) ingested.

Each case runs in a fresh Python process (peak RSS is per process: resource.getrusage), against
the code in this checkout or, with --code DIR, against another checkout of the project (e.g. a
`git worktree` of an older commit), so before and after are measured by the same script:

    .venv/bin/python -m bench.bench_hostile                       # this checkout
    git worktree add /tmp/sec-before 2ffe163
    .venv/bin/python -m bench.bench_hostile --code /tmp/sec-before # before the caps

With --overhead FILE…, it times instead what the checks cost on ordinary PDFs: the text
pre-check (limits.shown_glyphs_floor on every page) and the active-content scan (active.find),
each next to open_pdf on the same file:

    .venv/bin/python -m bench.bench_hostile --overhead ../shared/corpus/pdfs/large/freeculture_Lessig.pdf

Cases: `render z=Z` = PageRenderer.render(page 1, zoom Z), the viewer's path behind
/wbapi/page; `open_pdf` = workbench.pdf.open_pdf (extraction only); `ingest` =
Workbench.ingest into a fresh workspace (extraction, store, parsed-document cache on disk).
`baseline` = the same process after its imports, before the case.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r'''
import json, os, resource, sys, time, hashlib
case, arg, path = sys.argv[1], sys.argv[2], sys.argv[3]
data = open(path, "rb").read()
def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
if case == "render":
    from workbench.ui.viewer.render import PageRenderer
    r = PageRenderer(lambda _: data)
    doc_id = hashlib.sha256(data).hexdigest()
    call = lambda: len(r.render(doc_id, 1, float(arg)))
elif case == "open_pdf":
    from workbench.pdf import open_pdf
    call = lambda: len(open_pdf(data, filename="bomb.pdf").text)
else:
    from workbench.config import get_settings
    from workbench.service import Workbench
    wb = Workbench(get_settings())
    call = lambda: wb.ingest(data, "bomb.pdf").pages
base = rss()
t = time.perf_counter()
try:
    out = "ok: " + str(call())
except Exception as e:
    out = f"{type(e).__name__}: {' '.join(str(e).split())[:110]}"
secs = time.perf_counter() - t
cache = 0
d = os.environ.get("WORKBENCH_DATA_DIR")
if d:
    cache = sum(f.stat().st_size for f in __import__("pathlib").Path(d).rglob("*") if f.is_file())
print(json.dumps({"seconds": round(secs, 2), "baseline_mb": round(base), "peak_rss_mb": round(rss()),
                  "data_dir_mb": round(cache / 2**20, 1), "outcome": out}))
'''


def giant_page() -> bytes:
    import pymupdf

    doc = pymupdf.open()
    doc.new_page(width=14_400, height=14_400).insert_text((72, 72), "A giant page", fontsize=11)
    return doc.tobytes()


def word_bomb(words: int = 2_000_000, per_line: int = 200) -> bytes:
    """One letter-size page whose compressed content shows `words` words (tests/pdf/test_text_limits.py)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 72), "x", fontsize=1, fontname="helv")
    font = page.get_fonts()[0][4]
    line = b"(" + b" ".join([b"word"] * per_line) + b") Tj T*\n"
    body = b"BT /" + font.encode() + b" 0.05 Tf 0.07 TL 10 780 Td\n" + line * (words // per_line) + b"ET\n"
    doc.update_stream(page.get_contents()[0], body)
    return doc.tobytes(garbage=3, deflate=True)


def run(code: Path, case: str, arg: str, pdf: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as d:
        env = {**os.environ, "PYTHONPATH": str(code), "WORKBENCH_DATA_DIR": d, "WORKBENCH_INDEX_ON_INGEST": "false"}
        proc = subprocess.run([sys.executable, "-c", CHILD, case, arg, str(pdf)], env=env, cwd=code,
                              capture_output=True, text=True, timeout=900)
    if proc.returncode:
        return {"outcome": f"process failed ({proc.returncode}): {proc.stderr.strip()[-200:]}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def overhead(files: list[Path]) -> None:
    import time

    import pymupdf

    from workbench.config import get_settings
    from workbench.pdf import open_pdf
    from workbench.pdf.active import find
    from workbench.pdf.limits import shown_glyphs_floor

    cap = get_settings().max_page_chars
    for f in files:
        doc = pymupdf.open(f)
        t = time.perf_counter()
        for page in doc:
            shown_glyphs_floor(doc, page, cap=cap)
        pre = time.perf_counter() - t
        t = time.perf_counter()
        find(doc)
        act = time.perf_counter() - t
        t = time.perf_counter()
        open_pdf(f)
        full = time.perf_counter() - t
        print(json.dumps({"file": f.name, "pages": doc.page_count, "open_pdf_s": round(full, 2),
                          "precheck_s": round(pre, 2), "active_scan_s": round(act, 2)}), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--code", type=Path, default=ROOT, help="checkout whose workbench/ is measured")
    ap.add_argument("--zooms", default="1,2", help="viewer zooms for the giant page")
    ap.add_argument("--cases", default="render,open_pdf,ingest")
    ap.add_argument("--overhead", nargs="+", type=Path, metavar="PDF", help="time the checks on these PDFs instead")
    args = ap.parse_args()
    if args.overhead:
        overhead(args.overhead)
        return
    with tempfile.TemporaryDirectory() as d:
        giant, bomb = Path(d) / "giant.pdf", Path(d) / "bomb.pdf"
        giant.write_bytes(giant_page())
        bomb.write_bytes(word_bomb())
        print(f"code: {args.code}  giant page {giant.stat().st_size} B, 2 M-word page {bomb.stat().st_size} B")
        cases = args.cases.split(",")
        todo = [("render", z, giant) for z in args.zooms.split(",") if "render" in cases]
        todo += [(c, "-", bomb) for c in ("open_pdf", "ingest") if c in cases]
        for case, arg, pdf in todo:
            r = run(args.code, case, arg, pdf)
            label = f"render z={arg}" if case == "render" else case
            print(json.dumps({"case": label, **r}), flush=True)


if __name__ == "__main__":
    main()
