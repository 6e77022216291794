"""Durability drill: several processes append review events at once while one of them is killed
with SIGKILL in the middle of a write; then every acknowledged event must be there exactly once,
the database must pass its integrity check, and the derived labels must match the events.

Used by tests/store/test_durability.py and bench/bench_store.py. A writer process prints
`BEGIN <n>` before each `add_review` and a JSON ack line after it returns (the moment the event
counts as stored)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from workbench.config import Settings, child_env
from workbench.models import Evidence, ReviewEvent, Run, Span, Verification, sha256_text
from workbench.redact import redact_url
from workbench.store.store import Store

ITEMS = [f"REQ-S{i:03d}" for i in range(1, 6)]
LABELS = ("supported", "unsupported", "supported", "reset", "unsupported")


def drill_run(run_id: str) -> Run:
    doc = "f" * 64
    evs, vs = [], []
    for i, rid in enumerate(ITEMS):
        text = f"The operator shall keep record {i}."
        evs.append(Evidence(requirement_id=rid, document_id=doc, exact_quote=text, chunk_id="c",
                            span=Span(document_id=doc, page=1, pages=[1], start=i * 50, end=i * 50 + len(text),
                                      text=text, text_sha256=sha256_text(text))))
        vs.append(Verification(requirement_id=rid, verified=i % 2 == 0))
    return Run(run_id=run_id, question="drill", document_ids=[doc], evidence=evs, verifications=vs)


def writer(url: str, run_id: str, name: str, count: int, data_dir: str | None = None) -> None:
    store = Store(Settings(data_dir=Path(data_dir or tempfile.gettempdir())), url=url)
    seed = sum(map(ord, name))
    for n in range(count):
        rid = ITEMS[(seed + n * 3) % len(ITEMS)]
        label = LABELS[(seed + n) % len(LABELS)]
        print(f"BEGIN {n}", flush=True)
        t0 = time.perf_counter()
        ev = store.add_review(ReviewEvent(run_id=run_id, requirement_id=rid, label=label, reviewer=name,
                                          note=f"{name}#{n}"))
        ms = (time.perf_counter() - t0) * 1000
        print(json.dumps({"id": ev.id, "rid": rid, "label": label, "note": ev.note, "ms": round(ms, 3)}), flush=True)


class _Reader(threading.Thread):
    def __init__(self, proc: subprocess.Popen):
        super().__init__(daemon=True)
        self.proc, self.acks, self.begun = proc, [], -1
        self.cond = threading.Condition()

    def run(self) -> None:
        for line in self.proc.stdout:
            with self.cond:
                if line.startswith("BEGIN "):
                    self.begun = int(line.split()[1])
                elif line.startswith("{"):
                    self.acks.append({**json.loads(line), "at": time.monotonic()})
                self.cond.notify_all()


def run_drill(url: str, *, writers: int = 4, events: int = 50, kill_after: int = 20,
              run_id: str = "drill-run", timeout: float = 300.0) -> dict[str, Any]:
    """Run the drill against a store URL; returns the figures and the checks' outcomes. The
    processes share a data folder of their own (the record key and the chain heads)."""
    data_dir = tempfile.mkdtemp(prefix="workbench-drill-")
    store = Store(Settings(data_dir=Path(data_dir)), url=url)
    store.save_run(drill_run(run_id))
    env = child_env(PYTHONUNBUFFERED="1")
    cmd = [sys.executable, "-m", "workbench.store.drill", "writer", run_id]  # the URL goes on stdin, not in `ps`

    def start(*args: str) -> subprocess.Popen:
        proc = subprocess.Popen([*cmd, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        proc.stdin.write(url + "\n")  # type: ignore[union-attr]
        proc.stdin.close()  # type: ignore[union-attr]
        return proc

    procs = [start(f"w{i}", str(events), data_dir) for i in range(writers)]
    victim = start("victim", "1000000", data_dir)
    readers = [_Reader(p) for p in [*procs, victim]]
    for r in readers:
        r.start()
    vr = readers[-1]
    t_start = time.monotonic()
    # Wait until every writer is writing and the victim has acked kill_after events, then kill the
    # victim just after it announces its next write.
    warm = max(1, min(5, events // 4))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and victim.poll() is None and not (
            len(vr.acks) >= kill_after and all(len(r.acks) >= warm or r.proc.poll() is not None for r in readers[:-1])):
        time.sleep(0.002)
    with vr.cond:
        target = len(vr.acks)
        vr.cond.wait_for(lambda: vr.begun >= target or victim.poll() is not None, timeout=timeout)
        os.kill(victim.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        in_flight = vr.begun if vr.begun >= len(vr.acks) else None
    victim.wait(timeout=timeout)
    for p in procs:
        p.wait(timeout=timeout)
    for r in readers:
        r.join(timeout=timeout)
    elapsed = time.monotonic() - t_start

    acks = [a for r in readers for a in r.acks]
    history = store.history(run_id)
    by_note: dict[str, list[ReviewEvent]] = {}
    for ev in history:
        by_note.setdefault(ev.note, []).append(ev)
    missing = [a for a in acks if a["note"] not in by_note]
    duplicated = [n for n, evs in by_note.items() if len(evs) != 1]
    mismatched = [a for a in acks if a["note"] in by_note and
                  (by_note[a["note"]][0].id, by_note[a["note"]][0].label) != (a["id"], a["label"])]
    # derived labels: replay the history and compare with the store's view and each previous_label
    replay: dict[str, str | None] = {}
    chain_ok = True
    for ev in history:
        chain_ok &= ev.previous_label == replay.get(ev.requirement_id)
        replay[ev.requirement_id] = None if ev.label == "reset" else ev.label
    derived = {k[1]: e.label for k, e in store.current_labels(run_id).items()}
    labels_ok = derived == {k: v for k, v in replay.items() if v is not None}
    # an ack the victim wrote just before the kill, read only after it, makes that write acked, not in flight
    in_flight_landed = in_flight is not None and in_flight >= len(vr.acks) and f"victim#{in_flight}" in by_note
    lat = sorted(a["ms"] for a in acks)
    report = {
        "url": redact_url(url.split("?")[0]), "writers": writers, "events_per_writer": events, "victim_acked": len(vr.acks),
        "victim_exit": victim.returncode, "victim_in_flight": in_flight, "in_flight_landed": in_flight_landed,
        "acked": len(acks), "acked_by_others_before_kill": sum(a["at"] <= killed_at for r in readers[:-1] for a in r.acks),
        "acked_by_others_after_kill": sum(a["at"] > killed_at for r in readers[:-1] for a in r.acks),
        "stored": len(history), "missing": len(missing), "duplicated": len(duplicated),
        "mismatched": len(mismatched), "integrity": store.integrity_check(), "previous_label_chain_ok": chain_ok,
        "derived_labels_ok": labels_ok, "record_problems": store.record_problems(run_id), "writer_exits": [p.returncode for p in procs], "elapsed_s": round(elapsed, 2),
        "review_write_ms_p50": lat[len(lat) // 2] if lat else None,
        "review_write_ms_p95": lat[int(len(lat) * 0.95)] if lat else None,
    }
    store.dispose()
    shutil.rmtree(data_dir, ignore_errors=True)
    return report


if __name__ == "__main__":
    if len(sys.argv) in (5, 6) and sys.argv[1] == "writer":
        writer(sys.stdin.readline().strip(), sys.argv[2], sys.argv[3], int(sys.argv[4]), *sys.argv[5:])
    else:
        print("usage: python -m workbench.store.drill writer RUN_ID NAME COUNT [DATA_DIR]  (the store URL on stdin)",
              file=sys.stderr)
        raise SystemExit(2)
