"""Gate `hedge`: a quote that suggests rather than states ("may generally", "typically") would
need inference to answer the question — rejected as requires_inference.

Measured (`python -m bench.bench_gates`, held out): on NIST SP 800-171 and the WHO guideline it
rejects 5 quotes that only suggest ("there are likely access restrictions …", "cirrhosis is
usually compensated"), answered questions unchanged (16/20); on CUAD it costs one gold clause of
153 (found 0.915 vs 0.922 without it), NO_AUTHORITATIVE_EVIDENCE unchanged, and what it rejects
there includes a term and a condition, not hedges ("generally accepted accounting principles",
"likely to adversely affect"). Kept for seed 000's "requires inference" criterion; a reader of
meaning (issue 40) should replace its word list.

Not for contracts: a contract's hedge words are operative terms of art, not hedges ("unable
generally to pay its debts as they become due" is an insolvency trigger, "generally available to
the public" a confidentiality exclusion, "generally accepted accounting principles" a standard),
and the replay above showed it gaining nothing on contracts (NAE unchanged) while it cost a gold
clause; on regulations and guidance, where it rejects real hedges, it stays. Measured when it
stopped reading contracts (BENCHMARKS.md "Clause units held out"): held out +2 gold clauses whole
and +1 absent category answered medium; cuad/ two absent categories answered low, not NAE.
"""

from __future__ import annotations

from workbench.judgment.gates.base import GateResult, QuoteInput
from workbench.text.lexicon import HEDGES

NAME = "hedge"


def check(inp: QuoteInput) -> GateResult | None:
    if inp.source_type == "contract":
        return None
    h = hedged(inp.quote)
    if h:
        return GateResult(NAME, "requires_inference", f"Answers the question (relevance {inp.relevance:.2f}) but is "
                          f"hedged ('{h}'): it suggests rather than states, so it would require inference.")
    return None


def hedged(quote: str) -> str | None:
    """The hedging words of a quote, or None."""
    m = HEDGES.search(quote)
    return m.group(0) if m else None
