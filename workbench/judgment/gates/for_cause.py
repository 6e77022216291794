"""Gate `for_cause`: a right to terminate for cause does not answer a question about terminating
without one. "May either side end the contract early without having to show a breach or other
cause?" is not answered by "Either party may terminate this Agreement … if the other party
materially breaches this Agreement": it shares every word that matters (terminate, party, notice)
and its kind of value (a cure period), and to a reader it says the opposite of what is asked.

The question asks about termination without cause when it says so ("for convenience", "without
cause", "for any reason", "without having to show a breach"); the quote is a termination for cause
when it names a termination or cancellation and a cause (a breach, a default, insolvency or
bankruptcy, a failure to cure, perform or pay, "for cause") and no sign of a right without one
("convenience", "without cause", "for any reason", "at any time", "with or without cause").
The clause-topic model cannot tell the two: termination for cause is no CUAD kind, and it reads a
breach clause as termination for convenience (gate `other_kind` never sees it).
Measured: BENCHMARKS.md "Clause units held out (#39)" and "Near-miss questions (#39)"."""

from __future__ import annotations

import re

from workbench.judgment.gates.base import GateResult, QuoteInput

NAME = "for_cause"

_WITHOUT_CAUSE = re.compile(
    r"\bconvenience\b|\bwithout\s+(?:any\s+)?(?:(?:having|need|needing)\s+to\s+(?:show|give|prove|state)\s+)?"
    r"(?:a\s+|any\s+)?(?:cause|reason|breach)\b|\bfor\s+any\s+reason\b|\bfor\s+no\s+reason\b|"
    r"\bwith\s+or\s+without\s+cause\b|\bany\s+reason\s+whatsoever\b", re.I)
_ENDS = re.compile(r"\b(?:terminat\w*|cancel\w*)\b", re.I)
_CAUSE = re.compile(
    r"\bbreach\w*|\bdefault\w*|\binsolven\w*|\bbankrupt\w*|\breceiver(?:ship)?\b|\bliquidat\w*|"
    r"\bfail(?:s|ed|ure)?\s+to\s+(?:cure|perform|pay|comply|remedy)\b|\bfor\s+cause\b", re.I)
_NO_CAUSE_NEEDED = re.compile(r"\bconvenience\b|\bwithout\s+(?:any\s+)?(?:cause|reason)\b|\bfor\s+any\s+reason\b|"
                              r"\bat\s+any\s+time\b|\bwith\s+or\s+without\s+cause\b|\bsole\s+discretion\b", re.I)


def asks_without_cause(question: str) -> bool:
    return bool(_WITHOUT_CAUSE.search(question))


# a breach named as what a termination leaves intact ("shall not relieve either party of liability for
# any breach", "without prejudice to its remedies for breach") is no cause of it
_SAVED = re.compile(r"\b(?:liab\w*|damages|remed\w*|claims?|rights?|reliev\w*|prejudice|waive\w*|accrued)\b[^.;]{0,20}$",
                    re.I)


def for_cause(quote: str) -> bool:
    """The quote ends the agreement for a cause, and grants no right to end it without one."""
    if not _ENDS.search(quote) or _NO_CAUSE_NEEDED.search(quote):
        return False
    return any(not _SAVED.search(quote[max(0, m.start() - 40):m.start()]) for m in _CAUSE.finditer(quote))


def check(inp: QuoteInput) -> GateResult | None:
    if not asks_without_cause(inp.question):
        return None
    text = f"{inp.unit.lead_in} {inp.quote}" if inp.unit.lead_in else inp.quote
    if not for_cause(text):
        return None
    return GateResult(NAME, "does_not_address_question",
                      "A termination for cause (a breach, a default or insolvency), not the termination without cause "
                      "the question asks about.")
