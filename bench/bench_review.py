"""The review model's cost where a reader feels it: a warm Answer page rerun (AppTest, same
session, nothing changed) and `workbench show RUN` (a fresh process), on a reviewed run over a
real PDF. Before the review model, every read re-hashed the PDF and re-derived the statuses
(the Answer page twice per rerun); now one ReviewedRun is cached per (run, event count).

Runs whichever `workbench` is first on sys.path, so a before/after compares two checkouts:

    PYTHONPATH=<checkout> .venv/bin/python bench/bench_review.py --root <checkout> [--pdf PATH] [--repeat 7]
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
from pathlib import Path

from workbench.config import get_settings

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PDF = ROOT.parent / "shared" / "corpus" / "pdfs" / "regulatory" / "NIST.SP.800-171r2.pdf"
QUESTION = "What must organizations do to control remote access sessions?"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", type=Path, default=ROOT, help="checkout whose app.py and pages/ are rendered")
    ap.add_argument("--pdf", type=Path, default=DEFAULT_PDF)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    data = Path(tempfile.mkdtemp(prefix="wb-bench-review-"))
    os.environ["WORKBENCH_DATA_DIR"] = str(data)
    os.environ["WORKBENCH_INDEX_ON_INGEST"] = "false"

    import workbench
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    doc = wb.ingest(args.pdf, source_type="policy")
    (run,) = wb.ask([QUESTION], [doc.id])
    ids = [e.requirement_id for e in run.evidence]
    rejected = [v.requirement_id for v in run.verifications if not v.verified]
    wb.review(run.run_id, ids[0], "unsupported", "bench", "a reviewer disagrees")
    if rejected:
        wb.review(run.run_id, rejected[0], "supported", "bench", "the verifier missed it")

    # `workbench show RUN` in a fresh process (as a user runs it)
    env = {**os.environ, "PYTHONPATH": str(args.root)}
    show: list[float] = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "workbench", "show", run.run_id], env=env, check=True, cwd=args.root,
                       capture_output=True)
        show.append(time.perf_counter() - t)

    # warm Answer page rerun: the first run pays imports and parsing, later reruns are what a
    # reviewer clicking around the page waits for
    from streamlit.testing.v1 import AppTest

    entry = Path(tempfile.mkdtemp(prefix="wb-bench-app-")) / "app_entry.py"
    app = args.root / "app.py"
    entry.write_text(f"exec(compile(open({str(app)!r}).read(), {str(app)!r}, 'exec'))\n")
    at = AppTest.from_file(str(entry), default_timeout=120)
    at.query_params.update(run=run.run_id)
    at.run()
    at.switch_page(str(args.root / "pages" / "answer.py")).run()
    assert not at.exception, at.exception
    warm: list[float] = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        at.run()
        warm.append(time.perf_counter() - t)
    assert not at.exception, at.exception

    print(json.dumps({
        "workbench": str(Path(workbench.__file__).parent), "pdf": args.pdf.name,
        "pdf_mb": round(args.pdf.stat().st_size / 1e6, 2), "evidence_items": len(ids), "repeat": args.repeat,
        "show_s_median": round(statistics.median(show), 3), "show_s_min": round(min(show), 3),
        "answer_rerun_s_median": round(statistics.median(warm), 4), "answer_rerun_s_min": round(min(warm), 4),
    }, indent=2))


if __name__ == "__main__":
    main()
