"""Claim checking's judgement: rank candidate spans for a claim, then decide whether the best
of them support it. Pure functions over texts, scores and vectors, so the benchmark and the
pipeline run the same code.

Everything here is claim-agnostic: features are about the relation between any claim and any
span (meaning similarity, term coverage weighted by rarity in the document, polarity, modality,
restrictive wording). Weights were calibrated on ContractNLI dev with the hypotheses held out
(see bench/bench_contractnli.py and BENCHMARKS.md); nothing names or encodes a hypothesis."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from workbench.text import content_terms, norm, stem
from workbench.text.bm25 import bm25_term

_TOKEN = re.compile(r"[a-z0-9]+")


NEGATION = re.compile(r"\b(not|no|never|neither|nor|none|cannot|without|nothing|n't)\b|n't\b", re.I)
PERMIT = re.compile(r"\b(may|can|is permitted to|are permitted to|is entitled to|are entitled to|"
                    r"is allowed to|are allowed to|has the right to|have the right to|is free to|are free to)\b", re.I)
OBLIGE = re.compile(r"\b(shall|must|will|agrees? to|is required to|are required to|undertakes? to|"
                    r"is obliged to|are obliged to|is obligated to|are obligated to)\b", re.I)
RESTRICT = re.compile(r"\b(only|solely|exclusively|all|every|expressly|always)\b", re.I)
# A prohibition in a span ("shall not", "may not", "no copies shall", "prohibited") and the
# exceptions that turn one into a permission ("except", "unless", "without prior consent").
PROHIBIT = re.compile(r"\b(shall not|will not|may not|must not|cannot|can not|is not permitted|are not permitted|"
                      r"prohibited|no \w+( \w+)? (shall|may|will))\b")
EXCEPTION = re.compile(r"\b(except|unless|provided that|other than|save (as|that|for)|without the prior|without prior|"
                       r"prior written consent|notwithstanding)\b")
ONLY_WORDS = frozenset(["only", "solely", "exclusively"])


def looks_like_heading(text: str) -> bool:
    """Too short to state anything, or set in capitals: a title, not a statement."""
    words = text.split()
    letters = [ch for ch in text if ch.isalpha()]
    return len(words) < 6 or (len(letters) >= 4 and sum(ch.isupper() for ch in letters) / len(letters) > 0.7)


def terms(text: str) -> list[str]:
    """Stemmed content words of a text (function words, negations and modals removed)."""
    return content_terms(text)


def negated(text: str) -> bool:
    return bool(NEGATION.search(norm(text)))


_NEG_WORDS = frozenset(["not", "no", "never", "neither", "nor", "none", "cannot", "without", "nothing",
                        "prohibited", "refrain"])


def word_near(text: str, key_terms: set[str], words: frozenset[str], window: int = 8) -> bool:
    """Whether one of `words` occurs within `window` words of one of the key terms."""
    toks = _TOKEN.findall(norm(text))
    at = [i for i, t in enumerate(toks) if stem(t) in key_terms]
    return any(abs(i - j) <= window for j, t in enumerate(toks) if t in words for i in at)


def negation_near(text: str, key_terms: set[str], window: int = 6) -> float:
    """Share of the key terms' occurrences in the text preceded (within `window` words) by a
    negation: 'shall not copy', 'no copies'. 0 when no key term occurs."""
    toks = _TOKEN.findall(norm(text))
    flags = [any(toks[j] in _NEG_WORDS or toks[j].endswith("n't") for j in range(max(0, i - window), i))
             for i, t in enumerate(toks) if stem(t) in key_terms]
    return sum(flags) / len(flags) if flags else 0.0


@dataclass
class DocStats:
    """Document frequencies of terms over a document's units: rare terms matter more."""

    n: int
    df: Counter = field(default_factory=Counter)
    avg_len: float = 20.0

    @classmethod
    def of(cls, texts: Sequence[str]) -> DocStats:
        df: Counter = Counter()
        total = 0
        for t in texts:
            ts = terms(t)
            total += len(ts)
            df.update(set(ts))
        n = max(1, len(texts))
        return cls(n, df, max(1.0, total / n))

    def idf(self, term: str) -> float:
        return math.log(1 + (self.n + 1) / (self.df.get(term, 0) + 0.5))  # never 0: weights coverage too

    def bm25(self, claim_terms: Sequence[str], span_text: str, k1: float = 1.2, b: float = 0.75) -> float:
        """Okapi BM25 of a span for the claim, with this document's statistics."""
        tf = Counter(terms(span_text))
        dl = sum(tf.values())
        return sum(bm25_term(self.idf(t), tf[t], dl, self.avg_len, k1, b) for t in set(claim_terms) if t in tf)


