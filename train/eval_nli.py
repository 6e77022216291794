"""Held-out figures of a support-model checkpoint (torch) on train/build_nli.py's rows: VitaminC's
test pages (never trained or tuned on), CUAD's test contracts (swapped facts, true claims), and
the calib slices (for choosing between recipes: never the test figures). The model alone, no
fact gate; the product's figures (with the gate, through `verify`) come from bench/.

    .venv-train/bin/python train/eval_nli.py --ckpt train/out/nli-ckpt --data train/out/nli.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def balanced(y: np.ndarray, pred: np.ndarray, classes) -> float:
    return float(np.mean([np.mean(pred[y == c] == c) for c in classes if np.any(y == c)]))


def torch_predictor(ckpt: str, max_len: int = 128):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    dev = "cuda" if torch.cuda.is_available() else "cpu"
    tok = AutoTokenizer.from_pretrained(ckpt)
    model = AutoModelForSequenceClassification.from_pretrained(ckpt).to(dev).eval()

    def predict(a: list[str], b: list[str]) -> np.ndarray:
        out = []
        for i in range(0, len(a), 128):
            enc = tok(a[i:i + 128], b[i:i + 128], truncation="longest_first", max_length=max_len, padding=True,
                      return_tensors="pt").to(dev)
            with torch.no_grad():
                out.append(torch.softmax(model(**enc).logits.float(), -1).cpu().numpy())
        return np.concatenate(out) if out else np.zeros((0, 3))
    return predict


def report(predict, rows: list[dict], limit: int | None = None) -> dict:
    res: dict[str, float | int] = {}
    for name, sel in (("vitaminc_test", lambda r: r["src"].startswith("vitaminc") and r["split"] == "test"),
                      ("vitaminc_calib", lambda r: r["src"].startswith("vitaminc") and r["split"] == "calib"),
                      ("cuad_test", lambda r: r["src"] in ("cuad", "off-topic") and r["split"] == "test"),
                      ("cuad_calib", lambda r: r["src"] in ("cuad", "off-topic") and r["split"] == "calib")):
        rs = [r for r in rows if sel(r)][:limit]
        if not rs:
            continue
        p = predict([r["a"] for r in rs], [r["b"] for r in rs])
        y = np.array([r["y"] for r in rs])
        pred = p.argmax(1)
        res[f"{name}_n"] = len(rs)
        res[f"{name}_ba3"] = round(balanced(y, pred, (0, 1, 2)), 3)
        res[f"{name}_ba_supported"] = round(balanced((y == 0).astype(int), (p[:, 0] >= 0.5).astype(int), (0, 1)), 3)
        if name.startswith("cuad"):
            sw = np.array([bool(r.get("swapped")) for r in rs])
            res[f"{name}_swapped_rejected"] = round(float(np.mean(p[sw, 0] < 0.5)), 3)
            res[f"{name}_true_accepted"] = round(float(np.mean(p[y == 0, 0] >= 0.5)), 3)
    bin_rows = [r for r in rows if "yb" in r and r["split"] == "calib"][:limit]
    if bin_rows:
        p = predict([r["a"] for r in bin_rows], [r["b"] for r in bin_rows])
        yb = np.array([r["yb"] for r in bin_rows])
        res["mnli_fever_calib_ba"] = round(balanced(yb, (p[:, 0] >= 0.5).astype(int), (0, 1)), 3)
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", default="train/out/nli-ckpt")
    ap.add_argument("--data", default="train/out/nli.jsonl")
    ap.add_argument("--out", default=None, help="write the figures as JSON here too")
    ap.add_argument("--limit", type=int, default=None, help="first N rows of each slice (a smoke run)")
    args = ap.parse_args(argv)
    rows = [r for r in map(json.loads, Path(args.data).read_text().splitlines()) if r["split"] != "train"]
    res = report(torch_predictor(args.ckpt), rows, args.limit)
    print(json.dumps(res, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
