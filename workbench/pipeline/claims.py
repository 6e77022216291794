"""Claim checking (seed 004's validate step): for each claim, the same candidate units `ask`
uses (workbench.backends.engine: sentences and clauses found by segment search, whole), scored
by the same support model, with the same fact gate; supported, contradicted or not stated, with
a score, a readable reason and up to five evidence spans, the deciding one first."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from workbench.backends import engine
from workbench.config import Settings, defaults
from workbench.models import ClaimCheck, DocSegment, ParsedDoc
from workbench.pipeline.context import DocsContext

CANDIDATES = engine.SEARCH_K  # segment units asked of the retriever per claim and document
EVIDENCE_K = 5  # spans returned per claim, best first
# A claim's evidence is its sentence or clause whole, trimmed at clause boundaries only past this
# many words: a claim is judged against what the document says, not against a quotable excerpt
# (`ask` trims the same units to quote_max_words for its quotes). With 40 words, contract clauses
# of 50-80 words lost the part that states the claim.
EVIDENCE_MAX_WORDS = 100

# After the deciding passage, evidence is ordered by the lexical support's log-odds (`ranking`) plus this weight times the
# passage's closeness in meaning to the claim (MiniLM cosine, rescaled to [0, 1]): support alone
# ranks low a clause that says the claim in other words or says its opposite, which a reviewer
# must see. Chosen on ContractNLI train's 8 trained hypotheses (recall@5 0.899 -> 0.928; its 9
# others 0.859 -> 0.872); the verdict does not read it.
EVIDENCE_CLOSENESS = 0.75

EmbedFn = Callable[[list[str]], np.ndarray]


class SegmentRetriever(Protocol):
    def search_segments(self, query: str, doc: ParsedDoc, top_k: int) -> list[tuple[DocSegment, float]]:
        """(segment with start/end/page/text, score) pairs, best first."""


def check_claim(claim: str, docs: Sequence[ParsedDoc], *, retriever: SegmentRetriever, min_words: int = 10,
                max_words: int = 40, top_k: int = CANDIDATES, threshold: float = engine.SUPPORTED,
                ) -> tuple[engine.ClaimVerdict, list[tuple[ParsedDoc, engine.Unit]]]:
    """The verdict on one claim and its best units as (document, unit), best first."""
    context = DocsContext(list(docs), retriever)
    units = engine.units_for(claim, context, {}, min_words=min_words, max_words=max_words, search_k=top_k, join=False)
    by_id = {d.document.id: d for d in docs}
    sup = engine.SCORES("support", claim, [u.judged for u in units], [u.document_id for u in units])

    def where(i: int) -> str:
        return f"page {by_id[units[i].document_id].span(units[i].start, units[i].end).page}"

    contra = engine.SCORES("contradiction", claim, [u.judged for u in units], [u.document_id for u in units])
    verdict = engine.judge_claim(claim, [u.text for u in units], sup, where, threshold=threshold, contradiction=contra)
    if verdict.best is not None and units[verdict.best].lead:
        verdict.reason += f' (an item of the list introduced by "{engine.lead_tail(units[verdict.best].lead)}")'
    near = engine.closeness(claim, [u.judged for u in units], [u.document_id for u in units])
    rank = engine.SCORES("ranking", claim, [u.judged for u in units], [u.document_id for u in units])
    if not rank.any():  # a judge without a ranking of its own: its support
        rank = sup
    with np.errstate(divide="ignore"):
        key = np.log(np.clip(rank, 1e-6, 1 - 1e-6) / np.clip(1 - rank, 1e-6, 1)) + EVIDENCE_CLOSENESS * near
    order = sorted(range(len(units)), key=lambda i: -key[i])
    if verdict.best is not None:  # the deciding passage first
        order.remove(verdict.best)
        order.insert(0, verdict.best)
    order = engine.apart(units, order)
    top = [(by_id[units[i].document_id], units[i]) for i in order[:EVIDENCE_K]]
    return verdict, top


def check_claims(claims: list[str], docs: Sequence[ParsedDoc], *, retriever: SegmentRetriever,
                 settings: Settings | None = None, embed: EmbedFn | None = None,
                 threshold: float | None = None) -> list[ClaimCheck]:
    """One ClaimCheck per claim, in order: supported or not, score in [0, 1], a reason naming
    what decided it, and up to five evidence spans (best first) with their boxes. `embed` is
    accepted for callers that pass the index's embedder; the judge brings its own model.
    `threshold`: the support score from which a claim is supported (None: the shipped one; a
    claim calibration refit on reviewers' labels passes its own)."""
    settings = settings if settings is not None else defaults()
    lo, hi = settings.quote_min_words, settings.quote_max_words
    out: list[ClaimCheck] = []
    for claim in claims:
        text = " ".join(claim.split())
        if not text:
            out.append(ClaimCheck(claim=claim, supported=False, score=0.0, reason="Empty claim: nothing to check."))
            continue
        verdict, top = check_claim(text, docs, retriever=retriever, min_words=lo, max_words=max(hi, EVIDENCE_MAX_WORDS),
                                   threshold=settings.judgment.supported if threshold is None else threshold)
        evidence = [doc.span(u.start, u.end) for doc, u in top]
        out.append(ClaimCheck(claim=claim, supported=verdict.supported, score=verdict.score,
                              reason=verdict.reason, verdict=verdict.verdict, evidence=evidence))
    return out
