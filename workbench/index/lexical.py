"""BM25 over short texts (chunks or segments), with Porter stemming and an English stop list.
Small enough to build in memory on every load, so only the texts are persisted."""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache

import numpy as np

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not of off on once only or other our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then there these they
    this those through to too under until up very was we were what when where which while who whom
    why will with would you your yours yourself yourselves s t""".split()  # noqa: SIM905
)
# Negations and modals carry meaning for requirements and claims: keep them.
STOPWORDS = STOPWORDS - {"no", "nor", "not", "should", "can", "could", "will", "would", "only", "all", "any"}


@lru_cache(maxsize=1)
def _stemmer():
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    return _stemmer().stem(word)


def tokenize(text: str) -> list[str]:
    """Lowercased, stemmed content words."""
    return [stem(w.replace("'", "")) for w in _TOKEN.findall(text.lower()) if w not in STOPWORDS]


class BM25:
    """Okapi BM25 (k1, b) over a fixed list of texts; `scores(query)` gives one score per text."""

    def __init__(self, texts: list[str], k1: float = 1.2, b: float = 0.75, tokens: list[list[str]] | None = None):
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
        self.idf = {t: math.log(1 + (self.n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in postings.items()}
        self._norm = self.k1 * (1 - self.b + self.b * self.lengths / self.avgdl)

    def scores(self, query: str) -> np.ndarray:
        out = np.zeros(self.n, dtype=np.float32)
        for term in set(tokenize(query)):
            if term not in self.postings:
                continue
            idx, tf = self.postings[term]
            out[idx] += self.idf[term] * tf * (self.k1 + 1) / (tf + self._norm[idx])
        return out
