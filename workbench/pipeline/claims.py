"""Claim checking (seed 004's validate step): for each claim, find the spans of the documents
that bear on it, rank them, and decide supported / unsupported with a score and a reason.

Candidates come from the index (`retriever.search_segments`: sentences and runs of adjacent
sentences, hybrid lexical + vector); the judgement (re-ranking and the verdict) is
workbench.backends.judge_claims, shared with the ContractNLI benchmark."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from workbench.backends import judge_claims as J
from workbench.models import ClaimCheck

CANDIDATES = 40  # spans asked of the retriever per claim and document
EVIDENCE_K = 5  # spans returned per claim, best first

EmbedFn = Callable[[list[str]], np.ndarray]


class SegmentRetriever(Protocol):
    def search_segments(self, query: str, doc: Any, top_k: int) -> list[tuple[Any, float]]:
        """(segment with start/end/page/text, score) pairs, best first."""


class VectorCache:
    """Unit vectors by text, so a span seen for one claim is not embedded again for the next."""

    def __init__(self, embed: EmbedFn, max_items: int = 50_000):
        self.embed = embed
        self.max_items = max_items
        self._d: OrderedDict[str, np.ndarray] = OrderedDict()

    def __call__(self, texts: list[str]) -> np.ndarray:
        keys = [hashlib.sha1(t.encode("utf-8")).hexdigest() for t in texts]
        todo = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in self._d}.items())
        if todo:
            vecs = self.embed([t for _, t in todo])
            for (k, _), v in zip(todo, vecs, strict=True):
                self._d[k] = np.asarray(v, dtype=np.float32)
            while len(self._d) > self.max_items:
                self._d.popitem(last=False)
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([self._d[k] for k in keys])


_STATS: dict[str, J.DocStats] = {}


def doc_stats(doc: Any) -> J.DocStats:
    """Term statistics over the document's segments, cached by document id."""
    key = doc.document.id
    if key not in _STATS:
        _STATS[key] = J.DocStats.of([doc.text[s.start:s.end] for s in doc.segments()])
    return _STATS[key]


def candidates_for(claim: str, doc: Any, retriever: SegmentRetriever, top_k: int = CANDIDATES) -> list[J.Candidate]:
    out: list[J.Candidate] = []
    seen: set[tuple[int, int]] = set()
    for seg, score in retriever.search_segments(claim, doc, top_k):
        key = (seg.start, seg.end)
        if key in seen or seg.end <= seg.start:
            continue
        seen.add(key)
        out.append(J.Candidate(seg.start, seg.end, seg.page, doc.text[seg.start:seg.end], float(score)))
    return out


def check_claim(claim: str, docs: Sequence[Any], *, retriever: SegmentRetriever, embed: EmbedFn,
                top_k: int = CANDIDATES) -> tuple[J.Verdict, list[tuple[Any, J.Candidate]]]:
    """The verdict on one claim and its best spans as (document, candidate), best first."""
    claim_vec = embed([J.embed_form(claim)])[0]
    background = embed([J.embed_form(t) for t in J.BACKGROUND])
    ranked: list[tuple[Any, J.Candidate]] = []
    pools: list[tuple[list[J.Candidate], J.DocStats]] = []
    for doc in docs:
        cands = candidates_for(claim, doc, retriever, top_k)
        if not cands:
            continue
        vecs = embed([J.embed_form(c.text) for c in cands])
        stats = doc_stats(doc)
        J.span_features(claim, claim_vec, cands, vecs, stats, background)
        cands = J.rank(cands)
        pools.append((cands, stats))
        ranked.extend((doc, c) for c in cands)
    ranked.sort(key=lambda dc: -dc[1].score)
    top: list[tuple[Any, J.Candidate]] = []
    for doc, c in ranked:
        if any(d is doc and c.start < o.end and o.start < c.end for d, o in top):
            continue
        top.append((doc, c))
        if len(top) == EVIDENCE_K:
            break
    if not pools:
        return J.decide(claim, []), top
    # The claim is judged against the document whose best span ranks highest.
    best_pool, stats = max(pools, key=lambda p: p[0][0].score)
    verdict = J.decide(claim, best_pool, stats)
    return verdict, top


def check_claims(claims: list[str], docs: Sequence[Any], *, retriever: SegmentRetriever, settings: Any = None,
                 embed: EmbedFn | None = None) -> list[ClaimCheck]:
    """One ClaimCheck per claim, in order: supported or not, score in [0, 1], a reason naming
    what decided it, and up to five evidence spans (best first) with their boxes."""
    if embed is None:
        from workbench.index.embed import embed_texts

        embed = embed_texts
    cached = embed if isinstance(embed, VectorCache) else VectorCache(embed)
    out: list[ClaimCheck] = []
    for claim in claims:
        text = " ".join(claim.split())
        if not text:
            out.append(ClaimCheck(claim=claim, supported=False, score=0.0, reason="Empty claim: nothing to check."))
            continue
        verdict, top = check_claim(text, docs, retriever=retriever, embed=cached)
        evidence = [doc.span(c.start, c.end) for doc, c in top]
        out.append(ClaimCheck(claim=claim, supported=verdict.supported, score=verdict.score,
                              reason=verdict.reason, evidence=evidence))
    return out
