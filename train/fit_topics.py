"""Fit the clause-topic model (workbench/judgment/topics.npz) from cuad-train: what kind of
clause a unit is, read from the product's own MiniLM vectors, so relevance can tell a cap on
liability from a clause that merely says "liability".

- Heads: one logistic regression per CUAD category over the int8 MiniLM sentence vector
  (the vector the engine already computes for cosine) and the sentence's words (binary
  presence of its retrieval stems and stem pairs, workbench.judgment.topics.terms_of), trained on
  the sentences of the cuad-train **train** split (by contract, build_pairs.split_of): a sentence
  overlapping the lawyers' clause for the category is positive, every other sentence of the
  contract negative; each category's classes weighted equally, so a head reads as P(this kind of
  clause) at even odds. L2 (C = 0.1, liblinear: scikit-learn, a training-only requirement);
  words whose weight is under PRUNE for every kind are dropped from the shipped file.
- Bank: the questions a reader might ask per category, so a question finds its categories by
  MiniLM similarity: CUAD's own category descriptions, build_pairs.QUESTIONS' paraphrases
  **except the first**, which train/doc_decision.py asks (so the fit of relevance and its
  held-out report never see a question that is in the bank), and EXTRA_BANK's.

    make fit-topics    # installs train/requirements-topics.txt, then train/fit_topics.py: ~20 min on 2 cores

Figures printed: per head, ROC AUC on the calib split's sentences (contracts never trained on)."""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from train.build_pairs import CORPUS, QUESTIONS, gold_ranges, overlaps, sentences, split_of  # noqa: E402
from train.calibrate import auc  # noqa: E402

OUT = ROOT / "workbench" / "judgment" / "topics.npz"
# Questions we wrote for kinds whose bank lacked the everyday way of asking: without them "How can
# either party end this agreement?" was closest to post-termination services' "What must a party
# do after the agreement ends?" (the issue's reseller case) and lifted the six months after it.
EXTRA_BANK = {"Termination For Convenience": ["How can a party terminate the agreement?",
                                              "What rights does each party have to end the agreement early?"]}
C = 0.1  # L2 strength: chosen on the calib split's mean AUC (0.1: 0.958; 1.0: 0.954)
EMBED_SCALE = 3.0  # the sentence vector's features scaled to weigh against the 0/1 word features
PRUNE = 0.05
CACHE = ROOT / "train" / "out" / "topic_sentences.npz"


def descriptions() -> dict[str, str]:
    """CUAD's description of each category (its README's Category List), by category name."""
    text = (CORPUS / "cuad-train" / "CUAD_v1_README.txt").read_text(errors="replace")
    out = {}
    for m in re.finditer(r"Category:\s*(.+?)\s*\n\s*Description:\s*(.+?)\s*\n", text):
        name = difflib.get_close_matches(_key(m.group(1)), [_key(c) for c in QUESTIONS], n=1, cutoff=0.6)
        if name:
            out[name[0]] = m.group(2).strip()
    return {c: out[_key(c)] for c in QUESTIONS if _key(c) in out}


def _key(name: str) -> str:
    """A category name as both lists spell it alike ("Cap on Liability", "Cap On Liability")."""
    return re.sub(r"\(.*?\)|\b(?:ip|period)\b|[^a-z]", "", name.lower())


def labelled_sentences(split: str, limit: int = 0):
    """(texts, labels[n, categories], contract index) for the split's contracts."""
    cats = list(QUESTIONS)
    rows = [json.loads(line) for line in (CORPUS / "cuad-train" / "labels.jsonl").read_text().splitlines()]
    by_doc: dict[str, dict[str, list[str]]] = {}
    for r in rows:
        if split_of(r["txt"]) == split and r["category"] in QUESTIONS:
            by_doc.setdefault(r["txt"], {})[r["category"]] = r["clauses"]
    texts, labels, owner = [], [], []
    for k, name in enumerate(sorted(by_doc)[:limit or None]):
        doc, spans = sentences((CORPUS / "cuad-train" / name).read_text(errors="replace"))
        golds = {c: gold_ranges(doc, cl) for c, cl in by_doc[name].items() if cl}
        for s, e in spans:
            t = doc[s:e]
            if len(t.split()) < 4:
                continue
            texts.append(t)
            labels.append([bool(golds.get(c)) and overlaps((s, e), golds[c]) for c in cats])
            owner.append(k)
    return texts, np.array(labels, bool), np.array(owner)


def embed(texts: list[str]) -> np.ndarray:
    from workbench.index.embed import embed_texts
    from workbench.text.terms import embed_form

    out = []
    for i in range(0, len(texts), 256):
        out.append(np.asarray(embed_texts([embed_form(t) for t in texts[i:i + 256]]), np.float32))
    return np.concatenate(out) if out else np.zeros((0, 384), np.float32)


