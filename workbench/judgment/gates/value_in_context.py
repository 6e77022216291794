"""Gate `value_in_context`: a value answers the question only when it is the value of what the
question asks about. "Within how many days must HDI cure a breach after notice?" is not answered by
"… fails to have the Site fully operational within seventy (70) days …": a period, but of another
event. The sentence that states the value (read with the list's lead-in) must hold at least one of
the question's more specific words — the upper half by IDF in the document, of the words the
document uses at all, the wh-phrase ("within how many days", "how much notice") and the
agreement's own names ("agreement", "contract", "term") left out; a word of the same family
counts ("terminate" finds "termination"). A question about the agreement's term is answered by a
sentence naming the agreement ("This Agreement shall continue for five (5) years"). A year the
question names ("What were the Net Sales … in 1999?") must be named by that sentence too: "HDI shall
receive ten percent (10%) of Net Sales" is no year's figure. A date asked of an event ("On which
date does the endorsement deal expire?", "… did the FERC approve …") must be the date of that event:
the sentence stating it names the event (_DATE_EVENTS: expiry, signing, commencement, approval,
delivery, release); the preamble's "made this 14th day of March, 2016" dates none of them but the
signing.

Only questions `value_asked` gates are read here, and only quotes that state a value of the kind
asked (else that gate decides). Without the document's word weights every question word counts.
Measured: BENCHMARKS.md "Near-miss questions (#39)" and "Clause units held out (#39)"."""

from __future__ import annotations

import math
import re
from functools import lru_cache

from workbench.judgment.gates.base import GateResult, QuoteInput
from workbench.judgment.gates.value_asked import _YEAR, asked_parts, value_spans
from workbench.text.terms import content_terms, same_family, stem, surface_forms
from workbench.text.weights import TermWeights

NAME = "value_in_context"

# The agreement itself: a question about its term or its end is answered by "this Agreement shall
# continue for five (5) years", a sentence naming it in any of these words.
_AGREEMENT = frozenset(stem(w) for w in ("agreement", "contract", "term"))
# a sentence ends at ";" or at a stop before a capital or an opening bracket ("Sec. 3.1" and "30.5" go on)
_SENTENCE_END = re.compile(r";\s+|(?<=[a-z)\]\"'”’][.!?])\s+(?=[\"“(\[]?[A-Z(])")

# a preposition before the wh-phrase is part of it: "within how many days", "on what date"
_PREP = r"(?:\b(?:within|in|on|by|for|from|until|till|after|before|at|to)\s+)?"


@lru_cache(maxsize=256)
def _wh_removed(question: str) -> str:
    """The parts of a question asking values, each without its wh-phrase ("within how many days");
    remembered: a run judges one question against every quote it proposes."""
    return " ".join(_without_wh(part, rx) for part, _words, _kinds, rx in asked_parts(question))


def _without_wh(part: str, rx: re.Pattern[str]) -> str:
    """A part of a question without its wh-phrase and the preposition before it."""
    return re.sub(_PREP + f"(?:{rx.pattern})", " ", part, flags=rx.flags)


def focus_terms(question: str, weights: TermWeights | None = None) -> list[str]:
    """The question's more specific words (stems): of each part asking a value, the words outside
    its wh-phrase and other than the agreement's own names, those the document uses, the upper
    half by IDF in the document."""
    terms = list(dict.fromkeys(t for t in content_terms(_wh_removed(question)) if t not in _AGREEMENT))
    if weights is not None:
        terms = [t for t in terms if weights.uses(t)]
        if not terms:
            return []
        terms.sort(key=lambda t: -weights.idf(t))
        return terms[:math.ceil(len(terms) / 2)]
    return terms


def _sentence_around(text: str, start: int, end: int) -> str:
    cuts = [0] + [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]
    lo = max(c for c in cuts if c <= start)
    hi = min((c for c in cuts if c >= end), default=len(text))
    return text[lo:hi]


def value_sentences(text: str, kinds: frozenset[str]) -> list[str]:
    """The sentences of `text` that state a value of one of `kinds`."""
    spans = value_spans(text, kinds)
    return list(dict.fromkeys(_sentence_around(text, s, e) for s, e in spans))


# Each part of the question (its text, what it asks in words, its wh-phrase) with the sentences of
# the quote that state a value of the kind it asks.
Stated = list[tuple[str, str, re.Pattern[str], list[str]]]


def _stated(asked: list[tuple[str, str, frozenset[str], re.Pattern[str]]], sentences: list[str]) -> Stated:
    return [(part, words, rx, [s for s in sentences if value_sentences(s, kinds)]) for part, words, kinds, rx in asked]


def _year_unmet(by_part: Stated) -> set[str]:
    """The years asked that the quote's value is not given for: empty when some part whose kind of
    value the quote states names no year, or names one its sentence names ("What law governs and what
    was the revenue in 2019?": the law clause answers the first part, whatever the year)."""
    unmet: set[str] = set()
    for part, _words, rx, stated in by_part:
        if not stated:
            continue
        years = set(_YEAR.findall(_without_wh(part, rx)))
        if not years or any(years & set(_YEAR.findall(s)) for s in stated):
            return set()
        unmet |= years
    return unmet


