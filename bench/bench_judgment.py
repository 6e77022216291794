"""The learned judge (workbench.judgment) on data it was not trained on.

1. ContractNLI dev (61 NDAs x 17 hypotheses; no dev document was trained on). Candidates are
   BM25's best `--pool` spans of each NDA for the hypothesis (the dataset's own spans), each
   scored by the model (relevance and support, one pass).
   - balanced accuracy, Entailment vs (Contradiction + NotMentioned), as bench_contractnli.py
     defines it: a hypothesis is predicted supported when its best candidate's support is >= the
     calibrated threshold (0.5; never tuned on dev).
   - evidence recall@5: one of the 5 candidates the relevance output ranks first is a gold
     evidence span (claims with evidence: Entailment and Contradiction; a contradicting span is
     relevant, not supporting), against BM25's order and the pool's ceiling.
   Reported on the 9 hypotheses never trained on (held out by hypothesis) and on all 17
   (8 of them were trained on, on other NDAs: not held out by hypothesis).
2. CUAD-train test split (20 % of the contracts, never trained or calibrated on):
   - relevance: for each (contract, category) with a gold clause, the category's first question
     against BM25's 20 best sentences of the contract, re-ranked by `relevance`; recall@1/@5 of a
     gold sentence, against BM25's own order.
   - swapped facts: claims built from the lawyers' normalised answers (governing law, dates,
     renewal and notice periods) against the gold sentence, true and with the fact swapped:
     the share of swapped claims rejected and of true claims accepted, model alone and with the
     fact gate (`judge_support`).
3. Warm latency of `judge_support` for one claim against 10 and 20 spans.

    PYTHONPATH=. .venv/bin/python bench/bench_judgment.py [--docs N] [--skip-nli] [--model-dir DIR]
    PYTHONPATH=. .venv/bin/python bench/bench_judgment.py --engine   # the shipped engine's judge, CUAD checks
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from train.build_pairs import BM25, CORPUS, QUESTIONS, TRAIN_HYPS, gold_ranges, overlaps, sentences, split_of  # noqa: E402
from workbench.judgment import model as M  # noqa: E402


def balanced_accuracy(y, pred) -> float:
    y, pred = np.asarray(y, bool), np.asarray(pred, bool)
    return 0.5 * (pred[y].mean() + (~pred[~y]).mean())


def nli_scores(path: Path, n_docs: int | None, pool: int):
    """Per (doc, hypothesis): label, gold span indices, the candidate spans (BM25's `pool` best
    spans of the NDA for the hypothesis, as a retriever would hand them over) and both of the
    model's calibrated scores for each candidate."""
    data = json.loads(path.read_text())
    hyp = {k: v["hypothesis"] for k, v in data["labels"].items()}
    scorer = M.get_scorer()
    rows = []
    for doc in data["documents"][:n_docs]:
        texts = [" ".join(doc["text"][s:e].split()) for s, e in doc["spans"]]
        ok = [i for i, t in enumerate(texts) if sum(ch.isalnum() for ch in t) >= 3]
        bm = BM25([texts[i] for i in ok])
        for key, a in doc["annotation_sets"][0]["annotations"].items():
            sc = bm.scores(hyp[key])
            cand = [ok[j] for j in sorted(range(len(ok)), key=lambda j: -sc[j])[:pool]]
            z = scorer.raw(hyp[key], [texts[i] for i in cand])
            rows.append(dict(hyp=key, label=a["choice"], gold=set(a["spans"]), cand=cand,
                             rel=scorer.probability("relevance", z[:, 0]), sup=scorer.probability("support", z[:, 1])))
    return rows


def nli_report(rows, threshold: float, name: str) -> None:
    y = np.array([r["label"] == "Entailment" for r in rows])
    best = np.array([r["sup"].max() if len(r["sup"]) else 0.0 for r in rows])
    with_gold = [r for r in rows if r["gold"]]
    hits = [bool({r["cand"][j] for j in np.argsort(-r["rel"], kind="stable")[:5]} & r["gold"]) for r in with_gold]
    hits_sup = [bool({r["cand"][j] for j in np.argsort(-r["sup"], kind="stable")[:5]} & r["gold"]) for r in with_gold]
    bm = [bool(set(r["cand"][:5]) & r["gold"]) for r in with_gold]
    ceil = [bool(set(r["cand"]) & r["gold"]) for r in with_gold]
    ba = balanced_accuracy(y, best >= threshold)
    print(f"  {name:30s} n={len(rows):4d}  balanced accuracy {ba:.3f} (supported: entailed "
          f"{(best >= threshold)[y].mean():.2f}, others {(best >= threshold)[~y].mean():.2f})")
    print(f"  {'':30s} evidence recall@5 by relevance {np.mean(hits):.3f}, by support {np.mean(hits_sup):.3f}, "
          f"BM25 order {np.mean(bm):.3f}, pool ceiling {np.mean(ceil):.3f} (n={len(hits)})")