def word_matrix(texts: list[str], vocabulary: dict[str, int] | None = None):
    """Binary term presence (CSR), the terms as the product reads them; a vocabulary of terms
    seen in at least 3 training sentences when none is given."""
    from scipy import sparse

    from workbench.judgment.topics import terms_of

    rows = [terms_of(t) for t in texts]
    if vocabulary is None:
        df: dict[str, int] = {}
        for r in rows:
            for w in r:
                df[w] = df.get(w, 0) + 1
        vocabulary = {w: i for i, w in enumerate(sorted(w for w, n in df.items() if n >= 3))}
    ind, ptr = [], [0]
    for r in rows:
        ind.extend(sorted(vocabulary[w] for w in r if w in vocabulary))
        ptr.append(len(ind))
    M = sparse.csr_matrix((np.ones(len(ind), np.float64), np.array(ind, np.int64), np.array(ptr, np.int64)),
                          shape=(len(texts), len(vocabulary)))
    return M, vocabulary


def fit_heads(B, X: np.ndarray, Y: np.ndarray):
    """One-vs-rest logistic regressions over [words, EMBED_SCALE * vector], each head's classes
    balanced; returns (term weights (terms, kinds), vector weights (dim, kinds), biases)."""
    from scipy import sparse
    from sklearn.linear_model import LogisticRegression

    A = sparse.hstack([B, sparse.csr_matrix(X * EMBED_SCALE)]).tocsr()
    T, W, b = [], [], []
    for j in range(Y.shape[1]):
        m = LogisticRegression(C=C, class_weight="balanced", solver="liblinear", max_iter=300, random_state=0)
        m.fit(A, Y[:, j])
        T.append(m.coef_[0, :B.shape[1]])
        W.append(m.coef_[0, B.shape[1]:] * EMBED_SCALE)
        b.append(m.intercept_[0])
    return np.array(T).T, np.array(W).T, np.array(b)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=0, help="first N contracts of each split (a quick try)")
    ap.add_argument("--out", default=str(OUT))
    a = ap.parse_args(argv)
    cats = list(QUESTIONS)
    t0 = time.time()
    data = {}
    for split in ("train", "calib"):
        texts, Y, owner = labelled_sentences(split, a.limit)
        cache = CACHE.with_name(f"topic_sentences_{split}_{a.limit}.npz")
        if cache.exists() and np.load(cache)["X"].shape[0] == len(texts):
            X = np.load(cache)["X"]
        else:
            X = embed(texts)
            cache.parent.mkdir(parents=True, exist_ok=True)
            np.savez_compressed(cache, X=X)
        data[split] = (texts, X, Y)
        print(f"{split}: {len(texts)} sentences of {owner.max() + 1} contracts embedded ({time.time() - t0:.0f} s)",
              flush=True)
    texts, X, Y = data["train"]
    B, vocabulary = word_matrix(texts)
    T, W, b = fit_heads(B, X.astype(np.float64), Y)
    keep = np.flatnonzero(np.abs(T).max(1) >= PRUNE)
    terms = sorted(vocabulary, key=vocabulary.get)
    terms, T = [terms[i] for i in keep], T[keep].astype(np.float16)
    print(f"heads fitted ({time.time() - t0:.0f} s): {len(terms)} of {len(vocabulary)} terms kept", flush=True)
    tc, Xc, Yc = data["calib"]
    Bc, _ = word_matrix(tc, {w: i for i, w in enumerate(terms)})
    Pc = Bc @ T.astype(np.float32) + Xc @ W + b
    aucs = {c: auc(Yc[:, j], Pc[:, j]) for j, c in enumerate(cats) if Yc[:, j].any()}
    for c, v in aucs.items():
        print(f"  {c:36s} calib AUC {v:.3f} ({int(Yc[:, cats.index(c)].sum())} positive sentences)")
    print(f"mean calib AUC over {len(aucs)} categories: {np.mean(list(aucs.values())):.3f}")
    desc = descriptions()
    bank, owner_cat = [], []
    for j, c in enumerate(cats):
        for q in [*QUESTIONS[c][1:], *EXTRA_BANK.get(c, []), *([desc[c]] if c in desc else [])]:
            bank.append(q)
            owner_cat.append(j)
    print(f"bank: {len(bank)} questions ({len(desc)} descriptions) for {len(cats)} categories")
    np.savez_compressed(a.out, categories=np.array(cats), W=W.astype(np.float32), b=b.astype(np.float32),
                        terms=np.array(terms), T=T, bank=np.array(bank),
                        bank_category=np.array(owner_cat, np.int16), bank_vectors=embed(bank).astype(np.float16))
    print(f"wrote {a.out} ({Path(a.out).stat().st_size / 1e6:.2f} MB) in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
