"""Calibrate the judgment model on contracts training never saw, and write model/calibration.json.

- "platt": per task, P = sigmoid(a * logit + b) on the network's own logit (the model alone);
- "stack": per task, a logistic regression over the network's two logits, the MiniLM cosine of
  the pair (the product's int8 embedder) and the share of the text's content words in the span
  (`Scorer.features`). This is what the product scores with: the fine-tuned network is small and
  briefly trained on a shared 2-core CPU, and the fitted combination with the embedder it already
  runs ranks and calibrates better than the network alone on held-out contracts (figures printed).

Fitted on the cuad-train "calib" split (10 % of the contracts, by contract; disjoint from the 20 %
"test" split that bench/bench_judgment.py reports on, and from training). Support is fitted
without the fact-swapped rows: facts are the fact gate's job (judge_support), and a swapped
fact leaves the words and the topic alike. Runs on the exported int8 model, as the product does.
Probabilities are calibrated to a balanced prior (the intercepts are shifted by the log odds of
the calibration pairs' positives), so 0.5 weighs a miss and a false alarm alike. Prints both on a sample of the test split (held out by contract) for comparison.

    PYTHONPATH=. .venv/bin/python train/calibrate.py --pairs train/out/pairs.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.judgment import model as M  # noqa: E402


def platt(z: np.ndarray, y: np.ndarray, iters: int = 3000, lr: float = 0.1) -> tuple[float, float]:
    a, b = 1.0, 0.0
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(a * z + b)))
        g = p - y
        a -= lr * float((g * z).mean())
        b -= lr * float(g.mean())
    return a, b


def logistic(X: np.ndarray, y: np.ndarray, l2: float = 1e-3, iters: int = 4000, lr: float = 0.5):
    """Logistic regression (standardised features, L2); weights on the raw scale."""
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Z = (X - mu) / sd
    w, b = np.zeros(Z.shape[1]), 0.0
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(Z @ w + b)))
        g = p - y
        w -= lr * (Z.T @ g / len(y) + l2 * w)
        b -= lr * float(g.mean())
    return w / sd, float(b - (mu / sd) @ w)


def features(scorer: M.Scorer, rows) -> np.ndarray:
    """Scorer.features of each row, batched by text (questions and claims repeat)."""
    out = np.zeros((len(rows), len(M.FEATURES)))
    by_text: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        by_text.setdefault(r["a"], []).append(i)
    for text, idx in by_text.items():
        out[idx] = scorer.features(text, [rows[i]["b"] for i in idx])
    return out


def auc(y: np.ndarray, s: np.ndarray) -> float:
    order = np.argsort(s, kind="stable")
    ranks = np.empty(len(s))
    ranks[order] = np.arange(1, len(s) + 1)
    pos = y == 1
    return float((ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / max(pos.sum() * (~pos).sum(), 1))


def logloss(y, p) -> float:
    return float(-np.mean(y * np.log(p + 1e-9) + (1 - y) * np.log(1 - p + 1e-9)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", default=str(ROOT / "train" / "out" / "pairs.jsonl"))
    ap.add_argument("--model-dir", default=str(M.MODEL_DIR))
    ap.add_argument("--test-sample", type=int, default=600, help="test-split rows per task to report on (0: none)")
    args = ap.parse_args(argv)
    mdir = Path(args.model_dir)
    cal = mdir / "calibration.json"
    cal.write_text(json.dumps({"platt": {"relevance": [1.0, 0.0], "support": [1.0, 0.0]}}))  # identity to load
    scorer = M.Scorer(mdir)
    rows = [json.loads(line) for line in Path(args.pairs).read_text().splitlines()]
    kinds = {"relevance": {"rel"}, "support": {"sup"}}
    col = {"relevance": 0, "support": 1}
    out_platt, out_stack = {}, {}
    for task in ("relevance", "support"):
        rs = [r for r in rows if r["split"] == "calib" and r["kind"] in kinds[task]
              and not (task == "support" and r.get("swapped"))]
        F = features(scorer, rs)
        y = np.array([r["label"] for r in rs], float)
        a, b = platt(F[:, col[task]], y)
        w, c = logistic(F, y)
        # to a balanced prior: 0.5 is then the threshold that weighs misses and false alarms alike,
        # whatever share of positives the calibration pairs happen to have (Bayes' prior shift)
        shift = float(np.log((1 - y.mean()) / y.mean()))
        b, c = b + shift, c + shift
        out_platt[task] = [round(a, 6), round(b, 6)]
        out_stack[task] = {"features": list(M.FEATURES), "w": [round(float(x), 6) for x in w], "b": round(c, 6)}
        print(f"{task}: calib n={len(rs)} positives={int(y.sum())}; platt a={a:.4f} b={b:.4f}; "
              f"stack w={dict(zip(M.FEATURES, np.round(w, 3), strict=True))} b={c:.3f}")
        if args.test_sample:
            ts = [r for r in rows if r["split"] == "test" and r["kind"] in kinds[task]
                  and not (task == "support" and r.get("swapped"))]
            ts = random.Random(7).sample(ts, min(args.test_sample, len(ts)))
            Ft = features(scorer, ts)
            yt = np.array([r["label"] for r in ts], float)
            pp = 1 / (1 + np.exp(-(a * Ft[:, col[task]] + b)))
            ps = 1 / (1 + np.exp(-(Ft @ w + c)))
            print(f"  test split sample n={len(ts)} (held out by contract): AUC network {auc(yt, pp):.3f}, "
                  f"cosine {auc(yt, Ft[:, 2]):.3f}, stack {auc(yt, ps):.3f}; log-loss network {logloss(yt, pp):.3f}, "
                  f"stack {logloss(yt, ps):.3f}")
    cal.write_text(json.dumps({"platt": out_platt, "stack": out_stack,
                               "features": list(M.FEATURES),
                               "prior": "balanced (intercepts shifted by the log odds of the calibration pairs)",
                               "fitted_on": "cuad-train calib split (10 % of contracts; support without fact-swapped rows)"},
                              indent=1) + "\n")
    print("wrote", cal)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
