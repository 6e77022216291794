"""Gate `relevance`: the judge's P(the quote answers the question) below Settings.judgment.relevant
— rejected as does_not_address_question. The only gate that reads the judge's score.

Measured (`python -m bench.bench_gates`, held out, judgment 2026-11-27): without it, CUAD's
NO_AUTHORITATIVE_EVIDENCE when the contract lacks the clause falls from 0.745 to 0.102 and
verified quotes per run rise from 1.74 to 8.44; the one gate nothing else replaces.
"""

from __future__ import annotations

from workbench.judgment.gates.base import GateResult, QuoteInput

NAME = "relevance"


def check(inp: QuoteInput) -> GateResult | None:
    if inp.relevance < inp.relevant:
        return GateResult(NAME, "does_not_address_question",
                          f"Does not answer the question (relevance {inp.relevance:.2f}, needs {inp.relevant:.2f}).",
                          keeps_score=True)
    return None