def coverage(claim_terms: Sequence[str], span_text: str, stats: DocStats) -> float:
    """IDF-weighted share of the claim's terms found in the span (0..1)."""
    uniq = set(claim_terms)
    if not uniq:
        return 0.0
    have = set(terms(span_text))
    tot = sum(stats.idf(t) for t in uniq)
    return sum(stats.idf(t) for t in uniq if t in have) / tot if tot else 0.0


# Generic contract boilerplate on other subjects (written for this module, about no claim in
# particular). A span that matches one of these better than the claim is about something else:
# the margin cos(claim, span) - max cos(background, span) normalises similarity on the span side.
BACKGROUND: tuple[str, ...] = (
    "This Agreement shall be governed by and construed in accordance with the laws of the State of Delaware.",
    "All notices under this Agreement shall be in writing and delivered by hand or by registered mail.",
    "Neither party may assign this Agreement without the prior written consent of the other party.",
    "If any provision of this Agreement is held invalid, the remaining provisions shall continue in full force.",
    "This Agreement constitutes the entire agreement between the parties and supersedes all prior agreements.",
    "This Agreement may be executed in counterparts, each of which shall be deemed an original.",
    "The Customer shall pay all invoices within thirty days of the invoice date.",
    "The Supplier warrants that the goods will conform to the specifications for twelve months.",
    "Each party shall indemnify the other against losses arising from its breach of this Agreement.",
    "Neither party shall be liable for delays caused by events beyond its reasonable control.",
    "No amendment to this Agreement is effective unless made in writing and signed by both parties.",
    "A failure to enforce any right shall not be deemed a waiver of that right.",
    "Headings are for convenience only and do not affect the interpretation of this Agreement.",
    "This Agreement commences on the Effective Date and continues for an initial term of two years.",
    "The Contractor shall maintain insurance with a reputable insurer throughout the term.",
    "The Licensee shall pay royalties quarterly on net sales of the licensed products.",
    "Either party may terminate this Agreement by giving ninety days written notice to the other.",
    "The parties shall attempt in good faith to resolve any dispute through negotiation.",
    "Any dispute shall be finally settled by arbitration under the rules of the chamber of commerce.",
    "The Employee shall devote his full working time to the business of the Company.",
    "The Seller shall deliver the products to the Buyer's premises at its own cost.",
    "Title to the goods passes to the Buyer upon payment in full.",
    "Prices are exclusive of value added tax, which the Buyer shall pay in addition.",
    "The Company may change the work schedule upon reasonable notice to the staff.",
    "Each party represents that it has full power and authority to enter into this Agreement.",
    "The Landlord shall keep the structure of the building in good repair.",
    "Interest accrues on late payments at two percent above the base rate.",
    "The Service Provider shall meet the service levels set out in the schedule.",
    "Nothing in this Agreement creates a partnership or joint venture between the parties.",
    "This Agreement binds and benefits the parties and their respective successors.",
)

@dataclass
class Candidate:
    """A span of one document proposed for a claim (offsets index the document's text)."""

    start: int
    end: int
    page: int
    text: str
    retrieval_score: float = 0.0
    features: dict[str, float] = field(default_factory=dict)
    score: float = 0.0


# Ranking: a linear score over span features, fitted (logistic, numpy) on ContractNLI dev spans
# that do / do not hold gold evidence: `bench/bench_contractnli.py --fit`. Held-out figures in
# BENCHMARKS.md come from refitting without the hypothesis scored. Features are about
# similarity and coverage, never about a particular claim.
RANK_WEIGHTS: dict[str, float] = {
    "cos": -0.4736, "cov": 2.3868, "bm25": 1.1938, "rr": 2.3009, "len": 0.123, "heading": -0.6897, "margin": 2.8793,
}


