"""Gate `value_asked`: a question that asks for a value — "how many days", "how much notice" (a
period), "how much", "what percentage", "which state's law", "on what date" — is answered only by
a quote that states a value of that kind (read by judgment.facts, the reader that judges claims). A clause on the topic that
names no value ("may terminate on prior written notice", "Net Sales means …", "within [*****]
days") is on the subject but does not answer: rejected as does_not_address_question, so a question
the document does not answer gets NO_AUTHORITATIVE_EVIDENCE, and a reviewer can still mark the
clause supported.

Only the question's own wh-phrase decides (a generic "when" or "what" asks for no value); a
question asking several things (text.question_parts) is gated only when each part asks a value
(one part may ask for a clause). How long a term runs or when it ends may be stated by the event
that ends it ("until terminated by either party").
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
    ("a period", frozenset({"duration", "date", "end"}), re.compile(r"\bhow\s+long\b", re.I)),
    ("a period", frozenset({"duration", "date"}), re.compile(
        rf"\bhow\s+many\s+{_UNITS}|\bwithin\s+(?:what|which)\s+(?:period|time)\b|"
        r"\bwhat\s+(?:is\s+the\s+)?(?:notice\s+)?period\b|\bfor\s+what\s+period\b|"
        r"\bhow\s+much\s+(?:(?:advance|prior|written|more)\s+)*(?:notice|time)\b|\bhow\s+far\s+in\s+advance\b", re.I)),
    ("a date", frozenset({"date", "duration", "end"}), re.compile(  # when something ends
        r"\b(?:until|till)\s+(?:what|which)\s+date\b|\b(?:what|which)\s+date\b[^?]*\b(?:end|expire|terminate|lapse)s?\b|"
        r"\bwhen\s+(?:does|did|will|is|was|do)\b[^?]*\b(?:expire|end|terminate)\b", re.I)),
    ("a date", frozenset({"date", "duration"}), re.compile(
        r"\b(?:on|as\s+of|from|until|by)\s+what\s+date\b|\bwhat\s+(?:is\s+the\s+)?(?:\w+\s+)?date\b|"
        r"\bwhen\s+(?:does|did|will|is|was|do)\b[^?]*\b(?:expire|end|terminate|commence|begin|start|signed|dated|"
        r"effective)\b", re.I)),
    ("an amount", frozenset({"amount", "number", "percent"}), re.compile(
        r"\bhow\s+much\b|\bwhat\s+(?:is\s+the\s+|was\s+the\s+|are\s+the\s+)?(?:(?:total|minimum|maximum|aggregate|"
        r"annual|monthly)\s+)?(?:amount|sum|price|fee|cost)s?\b|"
        # a figure of the accounts, whose'ever ("What was Bravatek's revenue in 2016?", "What were the Net Sales …")
        r"\bwhat\s+(?:is|was|were|are)\s+(?:the\s+)?(?:[\w.&-]+(?:'s|’s|s'|s’)\s+)?(?:(?:total|net|gross|annual|"
        r"monthly|yearly|quarterly|operating)\s+)*(?:revenues?|sales|income|earnings|profits?|turnover)\b"
        r"(?=\s*(?:[?,]|$|(?:of|in|for|from|during|by|under|at|on|over|to|last|this|each|per|and)\b))", re.I)),
    ("a number", frozenset({"number", "amount"}), re.compile(r"\bhow\s+many\s+\w+", re.I)),
]


def value_asked(question: str) -> tuple[str, frozenset[str]] | None:
    """(what the question asks for in words, the fact kinds that state it), or None when it asks
    for no value (a clause, a yes/no, a condition). A question asking several things
    (text.question_parts) asks for values only when each part does ("How long does the term run,
    and on what date does it end?": a period or a date); one part that asks for a clause lets
    any quote on the subject through."""
    asks = asked_parts(question)
    if not asks:
        return None
    words = list(dict.fromkeys(w for _, w, _, _ in asks))
    return " or ".join(words), frozenset().union(*(k for _, _, k, _ in asks))


def asked_parts(question: str) -> list[tuple[str, str, frozenset[str], re.Pattern[str]]]:
    """Each part of the question with what it asks (words, fact kinds, the wh-phrase's pattern),
    when every part asks a value; else []."""
    from workbench.text.question_parts import question_parts

    out = []
    for part in question_parts(question):
        hit = next(((w, k, rx) for w, k, rx in _ASKS if rx.search(part)), None)
        if hit is None:
            return []
        out.append((part, *hit))
    return out


# A term's length or end stated by the event that ends it, not a number: "until the expiration of
# the last Royalty Term", "will end when terminated by either party", "upon the end of Year 3",
# "for an indefinite period". It answers how long something runs and when it ends ("end" among the
# kinds asked), never how many days.
_ENDS_BY_EVENT = re.compile(
    r"\b(?:until|upon|on|at|through|till)\s+(?:the\s+)?(?:(?:later|earlier)\s+of\s+(?:\(\w\)\s+)?(?:the\s+)?)?"
    r"(?:expiration|expiry|termination|end|completion|anniversary|conclusion|cessation|last\s+day)\b|"
    r"\buntil\s+[^.;]{0,80}?\b(?:expires?|terminates?|ends)\b|\b(?:until|when)\s+(?:(?:it\s+is|so|earlier)\s+)?terminated\b|"
    r"\bindefinite(?:ly)?\b|\bperpetu(?:al|ity)\b|\bfor\s+so\s+long\s+as\b|\banniversary\s+of\b|"
    r"\bend\s+of\s+(?:contract\s+)?year\s+\w+", re.I)


def states_value(kinds: frozenset[str], text: str) -> bool:
    """Whether `text` states a fact of one of `kinds` (a redacted "[*****]" states nothing)."""
    return any(f.kind in kinds for f in extract(text)) or ("end" in kinds and bool(_ENDS_BY_EVENT.search(text)))


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
