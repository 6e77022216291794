"""Calibrate the relevance model on cuad-train's calib split, then report it beside the lexical
judge on the test split (contracts never trained or calibrated on).

Calibration: P = sigmoid(slope × logit + bias), the slope and bias fitted by logistic regression
(Newton's method, the two classes weighed equally) on the calib split's relevance rows; and a stack, one logistic over the model's
logit and the lexical judge's (as the engine reads a contract: its document's term weights, clause
topics on), fitted there too. Both go to the model's calibration.json.
Nothing is chosen on the test split: its figures are read once, at the fixed threshold 0.5 the
engine's `relevant` setting uses.

    PYTHONPATH=. .venv/bin/python train/calibrate_rel.py --data train/out/pairs.jsonl \
        --model workbench/judgment/relevance_model
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

try:
    from train.build_pairs import CORPUS, sentences
except ImportError:  # run as a script
    from build_pairs import CORPUS, sentences  # type: ignore[no-redef]


def logistic(x: np.ndarray, y: np.ndarray, iters: int = 50) -> np.ndarray:
    """Weights (one per column of x, then the bias) maximising the likelihood of y under
    sigmoid(x·w + b), by Newton's method, the two classes weighed equally: the engine reads
    relevance at 0.5 as an even call between "answers" and "does not", as the lexical judge's
    hand-set weights do, not at the base rate of answering sentences in these rows (~15 %), which
    would make every threshold a demand for far more than even odds."""
    x = np.column_stack([x, np.ones(len(x))])
    c = np.where(y == 1, 0.5 / max(y.sum(), 1), 0.5 / max((1 - y).sum(), 1)) * len(y)
    w = np.zeros(x.shape[1])
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(x @ w)))
        h = (x * (c * p * (1 - p) + 1e-9)[:, None]).T @ x + 1e-6 * np.eye(x.shape[1])
        step = np.linalg.solve(h, x.T @ (c * (p - y)))
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def auc(score: np.ndarray, y: np.ndarray) -> float:
    order = np.argsort(score, kind="stable")
    ranks = np.empty(len(score))
    ranks[order] = np.arange(1, len(score) + 1)
    pos = y == 1
    n1, n0 = pos.sum(), (~pos).sum()
    return float((ranks[pos].sum() - n1 * (n1 + 1) / 2) / (n1 * n0)) if n1 and n0 else float("nan")


def figures(p: np.ndarray, y: np.ndarray) -> dict:
    hit = p >= 0.5
    tpr = float(hit[y == 1].mean())
    tnr = float((~hit)[y == 0].mean())
    return {"auc": round(auc(p, y), 4), "balanced_accuracy": round((tpr + tnr) / 2, 4), "recall": round(tpr, 4),
            "specificity": round(tnr, 4), "rows": int(len(y)), "answers": int(y.sum())}


def lexical_relevance(rows: list[dict]) -> np.ndarray:
    """The lexical judge as the engine runs it on a contract: its document's term weights, marked
    a contract so the clause-topic features are read."""
    from workbench.judgment.scores import LexicalJudge
    from workbench.text.weights import TermWeights

    judge = LexicalJudge()
    weights: dict[str, TermWeights] = {}
    out = np.zeros(len(rows))
    for i, r in enumerate(rows):
        doc = r["doc"]
        if doc not in weights:
            text, spans = sentences((CORPUS / "cuad-train" / doc).read_text(errors="replace"))
            weights[doc] = TermWeights([text[s:e] for s, e in spans], source_type="contract")
        out[i] = judge.relevance(r["a"], [r["b"]], [weights[doc]])[0]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="train/out/pairs.jsonl")
    ap.add_argument("--model", default="workbench/judgment/relevance_model")
    ap.add_argument("--out", default="train/out/rel-eval.json")
    args = ap.parse_args(argv)
    from workbench.judgment.model import RelevanceModel

    rows = [r for r in map(json.loads, Path(args.data).read_text().splitlines()) if r["kind"] == "rel"]
    calib = [r for r in rows if r["split"] == "calib"]
    test = [r for r in rows if r["split"] == "test"]
    cal_file = Path(args.model) / "calibration.json"
    cal_file.write_text(json.dumps({"slope": 1.0, "bias": 0.0}))
    model = RelevanceModel(Path(args.model))

    def logits(rs: list[dict]) -> np.ndarray:
        return np.array([model.logit(r["a"], [r["b"]])[0] for r in rs], np.float64)

    yc, y = (np.array([r["label"] for r in rs], np.float64) for rs in (calib, test))
    zc, zt = logits(calib), logits(test)
    slope, bias = logistic(zc[:, None], yc)
    # the model beside the lexical judge: one logistic over both logits, fitted on calib too
    lc, lt = logit(lexical_relevance(calib)), logit(lexical_relevance(test))
    stack = logistic(np.column_stack([zc, lc]), yc)
    cal = {"slope": round(float(slope), 6), "bias": round(float(bias), 6),
           "stack": {"w": [round(float(stack[0]), 6), round(float(stack[1]), 6)], "b": round(float(stack[2]), 6)},
           "fitted_on": "cuad-train calib split, relevance rows (train/build_pairs.py)", "rows": len(calib)}
    cal_file.write_text(json.dumps(cal, indent=1) + "\n")

    def sig(z: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-z))

    report = {"calibration": cal, "test": {
        "relevance model": figures(sig(zt * slope + bias), y),
        "lexical judge": figures(sig(lt), y),
        "stack (model + lexical)": figures(sig(stack[0] * zt + stack[1] * lt + stack[2]), y)}}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