def span_features(claim: str, claim_vec: np.ndarray | None, cands: list[Candidate], vecs: np.ndarray | None,
                  stats: DocStats, background: np.ndarray | None = None) -> None:
    """Fill cand.features: cosine, coverage, BM25 relative to the best candidate, retrieval
    rank, length, heading, margin over BACKGROUND. `vecs` are the candidates' unit vectors,
    `claim_vec` the claim's, `background` the vectors of BACKGROUND."""
    cterms = terms(claim)
    bm = np.array([stats.bm25(cterms, c.text) for c in cands], dtype=np.float64)
    bmax = float(bm.max()) if len(bm) and bm.max() > 0 else 1.0
    order = np.argsort([-c.retrieval_score for c in cands]) if cands else []
    rank = np.empty(len(cands))
    rank[order] = np.arange(len(cands))
    for i, c in enumerate(cands):
        cos = float(vecs[i] @ claim_vec) if vecs is not None and claim_vec is not None else 0.0
        bg = float((background @ vecs[i]).max()) if background is not None and vecs is not None else 0.0
        c.features = {
            "cos": cos,
            "cov": coverage(cterms, c.text, stats),
            "bm25": float(bm[i]) / bmax,
            "bm25_abs": float(bm[i]),
            "rr": 1.0 / (1.0 + rank[i]),
            "len": math.log1p(len(c.text.split())),
            "heading": float(looks_like_heading(c.text)),
            "margin": cos - bg,
        }


def rank(cands: list[Candidate], weights: dict[str, float] | None = None) -> list[Candidate]:
    w = weights or RANK_WEIGHTS
    for c in cands:
        c.score = sum(w.get(k, 0.0) * v for k, v in c.features.items())
    return sorted(cands, key=lambda c: -c.score)


def pick_top(ranked: list[Candidate], k: int = 5) -> list[Candidate]:
    """The best k spans, skipping any that overlaps one already picked (no near-duplicates)."""
    out: list[Candidate] = []
    for c in ranked:
        if any(c.start < o.end and o.start < c.end for o in out):
            continue
        out.append(c)
        if len(out) == k:
            break
    return out


# --- the verdict ----------------------------------------------------------------------------
@dataclass
class Verdict:
    supported: bool
    score: float  # 0..1
    reason: str
    features: dict[str, float] = field(default_factory=dict)


def claim_features(claim: str, pool: list[Candidate], stats: DocStats | None = None) -> dict[str, float]:
    """Features of a claim against its ranked candidate pool (best first) and, through
    `stats`, the whole document (claim terms that occur nowhere in it)."""
    pool = [c for c in pool if not c.features.get("heading")] or pool
    if not pool:
        return {}
    cterms = set(terms(claim))
    absent = [t for t in cterms if stats is not None and stats.df.get(t, 0) == 0]
    # the claim's distinctive terms: not in most of the document's sentences
    key = {t for t in cterms if stats is None or stats.df.get(t, 0) / stats.n <= 0.2} or cterms
    top = pool[:5]
    cos = np.array([c.features.get("cos", 0.0) for c in pool])
    best = max(top, key=lambda c: c.features.get("cos", 0.0) + c.features.get("cov", 0.0))
    c_neg = negated(claim)
    top_neg = [negated(c.text) for c in top[:3]]
    restrict = bool(RESTRICT.search(norm(claim)))
    nclaim = norm(claim)
    permit = bool(PERMIT.search(nclaim)) and not c_neg
    oblige = bool(OBLIGE.search(nclaim)) and not c_neg
    prohibits = [bool(PROHIBIT.search(norm(c.text))) for c in top[:3]]
    excepts = [bool(EXCEPTION.search(norm(c.text))) for c in top[:3]]
    return {
        "cos1": float(max(c.features.get("cos", 0.0) for c in top)),
        "cov1": float(max(c.features.get("cov", 0.0) for c in top)),
        "s1": float(pool[0].score),
        "gap": float(cos[:5].max() - cos.mean()),
        "neg_mismatch": float(c_neg != negated(best.text)),
        "neg_any_mismatch": float(all(c_neg != n for n in top_neg)),
        "restrict_missing": float(restrict and not any(RESTRICT.search(norm(c.text)) for c in top[:3])),
        "permit_vs_neg": float(bool(PERMIT.search(norm(claim))) and not c_neg and negated(best.text)),
        "absent_frac": len(absent) / len(cterms) if cterms else 0.0,
        "n_terms": float(len(cterms)),
        "s1h": float(pool[0].score),
        "margin1": float(max(c.features.get("margin", 0.0) for c in top)),
        "negnear_mis": abs(float(c_neg) - negation_near(best.text, key)),
        # a negative claim ("shall not …") that no top span states negatively
        "neg_claim_unmatched": float(bool(re.search(r"\b(not|no|never|neither|nor)\b", norm(claim)))
                                    and not any(negation_near(c.text, key) > 0 for c in top)),
        "cos_top3": float(np.mean(sorted(c.features.get("cos", 0.0) for c in top)[-3:])),
        "cov_top3": float(np.mean(sorted(c.features.get("cov", 0.0) for c in top)[-3:])),
        # a permission ("may X") next to a top span that prohibits without exception
        "permit_prohibited": float(permit and any(p and not e for p, e in zip(prohibits, excepts, strict=True))),
        # an obligation ("shall X") whose best span negates its key terms
        "oblige_negated": float(oblige and negation_near(top[0].text, key) > 0),
        # a prohibition ("shall not X") next to a top span that prohibits
        "neg_claim_prohibited": float(c_neg and any(prohibits)),
        # a restriction ("only X") that no top span states near the claim's key terms
        "only_unmatched": float(bool(ONLY_WORDS & set(_TOKEN.findall(nclaim)))
                                and not any(word_near(c.text, key, ONLY_WORDS) for c in top[:3])),
    }


