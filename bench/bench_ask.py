"""`ask` speed and memory on NIST SP 800-171 (113 pages): cold (fresh workspace: parse, embed,
index, answer) and warm (a second question in the same process; a second CLI call on the same
workspace), with peak RSS. Goals: warm ≤ 2 s, cold ≤ 60 s including embedding.

    .venv/bin/python -m bench.bench_ask [--pdf PATH] [--skip-cli]

Each measurement runs in a fresh subprocess so "cold" really is cold; results go to stdout and
bench/out/bench_ask.json."""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PDF = ROOT.parent / "shared" / "corpus" / "pdfs" / "regulatory" / "NIST.SP.800-171r2.pdf"
QUESTIONS = ["What must organizations do to control remote access sessions?",
             "What must organizations do to protect CUI on mobile devices?",
             "How must organizations handle audit logging failures?"]


def in_process(pdf: str, data_dir: str) -> dict:
    """Child mode: one workspace, ingest then each question; times per step and peak RSS."""
    t0 = time.perf_counter()
    from workbench.config import Settings
    from workbench.service import Workbench

    wb = Workbench(Settings(data_dir=Path(data_dir)))
    t_import = time.perf_counter() - t0
    t = time.perf_counter()
    doc = wb.ingest(pdf, source_type="policy")
    t_ingest = time.perf_counter() - t
    asks = []
    for q in QUESTIONS:
        t = time.perf_counter()
        run, = wb.ask([q], [doc.id])
        asks.append({"question": q, "seconds": round(time.perf_counter() - t, 3), "stage_timings": run.stage_timings,
                     "extracted": len(run.evidence), "verified": sum(v.verified for v in run.verifications),
                     "result": run.answer.result or run.answer.grounding_confidence})
    return {"pages": doc.pages, "import_s": round(t_import, 3), "ingest_s": round(t_ingest, 3), "asks": asks,
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def cli_rss(args: list[str], env: dict) -> tuple[float, float, int, str]:
    """Wall time and peak RSS of one CLI call, measured by wait4 on the child."""
    t = time.perf_counter()
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT, env=dict(os.environ, **env))
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    err = p.stderr.read().decode() if p.stderr else ""
    return wall, ru.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), err


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pdf", default=str(PDF))
    ap.add_argument("--skip-cli", action="store_true")
    ap.add_argument("--child", metavar="DATA_DIR", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(in_process(a.pdf, a.child)))
        return 0

    result: dict = {"pdf": a.pdf, "cpus": os.cpu_count(), "load_avg_before": os.getloadavg()}
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([sys.executable, "-m", "bench.bench_ask", "--pdf", a.pdf, "--child", d],
                           capture_output=True, text=True, cwd=ROOT)
        if p.returncode:
            print(p.stderr, file=sys.stderr)
            return 1
        result["in_process_cold_workspace"] = json.loads(p.stdout.strip().splitlines()[-1])
        p = subprocess.run([sys.executable, "-m", "bench.bench_ask", "--pdf", a.pdf, "--child", d],
                           capture_output=True, text=True, cwd=ROOT)
        result["in_process_warm_workspace"] = json.loads(p.stdout.strip().splitlines()[-1])
    if not a.skip_cli:
        exe = [str(ROOT / ".venv" / "bin" / "workbench")] if (ROOT / ".venv/bin/workbench").exists() \
            else [sys.executable, "-m", "workbench"]
        with tempfile.TemporaryDirectory() as d:
            env = {"WORKBENCH_DATA_DIR": d}
            rows = []
            for label, q in (("cold", QUESTIONS[0]), ("warm", QUESTIONS[1])):
                wall, rss, code, err = cli_rss(exe + ["ask", a.pdf, "--question", q, "--out", f"{d}/{label}.json"], env)
                rows.append({"run": label, "question": q, "wall_s": round(wall, 3), "peak_rss_mb": round(rss, 1),
                             "exit": code, "stderr": err.strip()[-200:]})
            result["cli"] = rows
    result["load_avg_after"] = os.getloadavg()
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench_ask.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
