"""Store durability and review-write latency.

    .venv/bin/python bench/bench_store.py [--writers 4] [--events 100] [--kill-after 30] [--pg URL]

1. The SIGKILL drill (workbench.store.drill) on SQLite and, when reachable, PostgreSQL: writer
   processes append review events concurrently while a victim process is SIGKILLed right after
   it announces a write; prints events written, acknowledged, recovered, missing/duplicated.
2. Sequential `Store.add_review` latency (one process, one writer) on each database.
Prints one JSON object per line."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from workbench.config import Settings
from workbench.models import ReviewEvent
from workbench.redact import redact_url
from workbench.store import Store
from workbench.store.drill import ITEMS, drill_run, run_drill

PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def pg_schema(base: str) -> tuple[str, str] | None:
    try:
        import psycopg

        with psycopg.connect(base.replace("+psycopg", ""), connect_timeout=3, autocommit=True) as c:
            name = f"wb_bench_{uuid.uuid4().hex[:8]}"
            c.execute(f'CREATE SCHEMA "{name}"')
        return f"{base}?options=-csearch_path%3D{name}", name
    except Exception as exc:  # noqa: BLE001
        print(json.dumps({"postgresql": f"skipped: {type(exc).__name__}: {exc}"}), flush=True)
        return None


def drop_schema(base: str, name: str) -> None:
    import psycopg

    with psycopg.connect(base.replace("+psycopg", ""), autocommit=True) as c:
        c.execute(f'DROP SCHEMA "{name}" CASCADE')


def latency(url: str, n: int) -> dict:
    store = Store(Settings(data_dir=Path(tempfile.mkdtemp(prefix="workbench-latency-"))), url=url)  # fresh heads
    store.save_run(drill_run("latency-run"))
    times = []
    for i in range(n):
        t0 = time.perf_counter()
        store.add_review(ReviewEvent(run_id="latency-run", requirement_id=ITEMS[i % len(ITEMS)],
                                     label=("supported", "unsupported")[i % 2], reviewer="bench"))
        times.append((time.perf_counter() - t0) * 1000)
    store.dispose()
    times.sort()
    return {"url": redact_url(url.split("?")[0]), "sequential_reviews": n, "ms_p50": round(statistics.median(times), 2),
            "ms_p95": round(times[int(n * 0.95)], 2), "ms_max": round(times[-1], 2)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--events", type=int, default=100)
    ap.add_argument("--kill-after", type=int, default=30)
    ap.add_argument("--latency-n", type=int, default=200)
    ap.add_argument("--pg", default=PG)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        urls = [(f"sqlite:///{d}/drill.sqlite3", f"sqlite:///{d}/latency.sqlite3", None)]
        pg1, pg2 = pg_schema(a.pg), pg_schema(a.pg)
        if pg1 and pg2:
            urls.append((pg1[0], pg2[0], (pg1[1], pg2[1])))
        for drill_url, lat_url, schemas in urls:
            print(json.dumps({"drill": run_drill(drill_url, writers=a.writers, events=a.events,
                                                 kill_after=a.kill_after)}), flush=True)
            print(json.dumps({"latency": latency(lat_url, a.latency_n)}), flush=True)
            for s in schemas or ():
                drop_schema(a.pg, s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