def contractnli(n_docs: int | None, pool: int) -> None:
    t0 = time.time()
    dev = nli_scores(CORPUS / "contract-nli" / "dev.json", n_docs, pool)
    print(f"ContractNLI dev ({time.time() - t0:.0f} s; candidates: BM25's {pool} best spans per hypothesis; "
          f"threshold: the calibrated {M.SUPPORT_THRESHOLD})")
    held = [r for r in dev if r["hyp"] not in TRAIN_HYPS]
    t = M.SUPPORT_THRESHOLD
    nli_report(held, t, "dev, 9 held-out hypotheses")
    nli_report([r for r in dev if r["hyp"] in TRAIN_HYPS], t, "dev, 8 hypotheses trained on")
    nli_report(dev, t, "dev, all 17 hypotheses")


def cuad_relevance() -> None:
    rows = [json.loads(line) for line in (CORPUS / "cuad-train" / "labels.jsonl").read_text().splitlines()]
    test = [r for r in rows if split_of(r["txt"]) == "test" and r["category"] in QUESTIONS and r["clauses"]]
    by_doc: dict[str, list[dict]] = {}
    for r in test:
        by_doc.setdefault(r["txt"], []).append(r)
    hits_m = {1: [], 5: []}
    hits_b = {1: [], 5: []}
    ceiling: list[bool] = []
    t0 = time.time()
    n = 0
    for name in sorted(by_doc):
        doc, spans = sentences((CORPUS / "cuad-train" / name).read_text(errors="replace"))
        texts = [doc[s:e] for s, e in spans]
        keep = [i for i, t in enumerate(texts) if len(t.split()) >= 4]
        bm = BM25([texts[i] for i in keep])
        for r in by_doc[name]:
            golds = gold_ranges(doc, r["clauses"])
            pos = {i for i in keep if overlaps(spans[i], golds)}
            if not pos:
                continue
            q = QUESTIONS[r["category"]][0]
            sc = bm.scores(q)
            cand = [keep[j] for j in sorted(range(len(keep)), key=lambda j: -sc[j])[:20]]
            p = M.relevance(q, [texts[i] for i in cand])
            ranked = [cand[j] for j in np.argsort(-p, kind="stable")]
            ceiling.append(bool(set(cand) & pos))
            for k in (1, 5):
                hits_m[k].append(bool(set(ranked[:k]) & pos))
                hits_b[k].append(bool(set(cand[:k]) & pos))
            n += 1
    print(f"CUAD-train test split relevance: {len(by_doc)} contracts, {n} (contract, category) pairs with a "
          f"located gold clause ({time.time() - t0:.0f} s)")
    print(f"  gold sentence among BM25's 20 candidates (the ceiling): {np.mean(ceiling):.3f}")
    print(f"  model re-rank of BM25 top 20: recall@1 {np.mean(hits_m[1]):.3f}  recall@5 {np.mean(hits_m[5]):.3f}")
    print(f"  BM25 order alone:             recall@1 {np.mean(hits_b[1]):.3f}  recall@5 {np.mean(hits_b[5]):.3f}")


def swapped_facts() -> None:
    pairs = [json.loads(line) for line in (ROOT / "train" / "out" / "pairs.jsonl").read_text().splitlines()]
    facts = [r for r in pairs if r["split"] == "test" and r["kind"] == "sup" and r.get("fact")]
    # true claim and swapped claim on the gold sentence (the pairs where the span is the gold)
    true = [r for r in facts if r["label"] == 1]
    swapped = [r for r in facts if r.get("swapped")]
    res = {}
    for name, rs in (("true", true), ("swapped", swapped)):
        js = [M.judge_support(r["a"], [r["b"]])[0] for r in rs]
        res[name] = (np.array([j.model_score >= 0.5 for j in js]), np.array([j.supported for j in js]), js)
    print(f"CUAD-train test split fact claims: {len(true)} true, {len(swapped)} with the fact swapped "
          f"(on the gold sentence)")
    print(f"  swapped rejected: model alone {1 - res['swapped'][0].mean():.3f}, with fact gate "
          f"{1 - res['swapped'][1].mean():.3f}")
    print(f"  true accepted:    model alone {res['true'][0].mean():.3f}, with fact gate {res['true'][1].mean():.3f}")
    by_cat: dict[str, list[bool]] = {}
    for r, ok in zip(swapped, res["swapped"][1], strict=True):
        by_cat.setdefault(r["cat"], []).append(not ok)
    print("  swapped rejected by category (with gate):",
          ", ".join(f"{k} {np.mean(v):.2f} (n={len(v)})" for k, v in sorted(by_cat.items())))
    missed = [(r["a"], r["b"][:160]) for r, ok in zip(swapped, res["swapped"][1], strict=True) if ok][:3]
    for a, b in missed:
        print(f"    accepted swapped: {a!r} | {b!r}")


