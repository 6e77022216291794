"""Fit the Platt scaling (P = sigmoid(a * logit + b)) of each task on the calibration split
(CUAD-train contracts that training never saw; 10 % of them, disjoint from the 20 % test split)
and write model/calibration.json. Runs on the exported int8 model, as the product does.

    PYTHONPATH=. .venv/bin/python train/calibrate.py --pairs train/out/pairs.jsonl
"""

from __future__ import annotations

import argparse
import json
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", default=str(ROOT / "train" / "out" / "pairs.jsonl"))
    ap.add_argument("--model-dir", default=str(M.MODEL_DIR))
    args = ap.parse_args(argv)
    mdir = Path(args.model_dir)
    cal = mdir / "calibration.json"
    if not cal.exists():  # the scorer needs one to load: start from the identity
        cal.write_text(json.dumps({"platt": {"relevance": [1.0, 0.0], "support": [1.0, 0.0]}}))
    scorer = M.Scorer(mdir)
    rows = [json.loads(line) for line in Path(args.pairs).read_text().splitlines()]
    out = {}
    for task, kinds in (("relevance", {"rel"}), ("support", {"sup"})):
        rs = [r for r in rows if r["split"] == "calib" and r["kind"] in kinds]
        z = np.concatenate([scorer.logits(r["a"], [r["b"]], task) for r in rs]).astype(np.float64)
        y = np.array([r["label"] for r in rs], float)
        a, b = platt(z, y)
        p = 1 / (1 + np.exp(-(a * z + b)))
        print(f"{task}: n={len(rs)} positives={int(y.sum())} a={a:.4f} b={b:.4f} "
              f"log-loss={-np.mean(y * np.log(p + 1e-9) + (1 - y) * np.log(1 - p + 1e-9)):.4f}")
        out[task] = [round(a, 6), round(b, 6)]
    cal.write_text(json.dumps({"platt": out, "fitted_on": "cuad-train calib split (10 % of contracts)"}, indent=1) + "\n")
    print("wrote", cal)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
