"""Claim checking quality on ContractNLI dev (61 NDAs x 17 hypotheses), held out by hypothesis.

Each NDA is rendered to a PDF (pymupdf.Story, as tools/check_cli.py does), opened with
workbench.pdf, and every hypothesis is checked through the product's own code path:
workbench.pipeline.claims.candidates_for (retriever.search_segments) -> judge_claims features ->
rank -> decide. Reported:

- balanced accuracy, Entailment vs (Contradiction + NotMentioned);
- evidence recall@5: a returned span covers at least half of some gold evidence span (gold
  character spans are mapped to PDF offsets by locating their text), over the claims with gold
  evidence (Entailment and Contradiction).

Leave-hypotheses-out: the ranker and verdict weights are refitted for each held-out hypothesis
on the other 16 only, so no figure comes from weights that saw the hypothesis it is scored on.
`--fit` prints the weights fitted on all of dev (the ones shipped in judge_claims).

    .venv/bin/python bench/bench_contractnli.py            # full dev, a few minutes warm
    .venv/bin/python bench/bench_contractnli.py --docs 15  # quick subset
Embeddings are cached in bench/out/contractnli/ (git-ignored); the first run embeds ~15k spans."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import render_text_pdf as render  # noqa: E402
from workbench.backends import judge_claims as J  # noqa: E402
from workbench.pipeline import claims as C  # noqa: E402
from workbench.text.terms import embed_form  # noqa: E402

DEV = ROOT.parent / "shared" / "corpus" / "contract-nli" / "dev.json"
OUT = ROOT / "bench" / "out" / "contractnli"


class CachedRetriever:
    """workbench.index.retrieve.Retriever's own search_segments, served from the vectors cached
    in bench/out (the same units and the same MiniLM vectors the index store builds)."""

    def __new__(cls):
        from workbench.config import get_settings
        from workbench.index.retrieve import Retriever

        class _Store:
            def __init__(self):
                self.units: dict[str, object] = {}

            def get(self, doc):
                return self.units[doc.document.id]

        class _Embed:
            def __init__(self):
                self.vecs: dict[str, np.ndarray] = {}

            def embed(self, texts):
                return np.stack([self.vecs[t] for t in texts])

        r = Retriever(get_settings(), embedder=_Embed())
        r.store = _Store()
        return r


def prepare(n_docs: int | None):
    """Render, parse, segment and embed the NDAs (cached); gold spans as PDF offsets."""
    from workbench.index.chunking import segment_pieces
    from workbench.index.embed import Embedder
    from workbench.index.store import SEGMENT_WINDOW
    from workbench.pdf.document import open_pdf

    data = json.loads(DEV.read_text())
    hyp = {k: v["hypothesis"] for k, v in data["labels"].items()}
    OUT.mkdir(parents=True, exist_ok=True)
    from types import SimpleNamespace

    from workbench.index.store import Units

    emb = Embedder()
    retr = CachedRetriever()
    vec_of: dict[str, np.ndarray] = retr.embedder.vecs  # raw texts, as the index embeds them
    knn_of: dict[str, np.ndarray] = {}  # embed_form texts, as claim checking embeds them
    keys = sorted(hyp)
    for k, v in zip(keys, emb.embed([hyp[k] for k in keys]), strict=True):
        vec_of[hyp[k]] = v
    for k, v in zip(keys, emb.embed([embed_form(hyp[k]) for k in keys]), strict=True):
        knn_of[embed_form(hyp[k])] = v
    for t, v in zip(J.BACKGROUND, emb.embed([embed_form(t) for t in J.BACKGROUND]), strict=True):
        knn_of[embed_form(t)] = v
    docs = []
    unmapped = total_gold = 0
    for doc in data["documents"][:n_docs]:
        pdf = OUT / f"{doc['id']}.pdf"
        if not pdf.exists():
            render(doc["text"], pdf)
        pd = open_pdf(pdf)
        pieces = segment_pieces(pd, window=SEGMENT_WINDOW)
        texts = [pd.text[p.start:p.end] for p in pieces]
        key = hashlib.sha256(json.dumps([[p.start, p.end] for p in pieces]).encode() + pd.text.encode()).hexdigest()[:16]
        ef = OUT / f"emb-{key}.npy"
        if ef.exists():
            vecs = np.load(ef)
        else:
            vecs = emb.embed(texts)
            np.save(ef, vecs)
        retr.store.units[pd.document.id] = SimpleNamespace(segment_units=Units(pieces, texts, vecs))
        for t, v in zip(texts, vecs, strict=True):
            vec_of[t] = v
        # claim checking embeds the NFKC form of candidate texts: cache those vectors too
        kf = OUT / f"embk-{key}.npy"
        forms = [embed_form(t) for t in texts]
        if kf.exists():
            kvecs = np.load(kf)
        else:
            kvecs = vecs.copy()
            todo = [i for i, (t, f) in enumerate(zip(texts, forms, strict=True)) if t != f]
            if todo:
                kvecs[todo] = emb.embed([forms[i] for i in todo])
            np.save(kf, kvecs)
        for f, v in zip(forms, kvecs, strict=True):
            knn_of[f] = v
        items = []
        for k, a in doc["annotation_sets"][0]["annotations"].items():
            gold = []
            for si in a["spans"]:
                s, e = doc["spans"][si]
                t = doc["text"][s:e].strip()
                if sum(ch.isalnum() for ch in t) < 3:
                    continue  # signature lines, blanks
                total_gold += 1
                sp = pd.locate(t)
                if sp is None:
                    unmapped += 1
                else:
                    gold.append((sp.start, sp.end))
            items.append((k, hyp[k], a["choice"], gold))
        docs.append((pd, items))
    return docs, retr, knn_of, (unmapped, total_gold)


def hit(c, gold) -> bool:
    return any(min(c.end, e) - max(c.start, s) >= 0.5 * (e - s) for s, e in gold)


def fit_lr(X: np.ndarray, y: np.ndarray, l2: float = 1e-2, iters: int = 800, lr: float = 0.5,
           balanced: bool = True, groups: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Logistic regression (numpy, standardised features, L2); weights on the raw scale.
    With `groups` (one label per row: the claim), every group weighs the same and, within it,
    its positives and negatives weigh half each: the fit learns what separates supported from
    unsupported for the same claim, not which claims are often supported."""
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Z = (X - mu) / sd
    w = np.zeros(Z.shape[1])
    b = 0.0
    sw = np.where(y == 1, (1 - y).sum() / max(y.sum(), 1), 1.0) if balanced else np.ones(len(y))
    if groups is not None:
        sw = np.zeros(len(y))
        for g in np.unique(groups):
            m = groups == g
            for cls in (0, 1):
                mc = m & (y == cls)
                if mc.any():
                    sw[mc] = 0.5 / mc.sum()
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(Z @ w + b)))
        g = (p - y) * sw
        w -= lr * (Z.T @ g / sw.sum() + l2 * w)
        b -= lr * g.sum() / sw.sum()
    return w / sd, float(b - (mu / sd) @ w)