def engine_checks() -> None:
    """The shipped engine's judge (engine.get_judge(), words weighed in each contract) on the
    same held-out contracts: relevance re-ranking of BM25's 20, and swapped-fact claims through
    engine.judge_claim (support and the fact gate, as `verify` decides)."""
    from workbench.backends import engine
    from workbench.text.weights import TermWeights

    judge = engine.get_judge()
    rows = [json.loads(line) for line in (CORPUS / "cuad-train" / "labels.jsonl").read_text().splitlines()]
    test = [r for r in rows if split_of(r["txt"]) == "test" and r["category"] in QUESTIONS and r["clauses"]]
    by_doc: dict[str, list[dict]] = {}
    for r in test:
        by_doc.setdefault(r["txt"], []).append(r)
    hits = {1: [], 5: []}
    weights: dict[str, TermWeights] = {}
    for name in sorted(by_doc):
        doc, spans = sentences((CORPUS / "cuad-train" / name).read_text(errors="replace"))
        texts = [doc[s:e] for s, e in spans]
        weights[name] = w = TermWeights(texts)
        keep = [i for i, t in enumerate(texts) if len(t.split()) >= 4]
        bm = BM25([texts[i] for i in keep])
        for r in by_doc[name]:
            pos = {i for i in keep if overlaps(spans[i], gold_ranges(doc, r["clauses"]))}
            if not pos:
                continue
            q = QUESTIONS[r["category"]][0]
            sc = bm.scores(q)
            cand = [keep[j] for j in sorted(range(len(keep)), key=lambda j: -sc[j])[:20]]
            p = judge.relevance(q, [texts[i] for i in cand], [w] * len(cand))
            ranked = [cand[j] for j in np.argsort(-p, kind="stable")]
            for k in (1, 5):
                hits[k].append(bool(set(ranked[:k]) & pos))
    print(f"engine judge, CUAD-train test split relevance re-rank of BM25's 20: recall@1 {np.mean(hits[1]):.3f}  "
          f"recall@5 {np.mean(hits[5]):.3f} (n={len(hits[1])})")
    pairs = [json.loads(line) for line in (ROOT / "train" / "out" / "pairs.jsonl").read_text().splitlines()]
    facts = [r for r in pairs if r["split"] == "test" and r["kind"] == "sup" and r.get("fact")]
    for name, rs in (("true claims accepted", [r for r in facts if r["label"] == 1]),
                     ("swapped claims rejected", [r for r in facts if r.get("swapped")])):
        ok = []
        for r in rs:
            w = weights.get(r["doc"])
            v = engine.judge_claim(r["a"], [r["b"]], judge.support(r["a"], [r["b"]], [w]))
            ok.append(v.supported)
        share = np.mean(ok) if name.startswith("true") else 1 - np.mean(ok)
        print(f"engine judge + fact gate, {name}: {share:.3f} (n={len(rs)})")


def latency() -> None:
    text = (CORPUS / "cuad" / "txt").glob("*.txt").__next__().read_text(errors="replace")
    doc, spans = sentences(text)
    texts = [doc[s:e] for s, e in spans if len(doc[s:e].split()) >= 6]
    claim = "This Agreement is governed by the laws of the State of New York."
    M.judge_support(claim, texts[:20])  # warm
    for k in (10, 20):
        ts = []
        for i in range(5):
            t0 = time.perf_counter()
            M.judge_support(claim, texts[i * k:(i + 1) * k])
            ts.append(time.perf_counter() - t0)
        print(f"warm judge_support, 1 claim x {k} spans: median {statistics.median(ts) * 1000:.0f} ms "
              f"(min {min(ts) * 1000:.0f}, max {max(ts) * 1000:.0f})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=None, help="first N ContractNLI documents only")
    ap.add_argument("--skip-nli", action="store_true")
    ap.add_argument("--pool", type=int, default=20, help="ContractNLI candidates per hypothesis (BM25's best)")
    ap.add_argument("--model-dir", default=None, help="a model folder other than the committed one (a candidate)")
    ap.add_argument("--engine", action="store_true", help="only the shipped engine's judge on the CUAD checks")
    args = ap.parse_args(argv)
    if args.engine:
        engine_checks()
        return 0
    if args.model_dir:
        M.MODEL_DIR = Path(args.model_dir)
    t0 = time.perf_counter()
    M.get_scorer()
    print(f"model load: {time.perf_counter() - t0:.2f} s; files {M.MODEL_DIR}")
    latency()
    swapped_facts()
    cuad_relevance()
    if not args.skip_nli:
        contractnli(args.docs, args.pool)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
