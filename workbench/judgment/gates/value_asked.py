"""Gate `value_asked`: a question that asks for a value — "how many days", "how much notice" (a
period), "how much", "what purchase price", "what percentage", "what share of", "what interest
rate", "what is the maximum number of", "which state's law", "which courts" or "where would an
arbitration be seated" (a place of dispute), "where must disputes be resolved" (a forum: a place
or "submitted to arbitration"), "on what date", "in what year" — is answered only by a quote
that states a value of that kind (read by judgment.facts, the reader that judges claims). A clause on the topic that
names no value ("may terminate on prior written notice", "Net Sales means …", "within [*****]
days") is on the subject but does not answer: rejected as does_not_address_question, so a question
the document does not answer gets NO_AUTHORITATIVE_EVIDENCE, and a reviewer can still mark the
clause supported.

The value must be the clause's: its own number ("5. Royalties payable by TL.") and a page footer
it crosses ("Page 1 of 6") state none; a place of dispute is a place named beside a court or an
arbitration (a governing-law clause names none); nothing paid ("no upfront compensation") answers "how much".
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
    # where a dispute is heard. A place asked ("which courts", "in which city", "where … be seated /
    # filed / brought") is a place named beside a court or an arbitration ("courts located in New
    # York City"); "where must disputes be resolved" is answered by the forum itself too ("submitted
    # to arbitration"). A governing-law clause alone names neither.
    ("a place of dispute", frozenset({"place"}), re.compile(
        r"\b(?:which|what)\s+(?:\w+\s+)?(?:courts?|venue|tribunal|seat|city|county)\b|"
        r"\bin\s+(?:which|what)\s+(?:\w+\s+)?(?:courts?|city|county|venue)\b|"
        r"\bwhere\b[^?]*\b(?:seated|filed|brought|bring|commenced|instituted|located|take\s+place)\b", re.I)),
    ("a forum", frozenset({"place", "forum"}), re.compile(
        r"\bwhat\s+(?:\w+\s+)?forum\b|"
        r"\bwhere\b[^?]*\b(?:arbitrat\w*|lawsuits?|suits?|actions?|disputes?|claims?|proceedings?|litigation|"
        r"hearings?)\b", re.I)),
    ("a year", frozenset({"year"}), re.compile(r"\b(?:what|which)\s+year\b", re.I)),
    ("an interest rate", frozenset({"percent"}), re.compile(r"\bwhat\s+(?:\w+\s+){0,2}interest\s+rates?\b", re.I)),
    ("a share", frozenset({"percent", "number"}), re.compile(
        r"\bwhat\s+(?:\w+\s+)?(?:share|proportion|fraction)\s+of\b", re.I)),
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
    ("an amount", frozenset({"amount", "number", "percent", "none"}), re.compile(
        r"\bhow\s+much\b|\bwhat\s+(?:is\s+the\s+|was\s+the\s+|are\s+the\s+)?"
        r"(?:(?!(?:does|do|did|is|are|was|were|will|would|shall|should|must|can|may|happens?)\b)[\w-]+\s+){0,2}?"
        r"(?:amount|sum|price|fee|cost|payment|compensation|salary|rent|royalty|commission|premium|deposit|"
        r"penalty|bonus|limit)s?\b(?!\s+(?:terms?|schedules?|methods?|structure|obligations?|process|procedures?|"
        r"provisions?|clauses?|mechanism|dates?|periods?)\b)|"
        # a figure of the accounts, whose'ever ("What was Bravatek's revenue in 2016?", "What were the Net Sales …")
        r"\bwhat\s+(?:is|was|were|are)\s+(?:the\s+)?(?:[\w.&-]+(?:'s|’s|s'|s’)\s+)?(?:(?:total|net|gross|annual|"
        r"monthly|yearly|quarterly|operating)\s+)*(?:revenues?|sales|income|earnings|profits?|turnover)\b"
        r"(?=\s*(?:[?,]|$|(?:of|in|for|from|during|by|under|at|on|over|to|last|this|each|per|and)\b))", re.I)),
    ("a number", frozenset({"number", "amount"}), re.compile(
        r"\bhow\s+many\s+\w+|\bwhat\s+(?:is\s+|was\s+|are\s+)?(?:the\s+)?(?:(?:minimum|maximum|total)\s+)?number\s+of\b",
        re.I)),
    # a bound of anything measured: "What minimum line pressure must Transporter maintain?"
    ("a figure", frozenset({"number", "amount", "percent", "duration"}), re.compile(
        r"\bwhat\s+(?:is\s+|was\s+|are\s+)?(?:the\s+)?(?:minimum|maximum)\s+\w+", re.I)),
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


# A clause's own number opening the text ("5. Royalties payable by TL.", "9.1 During …", "(3)") is no
# value; "30 days" is.
_MARKER = re.compile(r"\s*\(?\d+(?:\.\d+)*[.)]?(?=\s)")
# a running footer a quote crosses at a page break ("… with a  Page 1 of 6  Purchase Customer") states nothing
_PAGE_FOOTER = re.compile(r"\bPage\s+\d+\s+of\s+\d+\b", re.I)
_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
# "no upfront compensation", "free of charge": an amount of nothing answers "how much"
_NONE_PAID = re.compile(r"\b(?:no|without(?:\s+any)?)\s+(?:(?:additional|further|other|upfront|up-front|separate|extra)\s+)?"
                        r"(?:compensation|charge|fees?|payments?|costs?|royalt(?:y|ies)|consideration|rent|commissions?)\b|"
                        r"\bfree\s+of\s+(?:any\s+)?charge\b|\bat\s+no\s+(?:additional\s+|extra\s+)?(?:cost|charge)\b", re.I)
# a place names a forum when a court or an arbitration is named beside it (a heading's "Forum" names
# none: "15. Choice of Law and Forum - This Agreement will be governed by the laws of Illinois")
_FORUM_WORD = re.compile(r"\b(?:courts?|tribunals?|arbitrat\w*|venue|seat(?:ed)?|jurisdiction|litigat\w*|"
                         r"brought|filed|commenced|instituted|heard)\b", re.I)
# a city or county the list of jurisdictions lacks, named as the forum: "the courts of Geneva",
# "arbitration in London", "courts located in Cook County"
_FORUM_PLACE = re.compile(r"\b(?:courts?|tribunals?|arbitration|venue|seat)\b[^.;]{0,60}?\b(?:in|of|at)\s+(?:the\s+)?"
                          r"(?:(?:City|County)\s+of\s+)?([A-Z][a-z]+(?:\s+[A-Z][a-z]+)*)")
_NO_PLACE = frozenset({"Agreement", "Party", "Parties", "Company", "Section", "Article", "Court", "Courts", "Law", "Laws",
                       "State", "Competent", "Any", "Such", "This", "Each", "Either", "Rules", "Arbitration"})


# a forum named without a place: disputes sent to arbitration or to a court's jurisdiction
_FORUM_NAMED = re.compile(
    r"\b(?:submit\w*|refer\w*|resolv\w*|settl\w*|decid\w*|determin\w*)\b[^.;]{0,40}?\b(?:by|to|through|in)\s+"
    r"(?:(?:binding|final|confidential)\s+)*arbitration\b|\bexclusive\s+jurisdiction\s+of\b|"
    r"\bsubmit\w*\s+to\s+the\s+(?:(?:exclusive|non-exclusive)\s+)?jurisdiction\b", re.I)


def value_spans(text: str, kinds: frozenset[str]) -> list[tuple[int, int]]:
    """Where `text` states a value of one of `kinds` (a redacted "[*****]" states nothing; the
    clause's opening number is no value). Besides judgment.facts' kinds: "end" (a term ended by an
    event), "year" (a year named), "place" (a place, with a court or an arbitration named), "forum" (disputes
    sent to arbitration or to a court's jurisdiction), "none"
    (nothing paid: "no upfront compensation", "free of charge")."""
    marker = _MARKER.match(text)
    mark = marker.group().strip() if marker else ""
    skip = marker.end() if mark and (mark[-1] in ".)" or "." in mark) else 0
    footers = [m.span() for m in _PAGE_FOOTER.finditer(text)]
    facts = [f for f in extract(text) if f.start >= skip and not any(a <= f.start < b for a, b in footers)]
    spans = [(f.start, f.start + len(f.text)) for f in facts if f.kind in kinds]
    for kind, rx in (("end", _ENDS_BY_EVENT), ("none", _NONE_PAID), ("year", _YEAR)):
        if kind in kinds:
            spans += [m.span() for m in rx.finditer(text)]
    if "place" in kinds and _FORUM_WORD.search(text):
        spans += [(f.start, f.start + len(f.text)) for f in facts if f.kind == "jurisdiction"]
        spans += [m.span(1) for m in _FORUM_PLACE.finditer(text) if m.group(1).split()[0] not in _NO_PLACE]
    if "forum" in kinds:
        spans += [m.span() for m in _FORUM_NAMED.finditer(text)]
    return spans


def states_value(kinds: frozenset[str], text: str) -> bool:
    """Whether `text` states a value of one of `kinds` (value_spans)."""
    return bool(value_spans(text, kinds))


def check(inp: QuoteInput) -> GateResult | None:
    asked = value_asked(inp.question)
    if asked is None:
        return None
    words, kinds = asked
    if states_value(kinds, inp.quote) or (inp.unit.lead_in and states_value(kinds, inp.unit.lead_in)):
        return None
    return GateResult(NAME, "does_not_address_question",
                      f"On the question's subject (relevance {inp.relevance:.2f}) but states no value: the question asks "
                      f"for {words}, and this passage gives none.")