def balanced_accuracy(y, pred) -> float:
    y, pred = np.asarray(y, bool), np.asarray(pred, bool)
    return 0.5 * (pred[y].mean() + (~pred[~y]).mean())


def collect(docs, retr, vec_of):
    """Per (doc, hypothesis): the candidate pool with span features, gold and label."""
    def embed(texts):
        return np.stack([vec_of[t] for t in texts])

    background = embed([embed_form(t) for t in J.BACKGROUND])
    rows = []
    for pd, items in docs:
        stats = C.doc_stats(pd)
        for key, claim, label, gold in items:
            cands = C.candidates_for(claim, pd, retr, C.CANDIDATES)
            J.span_features(claim, vec_of[embed_form(claim)], cands, embed([embed_form(c.text) for c in cands]), stats,
                            background)
            rows.append(dict(doc=pd.document.id, hyp=key, claim=claim, label=label, gold=gold, cands=cands, stats=stats))
    return rows


def evaluate(rows, rank_w: dict[str, float], dec_feats: list[str], dec_w: np.ndarray, dec_b: float):
    """recall@5 hits and predictions for rows, with the given weights."""
    hits, probs = [], []
    for r in rows:
        pool = J.rank(r["cands"], rank_w)
        top = J.pick_top(pool, C.EVIDENCE_K)
        if r["gold"]:
            hits.append(any(hit(c, r["gold"]) for c in top))
        v = J.decide(r["claim"], pool, r["stats"], dict(zip(dec_feats, dec_w, strict=True)), dec_b)
        probs.append(v.score if pool else 0.0)
    return hits, np.array(probs)


def fit(rows, rank_feats, dec_feats):
    X = np.array([[c.features[f] for f in rank_feats] for r in rows if r["gold"] for c in r["cands"]])
    y = np.array([hit(c, r["gold"]) for r in rows if r["gold"] for c in r["cands"]], float)
    rw, _ = fit_lr(X, y)
    rank_w = dict(zip(rank_feats, rw, strict=True))
    F = []
    for r in rows:
        pool = J.rank(r["cands"], rank_w)
        f = J.claim_features(r["claim"], pool, r["stats"])
        F.append([f[k] for k in dec_feats])
    yd = np.array([r["label"] == "Entailment" for r in rows], float)
    dw, db = fit_lr(np.array(F), yd, groups=np.array([r["claim"] for r in rows]))
    return rank_w, dw, db