# Logistic weights over claim_features, fitted on ContractNLI dev (Entailment vs the rest; each
# claim weighs the same and, within it, supported and unsupported cases weigh half each) by
# `bench/bench_contractnli.py --fit`; features not listed weigh 0.
DECIDE_WEIGHTS: dict[str, float] = {
    "cos1": 4.4417, "cov1": 3.0328, "absent_frac": -1.7176, "neg_mismatch": -0.6461, "restrict_missing": -1.8114,
    "permit_vs_neg": 0.5371, "neg_claim_unmatched": -0.9298, "permit_prohibited": -0.4577, "oblige_negated": -0.1544,
    "neg_claim_prohibited": 0.0674, "cov_top3": -1.8691,
}
DECIDE_BIAS = -2.8539
THRESHOLD = 0.5


def decide(claim: str, pool: list[Candidate], stats: DocStats | None = None,
           weights: dict[str, float] | None = None, bias: float | None = None) -> Verdict:
    """Supported when the calibrated probability ≥ THRESHOLD; the reason names the deciding evidence."""
    if not pool:
        return Verdict(False, 0.0, "No passage in the documents relates to this claim.")
    f = claim_features(claim, pool, stats)
    w = DECIDE_WEIGHTS if weights is None else weights
    b = DECIDE_BIAS if bias is None else bias
    z = b + sum(w.get(k, 0.0) * v for k, v in f.items())
    p = 1.0 / (1.0 + math.exp(-z))
    if f.get("only_unmatched"):  # restriction gate: "only X" is not supported by passages
        p = min(p, THRESHOLD - 0.01)  # that never restrict what the claim is about
    ok = p >= THRESHOLD
    best = pool[0]
    quote = " ".join(best.text.split())
    quote = quote if len(quote) <= 120 else quote[:117] + "…"
    why = [f"best span (page {best.page}) cosine {f['cos1']:.2f}, covers {f['cov1']:.0%} of the claim's terms"]
    against = {k for k, v in f.items() if v and w.get(k, 0.0) < 0}
    if "absent_frac" in against:
        why.append(f"{f['absent_frac']:.0%} of the claim's terms occur nowhere in the document")
    if "neg_mismatch" in against:
        why.append("polarity differs (one of claim and span is negated)")
    if "restrict_missing" in against:
        why.append("the claim's restrictive wording (only/all/expressly…) is not in the evidence")
    if "neg_claim_unmatched" in against:
        why.append("the claim is negative but no passage found negates its key terms")
    if "permit_prohibited" in against:
        why.append("the claim permits what a top passage prohibits without exception")
    if "oblige_negated" in against:
        why.append("the claim states an obligation the best passage negates")
    if f.get("only_unmatched"):
        why.append("the claim restricts (only/solely/exclusively) but no passage restricts its key terms")
    head = "Supported" if ok else "Not supported"
    return Verdict(ok, round(p, 4), f"{head} (p={p:.2f}): " + "; ".join(why) + f': "{quote}"', f)
