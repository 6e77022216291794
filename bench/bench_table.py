"""Time a review table in this process: 5 CUAD contracts x the built-in 10-question contract
checklist (50 cells, each a "cell" job on the in-process queue), from a fresh workspace.

    PYTHONPATH=. python bench/bench_table.py [--docs 5]

Prints ingest time, the wall time until every cell is answered (first cells pay for loading the
models and indexing each contract), cells per minute, and how long reading the whole table takes
(Workbench.table_view, what the Table page does every two seconds while cells run)."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from workbench.config import load_settings
from workbench.service import Workbench

CUAD = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "cuad" / "pdf"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=5)
    args = ap.parse_args()
    files = sorted(CUAD.iterdir())[: args.docs]
    with tempfile.TemporaryDirectory() as tmp:
        wb = Workbench(load_settings(data_dir=Path(tmp) / "data", index_on_ingest=False))
        t0 = time.perf_counter()
        ids = [wb.ingest(f, source_type="contract").id for f in files]
        t_ingest = time.perf_counter() - t0
        table = wb.create_table(ids, wb.checklist(), name="bench")
        t1 = time.perf_counter()
        records = wb.run_table(table.table_id)
        wb.wait([r.job_id for r in records])
        t_cells = time.perf_counter() - t1
        t2 = time.perf_counter()
        view = wb.table_view(table.table_id)
        t_view = time.perf_counter() - t2
        found = sum(c.short_answer != "not found" for c in view.cells)
        print(f"{len(ids)} documents x {len(table.columns)} questions = {len(view.cells)} cells ({view.counts})")
        print(f"ingest {t_ingest:.1f} s; cells answered in {t_cells:.1f} s = {len(records) / t_cells * 60:.0f} "
              f"cells/min (models and indexes included); {found} cells answered, "
              f"{len(view.cells) - found} not found; reading the table {t_view:.2f} s")


if __name__ == "__main__":
    main()
