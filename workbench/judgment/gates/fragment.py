"""Gate `fragment`: a quote that starts mid-sentence ("and will renew for …") is not a whole unit
of meaning — rejected as incomplete_quote. A list item read after its lead-in continues that
lead-in ("… should be considered: • peer and lay health worker support …"): it passes.

Measured (`python -m bench.bench_gates`, held out): on the regulatory bench it rejects 0.35
quotes a run, glossary lines and sentences cut after a break ("audit log A chronological record
…", "further task sharing by allowing …"), answered questions unchanged; no effect on CUAD (the
offline backend proposes whole units). It is also what rejects an LLM's quote that starts
mid-sentence.
"""

from __future__ import annotations

from workbench.judgment.gates.base import GateResult, QuoteInput
from workbench.text.lexicon import ENUMERATOR

NAME = "fragment"


def check(inp: QuoteInput) -> GateResult | None:
    if inp.unit.lead_in:
        return None
    f = fragment(inp.quote)
    return GateResult(NAME, "incomplete_quote", f"Not a whole sentence: {f}.") if f else None


def fragment(quote: str) -> str | None:
    """Why the quote is not a whole unit of meaning (it starts mid-sentence), or None."""
    body = ENUMERATOR.sub("", quote, count=1).lstrip("\"'\u201c\u2018([ ")
    if body[:1].islower() and not ENUMERATOR.match(quote):
        return "it starts mid-sentence"
    return None
