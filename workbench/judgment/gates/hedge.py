"""Gate `hedge`: a quote that suggests rather than states ("may generally", "typically") would
need inference to answer the question — rejected as requires_inference."""

from __future__ import annotations

from workbench.judgment.gates.base import GateResult, QuoteInput
from workbench.text.lexicon import HEDGES

NAME = "hedge"


def check(inp: QuoteInput) -> GateResult | None:
    h = hedged(inp.quote)
    if h:
        return GateResult(NAME, "requires_inference", f"Answers the question (relevance {inp.relevance:.2f}) but is "
                          f"hedged ('{h}'): it suggests rather than states, so it would require inference.")
    return None


def hedged(quote: str) -> str | None:
    """The hedging words of a quote, or None."""
    m = HEDGES.search(quote)
    return m.group(0) if m else None
