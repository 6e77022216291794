"""Gate `relevance`: the judge's P(the quote answers the question) below Settings.judgment.relevant
— rejected as does_not_address_question. The only gate that reads the judge's score."""

from __future__ import annotations

from workbench.judgment.gates.base import GateResult, QuoteInput

NAME = "relevance"


def check(inp: QuoteInput) -> GateResult | None:
    if inp.relevance < inp.relevant:
        return GateResult(NAME, "does_not_address_question",
                          f"Does not answer the question (relevance {inp.relevance:.2f}, needs {inp.relevant:.2f}).",
                          keeps_score=True)
    return None
