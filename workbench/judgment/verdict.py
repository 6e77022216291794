"""The verdict on one quote: the judge's relevance (read after the unit's lead-in), then the named
gates of Settings.judgment (workbench/judgment/gates), from the quote and the unit facts carried
on the evidence item — so every backend judges one quote the same way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench.config import JudgmentSettings
from workbench.judgment.gates import QuoteInput, first_rejection
from workbench.judgment.scores import get_judge, readable_kind, with_article
from workbench.judgment.topics import KindReading
from workbench.models import UnitInfo
from workbench.text.weights import weights_for

_JUDGMENT = JudgmentSettings()

def judged_text(evidence: Any) -> str:
    """What the judge reads for a quote already extracted (Verify, quality review): the quote after
    its list's lead-in (its unit facts), else the quote; so Extract, Verify and the quality review
    score the same text."""
    lead = lead_of(evidence)
    return f"{lead} {evidence.exact_quote}" if lead else evidence.exact_quote


def lead_of(evidence: Any) -> str:
    """The lead-in its unit facts give an evidence item, or ""."""
    unit = getattr(evidence, "unit", None)
    return unit.lead_in if unit is not None else ""


def judge_evidence(question: str, evidence: Any, relevance: float,
                   judgment: JudgmentSettings | None = None) -> QuoteVerdict:
    """Seed 000's criteria for one evidence item from its quote and its unit facts alone: what
    every backend's verdict rests on, so two backends cannot judge one quote two ways."""
    j = judgment or _JUDGMENT
    unit = evidence.unit or UnitInfo()
    weights = weights_for(getattr(evidence, "document_id", None))
    reading = kind_reading(question, evidence.exact_quote, weights) if relevance >= j.relevant else None
    return judge_quote(question, evidence.exact_quote, relevance, trimmed_from=unit.trimmed_from,
                       at_clause=unit.at_clause, kind=readable_kind(reading.asked) if reading and reading.is_asked else None,
                       lead=unit.lead_in, judgment=j, source_type=getattr(evidence, "source_type", "") or "",
                       weights=weights, kinds=reading)



# --- verdicts ---------------------------------------------------------------------------------
@dataclass
class QuoteVerdict:
    verified: bool
    reason: str | None  # a RejectionReason when not verified
    rationale: str
    score: float


def kind_reading(question: str, quote: str, weights: Any = None) -> KindReading | None:
    """The clause-topic model's reading of (question, quote) for a contract's quote (`weights` its
    document's); None otherwise or for a judge without topics."""
    reading = getattr(get_judge(), "kind_reading", None)
    return reading(question, quote, weights) if reading is not None else None


def judge_quote(question: str, quote: str, relevance: float, *, trimmed_from: int = 0, at_clause: bool = True,
                kind: str | None = None, lead: str = "", judgment: JudgmentSettings | None = None,
                source_type: str = "", weights: Any = None, kinds: KindReading | None = None) -> QuoteVerdict:
    """Seed 000's three criteria for one quote: it answers the question (learned relevance), it
    states rather than suggests (no hedge), and it is self-contained (whole, no dangling reference)
    — the gates `judgment.gates` names, in order (workbench/judgment/gates). `kind`: the kind of
    clause the quote is, as the question asks (KindReading.is_asked), for the rationale; `lead`: the lead-in
    of the list the quote is an item of, which the relevance read with it; `source_type`: the
    evidence item's (a contract's hedge words are terms of art, gates.hedge); `weights`: its
    document's TermWeights (which of the question's words are specific, gates.value_in_context);
    `kinds`: the clause-topic model's reading of (question, quote) (kind_reading, gates.other_kind)."""
    j = judgment or _JUDGMENT
    q = " ".join(quote.split())
    unit = UnitInfo(lead_in=lead, trimmed_from=trimmed_from, at_clause=at_clause)
    hit = first_rejection(QuoteInput(question, q, relevance, unit, j.relevant, source_type, weights, kinds), j.gates)
    if hit is not None:
        return QuoteVerdict(False, hit.reason, hit.rationale,
                            relevance if hit.keeps_score else relevance * j.rejected_score_factor)
    cut = "cut at a clause boundary" if at_clause else "cut at the word limit: no clause ends within it"
    part = f"; quoted in part ({len(q.split())} of {trimmed_from} words, {cut})" if trimmed_from else ""
    if lead:
        part += f'; read as an item of the list introduced by "{lead_tail(lead)}"'
    if kind and relevance >= j.relevant:
        part = f"; {with_article(kind)} clause, the kind the question asks about" + part
    return QuoteVerdict(True, None, f"Answers the question (relevance {relevance:.2f}); states it without hedging; "
                        f"self-contained{part}.", relevance)


def lead_tail(lead: str, n: int = 100) -> str:
    """A lead-in as a rationale shows it: its end, the words nearest the list."""
    t = " ".join(lead.split())
    return t if len(t) <= n else "…" + t[len(t) - n + 1:].lstrip()
