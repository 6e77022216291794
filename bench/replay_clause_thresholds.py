"""Replay the clause-whole bench's stored rows under other thresholds: the relevance gate's
(Settings.judgment.relevant: a verified quote needs at least this relevance) and the badge's
(models.ANSWERS: below it the answer is at most low). Reads the rows bench_clause_whole wrote
(each verification's score, the answer's `answers`), so a threshold is chosen on one set and its
effect read on another without asking again; the chosen value is then confirmed by a real run.

    PYTHONPATH=. .venv/bin/python -m bench.replay_clause_thresholds bench/out/clause_whole_cuad_s50.jsonl \
        [--relevant 0.5 0.55 ...] [--answers 0.5 0.6 ...]

Approximations (why a real run confirms): a quote dropped by a higher relevance threshold takes
its sentence out of the answer, and the badge is recomputed from the quotes left (count, and the
best relevance among them as `answers`), never raised above the one recorded.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.bench_clause_whole import score, summarize
from workbench.pipeline.confidence import grounding_confidence

ORDER = ("insufficient", "low", "medium", "high")


def replay(row: dict, relevant: float, answers: float) -> dict:
    scores = {j["id"]: j["score"] for j in row.get("judged", [])}
    kept = [v for v in row["verified"] if scores.get(v["id"], 1.0) >= relevant]
    if not kept:
        return score(dict(row, verified=[], nae=True, confidence="insufficient"))
    best = max(scores.get(v["id"], 1.0) for v in kept)
    a = min(best, row["answers"]) if row.get("answers") is not None else best
    level = grounding_confidence(len(kept), 1.0, None)
    if a < answers:
        level = min(level, "low", key=ORDER.index)
    elif a < 0.8:
        level = min(level, "medium", key=ORDER.index)
    level = min(level, row["confidence"], key=ORDER.index)
    return score(dict(row, verified=kept, confidence=level))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("rows", type=Path)
    p.add_argument("--relevant", type=float, nargs="*", default=[0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8])
    p.add_argument("--answers", type=float, nargs="*", default=[0.5, 0.6, 0.7, 0.8])
    a = p.parse_args()
    rows = [json.loads(x) for x in a.rows.read_text(encoding="utf-8").splitlines() if x.strip()]
    rows = [r for r in rows if "category" in r]
    keys = ("whole_rate", "found_rate", "median_verified_with_gold", "precision_with_gold",
            "nae_rate_absent", "high_medium_rate_absent", "nae_with_gold")
    print("relevant answers " + " ".join(keys) + " high_medium_with_gold")
    for rel in a.relevant:
        for ans in a.answers:
            out = [replay(r, rel, ans) for r in rows]
            s = summarize(out, [])
            pos = [r for r in out if r["has_gold"]]
            hm = sum(r["confidence"] in ("high", "medium") for r in pos) / max(1, len(pos))
            print(f"{rel:.2f} {ans:.2f} " + " ".join(str(s[k]) for k in keys) + f" {hm:.3f}")


if __name__ == "__main__":
    main()
