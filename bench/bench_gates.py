"""What each verdict gate is worth: the runs a bench stored, judged again with each gate of
Settings.judgment.gates turned off in turn (replaying the stored candidates, their relevance and
their unit facts; no retrieval, extraction or scoring runs again, so it takes seconds).

    .venv/bin/python -m bench.bench_gates --bench cuad --workspace /tmp/cuad_ws
    .venv/bin/python -m bench.bench_gates --bench regulatory --workspace bench/out/regulatory_ws

(first run `python -m bench.bench_cuad --workspace DIR` / `python -m bench.bench_regulatory
--workspace DIR`: their runs are what is replayed; runs stored before items carried unit facts
are read as whole sentences without a lead-in.)

CUAD (held out, nothing tuned on it): per (contract, category) run, `found` = a verified quote
holds the lawyers' gold clause (bench_cuad's rule), `NAE when absent` = nothing verified where
the contract has no such clause. Regulatory: `answered` = a verified quote holds the expected
phrase. `verified/run` counts what a reviewer would have to read. A gate earns its place when
turning it off costs a figure; a gate whose removal changes nothing is a candidate for deletion."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def replay(runs, gates: list[str]) -> list[tuple[object, list[str]]]:
    """(run, the quotes verified under `gates`) for each run, from its stored verdicts."""
    from workbench.backends import engine
    from workbench.config import JudgmentSettings

    base = JudgmentSettings()
    j = base.model_copy(update={"gates": gates})
    keep = {None, "does_not_address_question", "requires_inference", "incomplete_quote"}
    out = []
    for run in runs:
        by_id = {v.requirement_id: v for v in run.verifications}
        verified = []
        for e in run.evidence:
            v = by_id.get(e.requirement_id)
            if v is None or e.span is None or v.rejection_reason not in keep or v.score is None:
                continue
            # the judge's relevance: a later gate's rejection kept only a share of it
            rel = v.score if v.rejection_reason in (None, "does_not_address_question") \
                else v.score / base.rejected_score_factor
            if engine.judge_evidence(run.question, e, rel, j).verified:
                verified.append(e.exact_quote)
        out.append((run, verified))
    return out


def cuad_figures(replayed, names: dict[str, str]) -> dict:
    from bench.bench_cuad import QUESTIONS, hit, load_gold

    gold = load_gold()
    cats = {q: c for c, q in QUESTIONS.items()}
    found = with_gold = nae = absent = n_verified = n = 0
    for run, verified in replayed:
        cat = cats.get(run.question)
        contract = names.get(run.document_ids[0]) if run.document_ids else None
        g = gold.get(contract or "", {}).get(cat or "")
        if cat is None or g is None:
            continue
        n += 1
        n_verified += len(verified)
        if g:
            with_gold += 1
            found += hit(verified, g)
        else:
            absent += 1
            nae += not verified
    return {"pairs": n, "found": round(found / max(1, with_gold), 3), "nae_when_absent": round(nae / max(1, absent), 3),
            "verified_per_run": round(n_verified / max(1, n), 2)}


def regulatory_figures(replayed, names: dict[str, str]) -> dict:
    from bench.bench_regulatory import QUESTIONS, contains

    expected = {q: phrases for qs in QUESTIONS.values() for q, phrases in qs}
    seen: dict[str, tuple[bool, int]] = {}
    for run, verified in replayed:  # the last run of each question (the bench asks one twice to warm up)
        if run.question in expected:
            seen[run.question] = (any(contains(q, expected[run.question]) for q in verified), len(verified))
    return {"questions": len(seen), "answered": sum(a for a, _ in seen.values()),
            "verified_per_run": round(sum(k for _, k in seen.values()) / max(1, len(seen)), 2)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", choices=("cuad", "regulatory"), required=True)
    ap.add_argument("--workspace", required=True, help="the workspace the bench stored its runs in")
    ap.add_argument("--out", default=None, help="JSON file for the figures (default bench/out/bench_gates_<bench>.json)")
    a = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from workbench.config import JudgmentSettings, Settings
    from workbench.service import Workbench

    wb = Workbench(Settings(data_dir=Path(a.workspace)))
    runs = sorted(wb.runs(), key=lambda r: r.created_at)
    names = {d.id: Path(d.filename).stem for d in wb.documents(include_removed=True)}
    figures = cuad_figures if a.bench == "cuad" else regulatory_figures
    gates = JudgmentSettings().gates
    table = {"all gates": figures(replay(runs, gates), names)}
    for g in gates:
        table[f"without {g}"] = figures(replay(runs, [x for x in gates if x != g]), names)
    out = Path(a.out) if a.out else ROOT / "bench" / "out" / f"bench_gates_{a.bench}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(table, indent=1))
    keys = list(next(iter(table.values())))
    print("| gates | " + " | ".join(keys) + " |")
    print("|---|" + "---:|" * len(keys))
    for name, row in table.items():
        print(f"| {name} | " + " | ".join(str(row[k]) for k in keys) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
