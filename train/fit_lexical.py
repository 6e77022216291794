"""Fit the lexical judge (workbench.judgment.scores.LexicalJudge): one logistic model per task over
its features, IDF-weighted coverage in the span's document and rescaled MiniLM cosine, and for
support the soft coverage (each claim word's best contextual match in the span).

Data: the pairs of train/build_pairs.py (run it first), cuad-train contracts split by contract:
relevance on the "rel" rows, support on the "sup" rows and the ContractNLI "nli" rows (8 of 17
hypotheses, NDAs of ContractNLI train, never dev). Fitted on the train and calib contracts,
reported on the test contracts (held out), with the shipped weights beside it. The engine ships
the support fit; relevance is printed for reference (the engine's is set by hand: see
workbench/judgment/scores.py LEXICAL_FIT for why). Prints the weights to paste into LEXICAL_FIT. Minutes on 2 cores (embedding the sampled spans).

    .venv/bin/python train/build_pairs.py --out train/out/pairs.jsonl
    .venv/bin/python train/fit_lexical.py [--pairs train/out/pairs.jsonl] [--per-task 6000]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from train.build_pairs import CORPUS, sentences  # noqa: E402
from train.fitting import auc, logistic  # noqa: E402
from workbench.judgment.scores import LEXICAL_FIT, LexicalJudge  # noqa: E402
from workbench.text.weights import TermWeights  # noqa: E402


def doc_texts(rows: list[dict]) -> dict:
    """Each row's document sentences, the way the product weighs words (per document)."""
    out: dict = {}
    nli = None
    for r in rows:
        d = r["doc"]
        if d in out:
            continue
        if r["kind"] == "nli":
            if nli is None:
                data = json.loads((CORPUS / "contract-nli" / "train_truncated.json").read_text())
                nli = {doc["id"]: doc for doc in data["documents"]}
            doc = nli[d]
            out[d] = [re.sub(r"\s+", " ", doc["text"][s:e]) for s, e in doc["spans"]]
        else:
            text, spans = sentences((CORPUS / "cuad-train" / d).read_text(errors="replace"))
            out[d] = [text[s:e] for s, e in spans]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", default=str(ROOT / "train" / "out" / "pairs.jsonl"))
    ap.add_argument("--per-task", type=int, default=6000, help="rows sampled per task and side (fit / test)")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args(argv)

    rows = [json.loads(line) for line in Path(a.pairs).read_text().splitlines()]
    rng = random.Random(a.seed)
    tasks = {"relevance": ("rel",), "support": ("sup", "nli")}
    judge = LexicalJudge()
    fit: dict[str, tuple[float, float, float]] = {}
    for task, kinds in tasks.items():
        sides = {}
        for side, splits in (("fit", ("train", "calib")), ("test", ("test",))):
            pool = [r for r in rows if r["kind"] in kinds and r["split"] in splits]
            sides[side] = rng.sample(pool, min(a.per_task, len(pool)))
        texts = doc_texts(sides["fit"] + sides["test"])
        weights = {d: TermWeights(t) for d, t in texts.items()}
        feats = {}
        for side, rs in sides.items():
            by_text: dict[str, list[int]] = {}
            for i, r in enumerate(rs):
                by_text.setdefault(r["a"], []).append(i)
            X = np.zeros((len(rs), 3))
            for text, idx in by_text.items():
                X[idx] = judge.features(text, [rs[i]["b"] for i in idx], [weights[rs[i]["doc"]] for i in idx],
                                        ("coverage", "cosine", "soft"))
            feats[side] = (X, np.array([r["label"] for r in rs], float))
        X, y = feats["fit"]
        cols = 3 if task == "support" else 2  # soft coverage reads claims; relevance keeps its two (why: engine)
        w, b = logistic(X[:, :cols], y)  # calibrated at the data's own rate: 0.5 means more likely than not
        fit[task] = (*(round(float(x), 3) for x in w), round(b, 3))
        Xt, yt = feats["test"]
        shipped = [("shipped", LEXICAL_FIT[task])] if len(LEXICAL_FIT[task]) == cols + 1 else []  # relevance reads topics too
        for name, (*c, bias) in [("fitted", fit[task]), *shipped]:
            p = 1 / (1 + np.exp(-(Xt[:, :len(c)] @ np.array(c) + bias)))
            bal = 0.5 * ((p[yt == 1] >= 0.5).mean() + (p[yt == 0] < 0.5).mean())
            print(f"{task:9s} {name:8s} held-out contracts n={len(yt)}: AUC {auc(yt, p):.3f}, balanced accuracy "
                  f"at 0.5 {bal:.3f}, mean p {p.mean():.3f} vs rate {yt.mean():.3f}")
    print("LEXICAL_FIT = " + json.dumps(fit))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
