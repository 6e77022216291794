"""The support model held out, as the product runs it (int8 ONNX, calibrated; workbench.judgment.model):

- VitaminC, the test pages of train/build_nli.py (split by Wikipedia page: never trained,
  calibrated or tuned on): balanced accuracy of the three-way verdict and of supported-vs-not;
- swapped facts, CUAD-train's test contracts (build_pairs.py, split by contract): fact claims
  (governing law, dates, renewal and notice periods, from the lawyers' normalised answers) on
  their gold sentence, true and with another contract's fact (or the clause's fact swapped), judged by the engine as
  `verify` does (judge_claim: the support model's scores and the fact gate): the share of swapped
  claims rejected and of true claims accepted, for the model judge and the lexical judge;
- latency: warm `judge_claim` for one claim against 40 contract units (what one document gives
  `verify`), both judges.

Needs train/out/nli.jsonl (`.venv/bin/python train/build_nli.py`, after train/build_pairs.py).

    PYTHONPATH=. .venv/bin/python bench/bench_support.py [--limit N] [--model DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"


def balanced(y: np.ndarray, pred: np.ndarray, classes) -> float:
    return float(np.mean([np.mean(pred[y == c] == c) for c in classes if np.any(y == c)]))


def vitaminc(model, rows: list[dict]) -> dict:
    test = [r for r in rows if r["src"].startswith("vitaminc") and r["split"] == "test"]
    p = np.zeros((len(test), 3))
    by_claim: dict[str, list[int]] = {}
    for i, r in enumerate(test):
        by_claim.setdefault(r["a"], []).append(i)
    for claim, idx in by_claim.items():
        p[idx] = model.probabilities(claim, [test[i]["b"] for i in idx])
    y = np.array([r["y"] for r in test])
    out = {"n": len(test), "pages": len({r.get("page") for r in test}),
           "balanced_accuracy_3way": round(balanced(y, p.argmax(1), (0, 1, 2)), 3),
           "balanced_accuracy_supported": round(balanced((y == 0).astype(int), (p[:, 0] >= 0.5).astype(int), (0, 1)), 3)}
    for src in ("vitaminc-real", "vitaminc-synthetic"):
        sel = np.array([r["src"] == src for r in test])
        out[f"{src}_balanced_accuracy_3way"] = round(balanced(y[sel], p[sel].argmax(1), (0, 1, 2)), 3)
    return out


def swapped(judge, rows: list[dict]) -> dict:
    from workbench.backends import engine

    facts = [r for r in rows if r["src"] == "cuad" and r["split"] == "test" and r.get("fact")]
    true = [r for r in facts if r["y"] == 0]
    swap = [r for r in facts if r.get("swapped")]
    out = {}
    for name, rs in (("true_accepted", true), ("swapped_rejected", swap)):
        ok = []
        for r in rs:
            sup = judge.support(r["a"], [r["b"]])
            contra = judge.contradiction(r["a"], [r["b"]]) if hasattr(judge, "contradiction") else None
            ok.append(engine.judge_claim(r["a"], [r["b"]], sup, contradiction=contra).supported)
        out[name] = round(float(np.mean(ok) if name == "true_accepted" else 1 - np.mean(ok)), 3)
        out[name.split("_")[0] + "_n"] = len(rs)
    return out


def latency(judge) -> dict:
    from train.build_pairs import sentences
    from workbench.backends import engine

    text = max((CORPUS / "cuad" / "txt").glob("*.txt"), key=lambda f: f.stat().st_size).read_text(errors="replace")
    doc, spans = sentences(text)
    units = [doc[s:e] for s, e in spans if len(doc[s:e].split()) >= 8][:200]
    claims = ["This Agreement is governed by the laws of the State of New York.",
              "Either party may terminate this Agreement on thirty days notice.",
              "The Company shall pay all fees within 30 days of invoice.",
              "Reseller may not assign this Agreement without consent.",
              "The term of this Agreement is five years."]
    batch = units[:40]
    judge.support("The parties agree as follows.", batch)  # a document's units are read once, as in `verify`
    ts = []
    for c in claims:
        t = time.perf_counter()
        sup = judge.support(c, batch)
        contra = judge.contradiction(c, batch) if hasattr(judge, "contradiction") else None
        engine.judge_claim(c, batch, sup, contradiction=contra)
        ts.append(time.perf_counter() - t)
    return {"claim_x_40_units_median_s": round(statistics.median(ts), 3), "max_s": round(max(ts), 3)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(ROOT / "train" / "out" / "nli.jsonl"))
    ap.add_argument("--model", default=None, help="a model folder other than the shipped one")
    ap.add_argument("--skip-vitaminc", action="store_true")
    args = ap.parse_args(argv)
    from workbench.judgment.model import ModelJudge, get_model
    from workbench.judgment.scores import LexicalJudge

    rows = [json.loads(line) for line in Path(args.data).read_text().splitlines()]
    rows = [r for r in rows if r["split"] == "test"]
    model = get_model(args.model)
    res: dict = {}
    if not args.skip_vitaminc:
        res["vitaminc_test"] = vitaminc(model, rows)
        print("VitaminC test pages:", res["vitaminc_test"], flush=True)
    for name, judge in (("model", ModelJudge(LexicalJudge(), args.model)), ("lexical", LexicalJudge())):
        res[f"swapped_facts_{name}"] = swapped(judge, rows)
        print(f"swapped facts, {name} judge + fact gate:", res[f"swapped_facts_{name}"], flush=True)
        res[f"latency_{name}"] = latency(judge)
        print(f"latency, {name} judge:", res[f"latency_{name}"], flush=True)
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench_support.json").write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
