"""The rules verifier: seed 000's three criteria as readable, testable checks.

1. explicitly addresses the question (lexical term overlap, plus cosine when an embedder is given),
2. fully supported by the quote (no hedged/speculative wording, polarity and modality agree),
3. self-contained (no dangling "this/such/the foregoing/said", no "see § …" without context).

Every verdict carries a rationale naming what decided it, and a score in [0, 1]."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence

from pydantic import BaseModel, Field

from workbench.models import RejectionReason
from workbench.text import content_terms as _content_terms
from workbench.text import words as tokens
from workbench.text.terms import stem, surface_forms

# A function mapping texts to L2-normalised vectors (workbench.index.embed.Embedder.embed).
EmbedFn = Callable[[list[str]], "object"]

# Words that change polarity; a claim and span that disagree on them disagree on meaning.
NEGATIONS = frozenset(re.findall(r"\S+", "not no never none nor neither without cannot can't won't shan't isn't doesn't don't"))

# Hedges make a quote speculative: it does not state the requirement, it suggests it.
HEDGES = re.compile(
    r"\b(might|perhaps|possibly|probably|likely|arguably|it appears|appears to|seems? to|"
    r"generally|typically|usually|in some cases|where appropriate|as appropriate)\b",
    re.I,
)

# Opening words that point at text the quote does not contain.
DANGLING_START = re.compile(
    r"^\W*(this|these|those|such|said|the foregoing|the above|the same|it|they|thereof|"
    r"the aforementioned|the preceding)\b",
    re.I,
)
DANGLING_ANYWHERE = re.compile(
    r"(\bsee\s+(§|(section|sec\.|article|paragraph|clause|appendix|annex|exhibit|schedule|table|figure)\b)|"
    r"\bas (described|set forth|stated|provided|defined|discussed|noted|mentioned) (above|below|herein above|earlier|previously)\b|"
    r"\bthe foregoing\b|\bthe aforementioned\b|\b(aforesaid)\b|\bsaid (party|parties|information|agreement|section)\b)",
    re.I,
)

MIN_RELEVANCE = 0.34  # share of the question's content terms the quote must cover (or cosine ≥ MIN_COSINE)
MIN_COSINE = 0.45


class JudgeResult(BaseModel):
    """One verdict on one quote."""

    verified: bool
    rejection_reason: RejectionReason | None = None
    verification_rationale: str = ""
    score: float = Field(0.0, ge=0.0, le=1.0)


def content_terms(text: str) -> set[str]:
    """Stemmed content words (function words and 1-letter tokens dropped)."""
    return set(_content_terms(text))


def term_coverage(question: str, quote: str, vocabulary: Collection[str] | None = None
                  ) -> tuple[float, list[str], list[str]]:
    """Share of the question's content terms found in the quote, and which were / were not.
    With the searched documents' `vocabulary`, ONE question term the documents never use (a
    contract says "ADAMS GOLF", the question "the Company") is excused: no quote could hold it.
    Only one, so a question that is mostly foreign to the documents still fails."""
    forms = surface_forms(question)
    q = set(forms)
    if not q:
        return 0.0, [], []
    s = content_terms(quote)
    hit = sorted(forms[t] for t in q & s)
    miss = sorted(forms[t] for t in q - s)
    denominator = len(q)
    if vocabulary is not None and len(q) > 1 and any(t not in vocabulary for t in q - s):
        denominator -= 1
    return len(hit) / denominator, hit, miss


def document_vocabulary(text: str) -> frozenset[str]:
    """Stemmed content terms of a document's text (callers keep it with the document:
    ParsedDoc.derived)."""
    return frozenset(content_terms(text))


def is_negated(text: str) -> bool:
    return any(t in NEGATIONS or t.endswith("n't") for t in tokens(text))


def numbers(text: str) -> set[str]:
    return set(re.findall(r"\d+(?:[.,]\d+)?", text))


def dangling_reference(quote: str) -> str | None:
    """The phrase that makes the quote depend on text it does not contain, if any."""
    m = DANGLING_START.search(quote)
    if m:
        return m.group(1)
    m = DANGLING_ANYWHERE.search(quote)
    return m.group(0) if m else None


def _cosine(embed: EmbedFn | None, a: str, b: str) -> float | None:
    if embed is None:
        return None
    v = embed([a, b])
    return float((v[0] * v[1]).sum())  # vectors are normalised


def judge_requirement(question: str, quote: str, *, context: str | None = None,
                      embed: EmbedFn | None = None, vocabulary: Collection[str] | None = None) -> JudgeResult:
    """Seed 000's verify gate for one extracted quote. `context` (the text around the quote)
    lets a quote that starts with "This …" pass when the context supplies the referent."""
    quote = " ".join(quote.split())
    if not quote:
        return JudgeResult(verified=False, rejection_reason="incomplete_quote",
                           verification_rationale="The quote is empty.", score=0.0)
    cov, hit, miss = term_coverage(question, quote, vocabulary)
    cos = _cosine(embed, question, quote)
    relevance = cov if cos is None else max(cov, (cos - 0.2) / 0.6)
    relevance = min(1.0, max(0.0, relevance))
    cos_txt = "" if cos is None else f", cosine {cos:.2f}"
    absent = [t for t in miss if vocabulary is not None and stem(t) not in vocabulary]
    miss = [t for t in miss if t not in absent]
    terms_txt = (f"question terms found: {', '.join(hit) or 'none'}" + (f"; missing: {', '.join(miss)}" if miss else "")
                 + (f"; not used by the documents: {', '.join(absent)}" if absent else ""))

    addresses = cov >= MIN_RELEVANCE or (cos is not None and cos >= MIN_COSINE)
    if not addresses:
        return JudgeResult(
            verified=False, rejection_reason="does_not_address_question", score=round(relevance * 0.5, 4),
            verification_rationale=f"Does not explicitly address the question ({terms_txt}{cos_txt}).",
        )

    hedge = HEDGES.search(quote)
    if hedge:
        return JudgeResult(
            verified=False, rejection_reason="requires_inference", score=round(relevance * 0.6, 4),
            verification_rationale=f"The quote is hedged ('{hedge.group(0)}'): it suggests rather than states, "
                                   f"so the answer would require inference.",
        )

    dangling = dangling_reference(quote)
    if dangling and not (context and len(context.strip()) > len(quote)):
        return JudgeResult(
            verified=False, rejection_reason="incomplete_quote", score=round(relevance * 0.6, 4),
            verification_rationale=f"Not self-contained: '{dangling}' refers to text outside the quote.",
        )

    score = round(0.5 + 0.5 * relevance, 4)
    return JudgeResult(
        verified=True, score=score,
        verification_rationale=f"Addresses the question ({terms_txt}{cos_txt}); states it without hedging"
                               + (f"; '{dangling}' resolved by surrounding context" if dangling else "; self-contained") + ".",
    )


def judge_sentence(sentence: str, evidence_texts: Sequence[str], *,
                   embed: EmbedFn | None = None) -> tuple[bool, float, str]:
    """Seed 004's validate step: is a composed sentence supported by the evidence it may cite?
    Supported when one evidence text covers most of the sentence's content terms (or is close in
    meaning), agrees in polarity, and contains every number the sentence states."""
    sentence = " ".join(sentence.split())
    if not evidence_texts:
        return False, 0.0, "No evidence to support this sentence."
    best: tuple[float, str, bool] = (-1.0, "", False)
    for text in evidence_texts:
        cov, hit, miss = term_coverage(sentence, text)
        cos = _cosine(embed, sentence, text)
        s = cov if cos is None else 0.5 * cov + 0.5 * max(0.0, (cos - 0.2) / 0.6)
        reasons: list[str] = [f"{len(hit)}/{len(hit) + len(miss)} content terms in evidence"]
        if cos is not None:
            reasons.append(f"cosine {cos:.2f}")
        ok = cov >= 0.6 or (cos is not None and cos >= 0.7 and cov >= 0.4)
        if is_negated(sentence) != is_negated(text):
            s *= 0.5
            ok = False
            reasons.append("polarity differs (one is negated)")
        missing_nums = numbers(sentence) - numbers(text)
        if missing_nums:
            s *= 0.5
            ok = False
            reasons.append(f"numbers not in evidence: {', '.join(sorted(missing_nums))}")
        if miss and not ok:
            reasons.append(f"missing: {', '.join(miss[:6])}")
        if s > best[0]:
            best = (s, "; ".join(reasons), ok)
    score, reason, ok = best
    score = min(1.0, max(0.0, score))
    return ok, round(score, 4), ("Supported: " if ok else "Unsupported: ") + reason + "."
