"""Calibrate the support model: a temperature and a bias per class, fitted by likelihood on the
calib slices of train/build_nli.py (VitaminC calib pages, CUAD calib contracts, MultiNLI/FEVER
calib rows read as supported-or-not), through the int8 ONNX model the product runs. Nothing the
benches report is read. Writes model/calibration.json.

    .venv/bin/python train/calibrate_nli.py --data train/out/nli.jsonl --model workbench/judgment/model
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def nll(params: np.ndarray, z: np.ndarray, y: np.ndarray, yb: np.ndarray) -> float:
    t, bias = np.exp(params[0]), np.array([params[1], params[2], 0.0])
    s = z / t + bias
    s -= s.max(1, keepdims=True)
    logp = s - np.log(np.exp(s).sum(1, keepdims=True))
    three = y >= 0
    loss = -logp[three, y[three]].sum()
    b = yb >= 0
    p_sup = np.exp(logp[b, 0]).clip(1e-9, 1 - 1e-9)
    loss -= (yb[b] * np.log(p_sup) + (1 - yb[b]) * np.log(1 - p_sup)).sum()
    return float(loss) / len(y)


def minimise(f, x: np.ndarray, steps: int = 400, lr: float = 0.05) -> np.ndarray:
    """Adam on central-difference gradients: three parameters, a smooth loss, no scipy needed."""
    m, v = np.zeros_like(x), np.zeros_like(x)
    for t in range(1, steps + 1):
        g = np.array([(f(x + e) - f(x - e)) / 2e-4 for e in np.eye(len(x)) * 1e-4])
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        x = x - lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return x


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(ROOT / "train" / "out" / "nli.jsonl"))
    ap.add_argument("--model", default=str(ROOT / "workbench" / "judgment" / "model"))
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from workbench.judgment.model import SupportModel

    out = Path(args.model) / "calibration.json"
    if not out.is_file():
        out.write_text(json.dumps({"temperature": 1.0, "bias": [0.0, 0.0, 0.0]}))
    model = SupportModel(Path(args.model))
    rows = [r for r in map(json.loads, Path(args.data).read_text().splitlines()) if r["split"] == "calib"]
    z = np.zeros((len(rows), 3))
    by_claim: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        by_claim.setdefault(r["a"], []).append(i)
    for claim, idx in by_claim.items():
        z[idx] = model.logits(claim, [rows[i]["b"] for i in idx])
    y = np.array([r.get("y", -1) for r in rows])
    yb = np.array([r.get("yb", -1) for r in rows])
    before = nll(np.zeros(3), z, y, yb)
    x = minimise(lambda p: nll(p, z, y, yb), np.zeros(3))
    t, b0, b1 = float(np.exp(x[0])), float(x[1]), float(x[2])
    cal = {"temperature": round(t, 4), "bias": [round(b0, 4), round(b1, 4), 0.0],
           "fitted_on": f"{len(rows)} calib rows of train/build_nli.py (VitaminC calib pages, CUAD calib "
                        f"contracts, MultiNLI/FEVER calib rows)", "nll_before": round(before, 4),
           "nll_after": round(nll(x, z, y, yb), 4)}
    out.write_text(json.dumps(cal, indent=1) + "\n")
    print(json.dumps(cal, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
