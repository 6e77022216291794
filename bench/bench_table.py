"""Time a review table: N CUAD contracts x the built-in 10-question contract checklist, every cell a
"cell" job, with 0 workers (the in-process queue: one thread of the app), and with 1 and 2
`workbench worker` processes on Redis (RQ), each from a fresh workspace.

    PYTHONPATH=. python -m bench.bench_table [--docs 5] [--workers 0 1 2]

Each worker count runs in a child process of its own (the app), so the app's peak memory is its
own: it ingests the PDFs (parse and store), queues one "index" job over them (the app itself runs
it with 0 workers; a worker does with 1 or 2), then times the cells: from the first cell queued to
the last answered. Workers are started first and waited for (they register once the embedding
model is loaded), each with cores/N embedding threads. Prints one JSON line per run: cells/min,
the median and longest cell job (started → ended, as the queue records them), the app's and each worker's peak RSS (VmHWM), answered / not found, the load average before and
after, and how long reading the whole table takes (Workbench.table_view, what the Table page does
every two seconds while cells run). Redis: WORKBENCH_BENCH_REDIS_URL,
default redis://127.0.0.1:6379/12; its keys are deleted after each run."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CUAD = Path(os.environ.get("WORKBENCH_CORPUS", ROOT.parent / "shared" / "corpus")) / "cuad" / "pdf"
OUT = ROOT / "bench" / "out" / "table"


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def vm_mb(pid: int | str, field: str = "VmHWM") -> float:
    """A process's peak (VmHWM) or current (VmRSS) resident memory in MB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return round(int(line.split()[1]) / 1024)
    except OSError:
        pass
    return float("nan")


def one_run(docs: int, workers: int) -> dict:
    """The app's side of one run (in this process)."""
    from workbench.config import load_settings
    from workbench.service import Workbench

    files = sorted(CUAD.iterdir())[:docs]
    data = OUT / f"workers-{workers}"
    shutil.rmtree(data, ignore_errors=True)
    url = os.environ.get("WORKBENCH_BENCH_REDIS_URL", "redis://127.0.0.1:6379/12")
    name = f"wbtable-{uuid.uuid4().hex[:8]}"
    queue = {"queue_url": url, "queue_name": name} if workers else {}
    wb = Workbench(load_settings(data_dir=data / "data", index_on_ingest=False, **queue))
    procs, conn = [], None
    load_before = loadavg()
    try:
        if workers:
            from redis import Redis
            from rq import Queue, Worker

            threads = max(1, (os.cpu_count() or 2) // workers)
            env = {**os.environ, "WORKBENCH_DATA_DIR": str(data / "data"), "WORKBENCH_QUEUE_URL": url,
                   "WORKBENCH_QUEUE_NAME": name, "WORKBENCH_EMBED_THREADS": str(threads),
                   "WORKBENCH_INDEX_ON_INGEST": "false", "PYTHONPATH": str(ROOT)}
            procs = [subprocess.Popen([sys.executable, "-m", "workbench", "worker"], env=env, cwd=ROOT,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(workers)]
            conn = Redis.from_url(url)
            deadline = time.monotonic() + 600
            while len(Worker.all(queue=Queue(name, connection=conn))) < workers and time.monotonic() < deadline:
                time.sleep(0.5)
        t0 = time.perf_counter()
        ids = [wb.ingest(f, source_type="contract").id for f in files]
        t_ingest = time.perf_counter() - t0
        t0 = time.perf_counter()
        indexed = wb.wait([wb.submit("index", document_ids=ids).job_id])
        t_index = time.perf_counter() - t0
        table = wb.create_table(ids, wb.checklist(), name="bench")
        t0 = time.perf_counter()
        records = wb.run_table(table.table_id)
        infos = wb.wait([r.job_id for r in records])
        t_cells = time.perf_counter() - t0
        worker_peaks = [vm_mb(p.pid) for p in procs]
        t0 = time.perf_counter()
        view = wb.table_view(table.table_id)
        t_view = time.perf_counter() - t0
        found = sum(c.short_answer != "not found" for c in view.cells)
        took = sorted((i.ended_at - i.started_at).total_seconds() for i in infos if i.started_at and i.ended_at)
        return {"workers": workers, "documents": len(ids), "questions": len(table.columns), "cells": len(records),
                "finished": sum(i.status == "finished" for i in infos), "failed": sum(i.status == "failed" for i in infos),
                "index_job": indexed[0].status, "ingest_s": round(t_ingest, 1), "index_s": round(t_index, 1),
                "cells_s": round(t_cells, 1), "cells_per_min": round(len(records) / t_cells * 60, 1),
                "cell_job_s_p50": round(took[len(took) // 2], 2) if took else None,
                "cell_job_s_max": round(took[-1], 2) if took else None,
                "answered": found, "not_found": len(view.cells) - found, "table_view_s": round(t_view, 2),
                "app_peak_rss_mb": vm_mb("self"), "app_rss_mb": vm_mb("self", "VmRSS"),
                "worker_peak_rss_mb": worker_peaks, "worker_threads": threads if workers else None,
                "load_before": load_before, "load_after": loadavg()}
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=60)
        if conn is not None:
            keys = list(conn.scan_iter(f"{name}:*")) + list(conn.scan_iter(f"rq:*{name}*"))
            if keys:
                conn.delete(*keys)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=5)
    ap.add_argument("--workers", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)  # the child: one worker count
    args = ap.parse_args()
    if args.one is not None:
        print(json.dumps(one_run(args.docs, args.one)), flush=True)
        return
    for n in args.workers:
        out = subprocess.run([sys.executable, "-m", "bench.bench_table", "--docs", str(args.docs), "--one", str(n)],
                             cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
        lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
        print(lines[-1] if lines else json.dumps({"workers": n, "error": out.stderr[-2000:]}), flush=True)


if __name__ == "__main__":
    main()
