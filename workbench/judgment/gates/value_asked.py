"""Gate `value_asked`: a question that asks for a value — "how many days", "how much notice" (a
period), "how much", "what percentage", "which state's law", "on what date" — is answered only by a quote that states a value
of that kind (read by judgment.facts, the reader that judges claims). A clause on the topic that
names no value ("may terminate on prior written notice", "Net Sales means …", "within [*****]
days") is on the subject but does not answer: rejected as does_not_address_question, so a question
the document does not answer gets NO_AUTHORITATIVE_EVIDENCE, and a reviewer can still mark the
clause supported.

Only the question's own wh-phrase decides (a generic "when" or "what" asks for no value), and a
question asking several things (text.question_parts) is not gated: one part may ask for a clause.
Measured: BENCHMARKS.md "Gates" and "Near-miss questions (#39)"."""

from __future__ import annotations

import re

from workbench.judgment.facts import extract
from workbench.judgment.gates.base import GateResult, QuoteInput

NAME = "value_asked"

_UNITS = r"(?:(?:business|calendar|working)\s+)?(?:days?|weeks?|months?|years?|hours?|minutes?)"
# (kind asked, the fact kinds that answer it, the wh-phrase), first match wins
_ASKS: list[tuple[str, frozenset[str], re.Pattern[str]]] = [
    ("a governing law", frozenset({"jurisdiction"}), re.compile(
        r"\b(?:which|what)\s+(?:(?:state|country|jurisdiction)(?:'s|s')?\s+)?laws?\b|\blaws?\s+of\s+(?:which|what)\b|"
        r"\bunder\s+(?:which|what)\s+(?:state|country|jurisdiction)", re.I)),
    ("a percentage or rate", frozenset({"percent", "amount"}), re.compile(
        r"\bwhat\s+(?:percent(?:age)?|(?:\w+\s+)?rate)\b|\bat\s+what\s+rate\b|\bhow\s+many\s+percent", re.I)),
    ("a period", frozenset({"duration", "date"}), re.compile(
        rf"\bhow\s+long\b|\bhow\s+many\s+{_UNITS}|\bwithin\s+(?:what|which)\s+(?:period|time)\b|"
        r"\bwhat\s+(?:is\s+the\s+)?(?:notice\s+)?period\b|\bfor\s+what\s+period\b|"
        r"\bhow\s+much\s+(?:(?:advance|prior|written|more)\s+)*(?:notice|time)\b|\bhow\s+far\s+in\s+advance\b", re.I)),
    ("a date", frozenset({"date", "duration"}), re.compile(
        r"\b(?:on|as\s+of|from|until|by)\s+what\s+date\b|\bwhat\s+(?:is\s+the\s+)?(?:\w+\s+)?date\b|"
        r"\bwhen\s+(?:does|did|will|is|was|do)\b[^?]*\b(?:expire|end|terminate|commence|begin|start|signed|dated|"
        r"effective)\b", re.I)),
    ("an amount", frozenset({"amount", "number", "percent"}), re.compile(
        r"\bhow\s+much\b|\bwhat\s+(?:is\s+the\s+|was\s+the\s+|are\s+the\s+)?(?:(?:total|minimum|maximum|aggregate|"
        r"annual|monthly)\s+)?(?:amount|sum|price|fee|cost)s?\b", re.I)),
    ("a number", frozenset({"number", "amount"}), re.compile(r"\bhow\s+many\s+\w+", re.I)),
]


def value_asked(question: str) -> tuple[str, frozenset[str]] | None:
    """(what the question asks for in words, the fact kinds that state it), or None when it asks
    for no value (a clause, a yes/no, a condition) or asks several things."""
    from workbench.text.question_parts import question_parts

    if len(question_parts(question)) > 1:
        return None
    for words, kinds, rx in _ASKS:
        if rx.search(question):
            return words, kinds
    return None


def states_value(kinds: frozenset[str], text: str) -> bool:
    """Whether `text` states a fact of one of `kinds` (a redacted "[*****]" states nothing)."""
    return any(f.kind in kinds for f in extract(text))


def check(inp: QuoteInput) -> GateResult | None:
    asked = value_asked(inp.question)
    if asked is None:
        return None
    words, kinds = asked
    text = f"{inp.unit.lead_in} {inp.quote}" if inp.unit.lead_in else inp.quote
    if states_value(kinds, text):
        return None
    return GateResult(NAME, "does_not_address_question",
                      f"On the question's subject (relevance {inp.relevance:.2f}) but states no value: the question asks "
                      f"for {words}, and this passage gives none.")