# The event whose date is asked, and the words by which a sentence dates that event: "On which date
# does the endorsement deal expire?" is not answered by "This Agreement is made this 14th day of
# March, 2016", nor "On what date did the FERC approve …" by the date the agreement was entered into.
_DATE_EVENTS: list[tuple[re.Pattern[str], re.Pattern[str]]] = [(re.compile(q, re.I), re.compile(s, re.I)) for q, s in (
    (r"\b(?:expir\w*|ends?|ended|terminat\w*|laps\w*)\b",
     r"\b(?:expir\w*|end(?:s|ed|ing)?|terminat\w*|laps\w*|until|through|anniversary)\b"),
    (r"\b(?:sign(?:s|ed)?|execut\w*)\b", r"\b(?:sign\w*|execut\w*|made|entered|dated)\b"),
    (r"\b(?:commenc\w*|begins?|began|starts?|started)\b",
     r"\b(?:commenc\w*|begin\w*|start\w*|effective|from|as\s+of)\b"),
    (r"\bapprov\w*", r"\bapprov\w*"),
    (r"\bdeliver\w*", r"\bdeliver\w*"),
    (r"\breleas\w*", r"\breleas\w*"),
)]


def _event_unmet(by_part: Stated) -> str:
    """The event a date is asked of ("expire", "approve") that no sentence stating the date names;
    "" when some part asking a date is met or names no such event, or no part asks a date."""
    unmet = ""
    for part, words, _rx, stated in by_part:
        if not stated:
            continue
        if words != "a date":
            return ""  # a part asking another kind of value is answered
        events = [(m.group(), said) for ask, said in _DATE_EVENTS if (m := ask.search(part))]
        if not events or any(said.search(s) for _, said in events for s in stated):
            return ""
        unmet = events[0][0]
    return unmet


# A name the question gives ("at the Agua Dulce meter", "its contract with MetroCall") that the
# document uses in no more than RARE sentences: only those places can state its value.
RARE = 2
_NAME = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:of\s+|and\s+)?[A-Z0-9][\w'’-]*)*")
_AGREEMENT_NAME = re.compile(r"\b(?:agreement|contract)s?\s*$", re.I)


def _rare_names_unmet(question: str, sentences: list[str], weights: TermWeights | None) -> list[str]:
    """The question's names (runs of capitalised words outside the wh-phrase; an agreement's name,
    which may be this one's, left out) that the document uses in at most RARE sentences and that no
    sentence stating the value names."""
    if weights is None:
        return []
    have = {t for s in sentences for t in content_terms(s)}
    unmet = []
    for m in _NAME.finditer(_wh_removed(question)):
        name = m.group().strip()
        if _AGREEMENT_NAME.search(name):
            continue
        rare = [t for t in content_terms(name) if 0 < weights.sentences_with(t) <= RARE]
        if rare and not any(same_family(t, h) for t in rare for h in have):
            unmet.append(name)
    return unmet


def check(inp: QuoteInput) -> GateResult | None:
    asked = asked_parts(inp.question)
    if not asked:
        return None
    kinds = frozenset().union(*(k for _, _, k, _ in asked))
    lead = f"{inp.unit.lead_in} " if inp.unit.lead_in else ""
    # the lead-in owns its items: it is read with each sentence of the item
    sentences = [lead + s for s in value_sentences(inp.quote, kinds)] or ([lead + inp.quote] if lead else [])
    if not any(value_sentences(s, kinds) for s in sentences):
        return None  # no value of the kind asked: `value_asked` decides
    by_part = _stated(asked, sentences)
    years = _year_unmet(by_part)
    if years:
        return GateResult(NAME, "does_not_address_question",
                          f"States a value of the kind asked, but not for {' or '.join(sorted(years))}: the sentence "
                          f"that states it names no such year.")
    event = _event_unmet(by_part)
    if event:
        return GateResult(NAME, "does_not_address_question",
                          f"States a date, but not when something is said to {event.lower()}: the sentence that "
                          f"states it does not name that event.")
    names = _rare_names_unmet(inp.question, sentences, inp.weights)
    if names:
        return GateResult(NAME, "does_not_address_question",
                          f"States a value of the kind asked, but not of {', '.join(names)}: the document names it "
                          f"in at most {RARE} places, and the sentence that states the value is not one of them.")
    focus = focus_terms(inp.question, inp.weights)
    if not focus:
        return None
    of_agreement = bool(_AGREEMENT & set(content_terms(_wh_removed(inp.question))))
    for s in sentences:
        have = set(content_terms(s))
        if any(same_family(f, h) for f in focus for h in have) or (of_agreement and _AGREEMENT & have):
            return None
    said = surface_forms(_wh_removed(inp.question))
    words = ", ".join(f'"{said.get(f, f)}"' for f in focus)
    return GateResult(NAME, "does_not_address_question",
                      f"States a value of the kind asked, but of something else: the sentence that states it has none of "
                      f"the question's more specific words ({words}).")
