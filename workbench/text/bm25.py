"""Okapi BM25, once: the index ranks chunks and segments with `BM25`, claim checking scores a
span against one document's statistics with `bm25_term`."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from workbench.text.terms import tokenize

K1, B = 1.2, 0.75


def idf(n_docs: int, df: int) -> float:
    """BM25's (always positive) inverse document frequency."""
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5))


def bm25_term(idf_value: float, tf: float, doc_len: float, avg_len: float, k1: float = K1, b: float = B) -> float:
    """One term's BM25 contribution to one text."""
    return idf_value * tf * (k1 + 1) / (tf + k1 * (1 - b + b * doc_len / avg_len))


class BM25:
    """Okapi BM25 (k1, b) over a fixed list of texts; `scores(query)` gives one score per text."""

    def __init__(self, texts: list[str], k1: float = K1, b: float = B, tokens: list[list[str]] | None = None):
        """`tokens`, when given, are tokenize(text) for each text, computed earlier."""
        self.k1, self.b = k1, b
        docs = tokens if tokens is not None else [tokenize(t) for t in texts]
        self.n = len(docs)
        self.lengths = np.array([len(d) for d in docs], dtype=np.float32)
        self.avgdl = float(self.lengths.mean()) if self.n and self.lengths.sum() else 1.0
        postings: dict[str, list[tuple[int, int]]] = {}
        for i, d in enumerate(docs):
            for term, tf in Counter(d).items():
                postings.setdefault(term, []).append((i, tf))
        self.postings = {
            t: (np.array([i for i, _ in p], dtype=np.int64), np.array([tf for _, tf in p], dtype=np.float32))
            for t, p in postings.items()
        }
        self.idf = {t: idf(self.n, len(p)) for t, p in postings.items()}
        self._norm = self.k1 * (1 - self.b + self.b * self.lengths / self.avgdl)

    def scores(self, query: str) -> np.ndarray:
        out = np.zeros(self.n, dtype=np.float32)
        for term in set(tokenize(query)):
            if term not in self.postings:
                continue
            idx, tf = self.postings[term]
            out[idx] += self.idf[term] * tf * (self.k1 + 1) / (tf + self._norm[idx])
        return out