RANK_FEATS = ["cos", "cov", "bm25", "rr", "len", "heading", "margin"]
DECIDE_FEATS = ["cos1", "cov1", "absent_frac", "neg_mismatch", "restrict_missing", "permit_vs_neg",
                "neg_claim_unmatched", "permit_prohibited", "oblige_negated", "neg_claim_prohibited", "cov_top3"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=None, help="first N documents only (quick iteration)")
    ap.add_argument("--fit", action="store_true", help="print the weights fitted on all of dev")
    ap.add_argument("--shipped", action="store_true", help="also score the weights shipped in judge_claims (in-sample)")
    ap.add_argument("--rank-feats", default=",".join(RANK_FEATS))
    ap.add_argument("--decide-feats", default=",".join(DECIDE_FEATS))
    args = ap.parse_args(argv)
    rank_feats, dec_feats = args.rank_feats.split(","), args.decide_feats.split(",")
    t0 = time.time()
    docs, retr, vec_of, (unmapped, total_gold) = prepare(args.docs)
    t1 = time.time()
    rows = collect(docs, retr, vec_of)
    t2 = time.time()
    hyps = sorted({r["hyp"] for r in rows})
    all_hits: list[bool] = []
    y = np.array([r["label"] == "Entailment" for r in rows])
    probs = np.zeros(len(rows))
    per_h = {}
    for h in hyps:
        train = [r for r in rows if r["hyp"] != h]
        test_idx = [i for i, r in enumerate(rows) if r["hyp"] == h]
        rank_w, dw, db = fit(train, rank_feats, dec_feats)
        hits, p = evaluate([rows[i] for i in test_idx], rank_w, dec_feats, dw, db)
        all_hits += hits
        probs[test_idx] = p
        yh = y[test_idx]
        per_h[h] = (len(test_idx), int(yh.sum()), float(((p >= J.THRESHOLD) == yh).mean()),
                    float(np.mean(hits)) if hits else None)
    pred = probs >= J.THRESHOLD
    labels = [r["label"] for r in rows]
    print(f"docs {len(docs)}  claims {len(rows)}  with gold evidence {len(all_hits)}  "
          f"gold spans not located in the PDF {unmapped}/{total_gold}")
    print(f"time: prepare {t1 - t0:.1f}s, candidates+features {t2 - t1:.1f}s, cross-validation {time.time() - t2:.1f}s")
    print("held out by hypothesis (leave-one-hypothesis-out, 17 folds):")
    print(f"  balanced accuracy (Entailment vs rest): {balanced_accuracy(y, pred):.3f}")
    print(f"  evidence recall@5:                      {np.mean(all_hits):.3f}")
    for lab in ("Entailment", "Contradiction", "NotMentioned"):
        m = np.array([x == lab for x in labels])
        print(f"  predicted supported among {lab:13s}: {pred[m].mean():.3f} (n={m.sum()})")
    print("  per hypothesis: n, entailed, accuracy, recall@5")
    for h, (n, pos, acc, rec) in sorted(per_h.items(), key=lambda kv: int(kv[0].split("-")[1])):
        print(f"    {h:6s} n={n:3d} entailed={pos:3d} acc={acc:.2f} recall@5={'-' if rec is None else f'{rec:.2f}'}")
    # references on the same spans: the retriever's own order, and max cosine with its best
    # single threshold chosen in-sample (an upper bound for that baseline)
    base_hits, _ = evaluate(rows, {"rr": 1.0}, [], np.zeros(0), 0.0)
    cos1 = np.array([J.claim_features(r["claim"], J.rank(r["cands"], {"rr": 1.0}), r["stats"])["cos1"] for r in rows])
    best_cos = max(balanced_accuracy(y, cos1 >= t) for t in np.unique(cos1))
    print(f"references: retriever order recall@5 {np.mean(base_hits):.3f}; max-cosine best threshold "
          f"(in-sample) balanced accuracy {best_cos:.3f}; always supported 0.500")
    if args.fit or args.shipped:
        rank_w, dw, db = fit(rows, rank_feats, dec_feats)
        if args.fit:
            print("fitted on all dev (paste into judge_claims):")
            print("  RANK_WEIGHTS =", {k: round(float(v), 4) for k, v in rank_w.items()})
            print("  DECIDE_WEIGHTS =", {k: round(float(v), 4) for k, v in zip(dec_feats, dw, strict=True)})
            print("  DECIDE_BIAS =", round(db, 4))
        if args.shipped:
            hits, p = evaluate(rows, J.RANK_WEIGHTS, list(J.DECIDE_WEIGHTS), np.array(list(J.DECIDE_WEIGHTS.values())),
                               J.DECIDE_BIAS)
            print(f"shipped weights, in-sample: balanced accuracy {balanced_accuracy(y, p >= J.THRESHOLD):.3f}, "
                  f"recall@5 {np.mean(hits):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
