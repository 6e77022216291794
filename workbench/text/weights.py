"""How much a word says about which sentence of a document answers: inverse document frequency
over that document's own sentences (BM25's idea). In an NDA "Confidential Information" is in every
other sentence and "employees" in three; in a security standard "system" is everywhere. Weighing
shared words by it is what lets term overlap find the clause instead of any clause.

Weights are kept per document id (bounded, thread-safe), learned the first time a document's
sentences are read (`remember`), and looked up by every scorer that sees only texts and ids."""

from __future__ import annotations

import math
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable

from workbench.text.terms import content_terms

MAX_DOCUMENTS = 256


class TermWeights:
    """IDF of content terms (stems) over one document's sentences, and the document's source type
    (set by whoever reads the document: "contract" lets relevance read clause topics)."""

    def __init__(self, texts: Iterable[str], source_type: str | None = None):
        self.source_type = source_type
        df: Counter[str] = Counter()
        n = 0
        for t in texts:
            df.update(set(content_terms(t)))
            n += 1
        self.n = n
        self._df = df

    def idf(self, term: str) -> float:
        """log((n + 1) / (df + 0.5)): a word in every sentence weighs ~0, one the document never
        uses weighs most (a claim's word the document lacks should cost the most)."""
        return math.log((self.n + 1) / (self._df.get(term, 0) + 0.5))

    def uses(self, term: str) -> bool:
        """Whether any sentence of the document has this content term (a stem)."""
        return term in self._df

    def coverage(self, terms: set[str], span_terms: set[str]) -> float:
        """The IDF-weighted share of `terms` that `span_terms` contains, in [0, 1]."""
        total = sum(self.idf(t) for t in terms)
        return sum(self.idf(t) for t in terms & span_terms) / total if total > 0 else 0.0


_docs: OrderedDict[str, TermWeights] = OrderedDict()
_lock = threading.Lock()


def remember(document_id: str, texts: Callable[[], Iterable[str]]) -> TermWeights:
    """The weights of a document, computed from `texts()` (its sentences) the first time."""
    with _lock:
        w = _docs.get(document_id)
        if w is not None:
            _docs.move_to_end(document_id)
            return w
    w = TermWeights(texts())
    with _lock:
        _docs[document_id] = w
        while len(_docs) > MAX_DOCUMENTS:
            _docs.popitem(last=False)
    return w


def weights_for(document_id: str | None) -> TermWeights | None:
    """The remembered weights of a document, or None (scorers then weigh every word alike)."""
    if document_id is None:
        return None
    with _lock:
        return _docs.get(document_id)
