"""Fit how the engine combines the support model with the lexical judge: P(supported) =
sigmoid(w_model * logit(model P(supported)) + w_lexical * logit(lexical P(supported)) + b), a
logistic regression on the calib slices of train/build_nli.py (CUAD calib contracts, VitaminC
calib pages, MultiNLI/FEVER calib rows) — never on what the benches report. The model reads facts
and meaning; the lexical judge reads whether the span is about the claim at all (the model alone
called "notify within thirty (30) days" a support of "may terminate with thirty (30) days
notice"). Writes the weights into model/calibration.json ("stack").

    PYTHONPATH=. .venv/bin/python train/stack_nli.py --data train/out/nli.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, np.float64), 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def fit_logistic(x: np.ndarray, y: np.ndarray, steps: int = 3000, lr: float = 0.1, l2: float = 1e-3) -> np.ndarray:
    """Weights then bias, by gradient descent on the mean log-loss (classes weighted equally)."""
    xb = np.column_stack([x, np.ones(len(x))])
    w = np.zeros(xb.shape[1])
    sw = np.where(y == 1, 0.5 / max(1, y.sum()), 0.5 / max(1, (1 - y).sum()))
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(xb @ w)))
        g = xb.T @ ((p - y) * sw) + l2 * np.r_[w[:-1], 0.0]
        w -= lr * g
    return w


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(ROOT / "train" / "out" / "nli.jsonl"))
    ap.add_argument("--model", default=str(ROOT / "workbench" / "judgment" / "model"))
    ap.add_argument("--src", default="cuad,off-topic,vitaminc-real,vitaminc-synthetic,mnli,fever",
                    help="calib rows of these sources only")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from workbench.judgment.model import SupportModel
    from workbench.judgment.scores import LexicalJudge

    model, lexical = SupportModel(Path(args.model)), LexicalJudge()
    srcs = set(args.src.split(","))
    rows = [r for r in map(json.loads, Path(args.data).read_text().splitlines())
            if r["split"] == "calib" and r["src"] in srcs]
    by_claim: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        by_claim.setdefault(r["a"], []).append(i)
    pm, pl = np.zeros(len(rows)), np.zeros(len(rows))
    for claim, idx in by_claim.items():
        spans = [rows[i]["b"] for i in idx]
        pm[idx] = model.probabilities(claim, spans)[:, 0]
        pl[idx] = lexical.support(claim, spans)
    y = np.array([int(r.get("y", 1 - r.get("yb", 0)) == 0) if "y" in r else r["yb"] for r in rows])
    x = np.column_stack([logit(pm), logit(pl)])
    w = fit_logistic(x, y)
    stacked = 1 / (1 + np.exp(-(np.column_stack([x, np.ones(len(x))]) @ w)))

    def ba(p):
        pred = p >= 0.5
        return round(float(0.5 * (pred[y == 1].mean() + (~pred[y == 0]).mean())), 3)
    cal_path = Path(args.model) / "calibration.json"
    cal = json.loads(cal_path.read_text())
    cal["stack"] = {"w": [round(float(w[0]), 4), round(float(w[1]), 4)], "b": round(float(w[2]), 4),
                    "fitted_on": f"{len(rows)} calib rows of {args.src} (classes weighted equally)",
                    "calib_balanced_accuracy": {"model": ba(pm), "lexical": ba(pl), "stacked": ba(stacked)}}
    cal_path.write_text(json.dumps(cal, indent=1) + "\n")
    print(json.dumps(cal["stack"], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
