"""Does the relevance model read a question, or its wording? cuad-train's calib-split relevance
rows of the 12 categories of bench/data/clause_questions.tsv, asked once in the training wordings
(train/build_pairs.py's paraphrase drawn for the row) and once in that file's held-out wording;
AUC and balanced accuracy at 0.5 of the lexical judge, the model's logit and the shipped stack.

    PYTHONPATH=. .venv/bin/python -m bench.bench_relevance_wording [--model DIR ...]

Calib rows: the stack's weights were fitted on them (in the training wordings), so read the
held-out-wording column against the lexical judge's, not as a test figure (those are in
train/out/rel-eval.json, on the test split)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from bench.bench_clause_whole import load_questions
from train.calibrate_rel import auc, lexical_relevance

ROOT = Path(__file__).resolve().parents[1]


def balanced_accuracy(p: np.ndarray, y: np.ndarray) -> float:
    hit = p >= 0.5
    return float((hit[y == 1].mean() + (~hit)[y == 0].mean()) / 2)


def main(argv=None) -> int:
    from workbench.judgment.model import RELEVANCE_DIR, RelevanceModel

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=Path, default=ROOT / "train" / "out" / "pairs.jsonl",
                    help="python train/build_pairs.py --out train/out/pairs.jsonl")
    ap.add_argument("--model", type=Path, action="append", default=[])
    a = ap.parse_args(argv)
    asked = dict(load_questions())
    rows = [r for r in map(json.loads, a.pairs.read_text().splitlines())
            if r["kind"] == "rel" and r["split"] == "calib" and r["cat"] in asked]
    sets = {"training wordings": rows, "held-out wordings": [dict(r, a=asked[r["cat"]]) for r in rows]}
    y = np.array([r["label"] for r in rows])
    print(f"{len(rows)} calib rows of {len(asked)} categories, {int(y.sum())} answer")
    print("| reader | wordings | AUC | balanced accuracy at 0.5 |\n|---|---|---:|---:|")
    lexical = {name: lexical_relevance(rs) for name, rs in sets.items()}
    for name, p in lexical.items():
        print(f"| lexical judge | {name} | {auc(p, y):.3f} | {balanced_accuracy(p, y):.3f} |")
    for d in a.model or [RELEVANCE_DIR]:
        m = RelevanceModel(d)
        for name, rs in sets.items():
            z = np.array([m.logit(r["a"], [r["b"]])[0] for r in rs])
            print(f"| {d.name} model alone | {name} | {auc(z, y):.3f} | "
                  f"{balanced_accuracy(m.probabilities(z), y):.3f} |")
            p = m.probabilities(z, lexical[name])
            print(f"| {d.name} stack | {name} | {auc(p, y):.3f} | {balanced_accuracy(p, y):.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
