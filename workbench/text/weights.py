"""How much a word says about which sentence of a document answers: inverse document frequency
over that document's own sentences (BM25's idea). In an NDA "Confidential Information" is in every
other sentence and "employees" in three; in a security standard "system" is everywhere. Weighing
shared words by it is what lets term overlap find the clause instead of any clause.

Weights are kept per document id (bounded, thread-safe), learned the first time a document's
sentences are read (`remember`), and looked up by every scorer that sees only texts and ids."""

from __future__ import annotations

import math
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable

from workbench.text.terms import content_terms

MAX_DOCUMENTS = 256

# A definition's parenthesis of quoted names: (“we,” “us,” or “our”), (“you” or the “Franchisee”),
# ("Franchisor" or "us"). Nothing but the names and the words that join them.
_PAREN = re.compile(r"\(([^()]{1,160})\)")
_QUOTED = re.compile(r"[“\"]([^”\"]{1,40})[”\"]")
_JOINING = re.compile(r"(?i)\b(?:or|and|the|hereinafter|herein|referred|to|as|collectively|each|a)\b|[\s,;]")
_PRONOUNS = {"we": "we", "us": "we", "our": "we", "you": "you", "your": "you"}
_PRONOUN_WORD = re.compile(r"\b([Ww]e|WE|us|[Oo]ur|OUR|[Yy]ou|YOU|[Yy]our|YOUR)\b")  # "US" is a country


def party_aliases(texts: Iterable[str]) -> dict[str, frozenset[str]]:
    """The defined names a contract gives "we"/"us"/"our" and "you"/"your", as stems: Goosehead's
    franchise agreement defines itself as (“we,” “us,” or “our”) and elsewhere (“Franchisor” or
    “us”), the franchisee as (“you” or the “Franchisee”). {"we": {"franchisor"}, "you":
    {"franchise"}}: a question about what the franchisor may do is about the sentences where "we"
    may do it. Names defined with no pronoun give nothing."""
    groups: list[set[str]] = []
    for t in texts:
        for m in _PAREN.finditer(t):
            inner = m.group(1)
            names = [" ".join(q.split()).lower().rstrip(",") for q in _QUOTED.findall(inner)]
            if names and not _JOINING.sub("", _QUOTED.sub("", inner)):
                groups.append(set(names))
    merged: list[set[str]] = []
    for g in groups:  # groups that share a name name one party
        hit = [m for m in merged if m & g]
        for m in hit:
            merged.remove(m)
            g |= m
        merged.append(g)
    out: dict[str, set[str]] = {}
    for g in merged:
        for person in {_PRONOUNS[n] for n in g if n in _PRONOUNS}:
            out.setdefault(person, set()).update(st for n in g if n not in _PRONOUNS for st in content_terms(n))
    return {k: frozenset(v) for k, v in out.items() if v}


class TermWeights:
    """IDF of content terms (stems) over one document's sentences, and the document's source type
    (set by whoever reads the document: "contract" lets relevance read clause topics). A contract
    that names its parties "we" and "you" reads those words as the names (party_aliases)."""

    def __init__(self, texts: Iterable[str], source_type: str | None = None):
        self.source_type = source_type
        texts = list(texts)
        self.aliases = party_aliases(texts)
        df: Counter[str] = Counter()
        for t in texts:
            df.update(self.terms_of(t))
        self.n = len(texts)
        self._df = df

    def terms_of(self, text: str) -> set[str]:
        """The content terms of a text of this document, with the parties' defined names where it
        says "we" or "you"."""
        terms = set(content_terms(text))
        if self.aliases:
            for w in {_PRONOUNS[m.group(1).lower()] for m in _PRONOUN_WORD.finditer(text)}:
                terms |= self.aliases.get(w, frozenset())
        return terms

    def idf(self, term: str) -> float:
        """log((n + 1) / (df + 0.5)): a word in every sentence weighs ~0, one the document never
        uses weighs most (a claim's word the document lacks should cost the most)."""
        return math.log((self.n + 1) / (self._df.get(term, 0) + 0.5))

    def sentences_with(self, term: str) -> int:
        """How many of the document's sentences have this content term (a stem)."""
        return self._df.get(term, 0)

    def uses(self, term: str) -> bool:
        """Whether any sentence of the document has this content term (a stem)."""
        return term in self._df

    def coverage(self, terms: set[str], span_terms: set[str]) -> float:
        """The IDF-weighted share of `terms` that `span_terms` contains, in [0, 1].

        Summed in sorted order so the figure does not depend on the process's hash seed
        (set order), and a span holding every term covers exactly 1.0."""
        total = sum(self.idf(t) for t in sorted(terms))
        if total <= 0:
            return 0.0
        covered = terms & span_terms
        if covered == terms:
            return 1.0
        return sum(self.idf(t) for t in sorted(covered)) / total


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
