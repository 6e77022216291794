"""The named gates of a quote's verdict, in an ordered registry. Settings.judgment.gates picks
which run and in which order; the first that rejects decides the rejection reason. Each gate is a
small module with `NAME` and `check(QuoteInput) -> GateResult | None`, a table test of accepts
and rejects (tests/judgment/gates/), and its measured worth in BENCHMARKS.md
(`python -m bench.bench_gates`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from workbench.judgment.gates import (
    dangling_reference,
    for_cause,
    fragment,
    hedge,
    other_kind,
    party_asked,
    relevance,
    value_asked,
    value_in_context,
)
from workbench.judgment.gates.base import GateResult, QuoteInput

GATES: dict[str, Callable[[QuoteInput], GateResult | None]] = {
    m.NAME: m.check for m in (relevance, other_kind, hedge, fragment, dangling_reference, value_asked, value_in_context,
                                party_asked, for_cause)}


def first_rejection(inp: QuoteInput, names: Sequence[str]) -> GateResult | None:
    """The first of the named gates, in order, that rejects the quote; None: it passes them all."""
    for name in names:
        hit = GATES[name](inp)
        if hit is not None:
            return hit
    return None


__all__ = ["GATES", "GateResult", "QuoteInput", "first_rejection"]
