"""Ingest + index throughput through the job queue with N `workbench worker` processes (needs
Redis; WORKBENCH_BENCH_REDIS_URL, default redis://127.0.0.1:6379/12). Run through
bench_contracts: `nice -n 10 .venv/bin/python -m bench.bench_contracts workers --workers 2 --docs 24`
(or bench_library's workers phase).

Each run starts from an empty workspace (bench/out/library/workers-<N>/), starts N workers with
one embedding thread each and waits until every one has loaded the model and registered with
the queue (as long-running workers would have), then queues one ingest job per PDF (ingest =
open, parse, keep, chunk, embed, add to the library index) and times from the first job queued
to the last one finished. The workers' peak memory (VmHWM) is read before they are stopped."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

from bench.common import ROOT


def _peak_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024)
    except OSError:
        pass
    return float("nan")


def cmd_workers(args, pdfs: list[Path], emit) -> None:
    from redis import Redis
    from rq import Queue, Worker

    from workbench.config import Settings
    from workbench.jobs import wait
    from workbench.jobs.rq_queue import RqQueue
    from workbench.service import Workbench

    url = os.environ.get("WORKBENCH_BENCH_REDIS_URL", "redis://127.0.0.1:6379/12")
    pdfs = [p for p in pdfs if p.parent.name.startswith("pdfs-")][: args.docs]  # rendered contracts only
    data = ROOT / "bench" / "out" / "library" / f"workers-{args.workers}"
    shutil.rmtree(data, ignore_errors=True)
    name = f"wbbench-{uuid.uuid4().hex[:8]}"
    settings = Settings(data_dir=data, queue_url=url, queue_name=name, index_on_ingest=False)
    queue = RqQueue(settings)
    env = {**os.environ, "WORKBENCH_DATA_DIR": str(data), "WORKBENCH_QUEUE_URL": url, "WORKBENCH_QUEUE_NAME": name,
           "WORKBENCH_EMBED_THREADS": "1", "WORKBENCH_INDEX_ON_INGEST": "false", "PYTHONPATH": str(ROOT)}
    workers = [subprocess.Popen([sys.executable, "-m", "workbench", "worker"], env=env, cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(args.workers)]
    conn = Redis.from_url(url)
    rq_queue = Queue(name, connection=conn)
    deadline = time.monotonic() + 600
    while len(Worker.all(queue=rq_queue)) < args.workers and time.monotonic() < deadline:
        time.sleep(0.5)  # a worker registers after loading the embedding model
    t0 = time.perf_counter()
    jobs = [queue.submit("ingest", {"paths": [str(p)], "source_type": "contract"}).job_id for p in pdfs]
    infos = wait(queue, jobs, timeout=3000, poll=0.5)
    dt = time.perf_counter() - t0
    peaks = [_peak_mb(w.pid) for w in workers]
    for w in workers:
        w.terminate()
    for w in workers:
        w.wait(timeout=60)
    wb = Workbench(Settings(data_dir=data))
    chunks = wb.retriever.store.library.ntotal
    emit(phase="workers", workers=args.workers, documents=len(pdfs), chunks=chunks,
         finished=sum(i.status == "finished" for i in infos), failed=[i.error for i in infos if i.status == "failed"],
         seconds=round(dt, 1), docs_per_s=round(len(pdfs) / dt, 3), chunks_per_s=round(chunks / dt, 2),
         worker_peak_rss_mb=peaks)
    keys = list(conn.scan_iter(f"{name}:*")) + list(conn.scan_iter(f"rq:*{name}*"))
    keys += [k for j in jobs for k in conn.scan_iter(f"rq:*{j}*")]
    if keys:
        conn.delete(*keys)
