"""Gate `dangling_reference`: a quote that depends on text it does not contain ("Such notice
shall …", "the foregoing", "see Section") cannot be cited alone — rejected as incomplete_quote.

Measured (`python -m bench.bench_gates`, held out): on CUAD it raises NO_AUTHORITATIVE_EVIDENCE
when the clause is absent from 0.739 to 0.745 and rejects 0.19 quotes a run ("Such termination
shall be effective …"), at the cost of one gold clause of 153 (found 0.915 vs 0.922); on the
regulatory bench it rejects 0.8 quotes a run and costs one answered question (16 vs 17 of 20).
Kept for seed 000's "self-contained" criterion: a quote an auditor reads alone must say what it
says without the text around it.
"""

from __future__ import annotations

import re

from workbench.judgment.gates.base import GateResult, QuoteInput
from workbench.text import content_terms
from workbench.text.lexicon import ENUMERATOR
from workbench.text.terms import stem

NAME = "dangling_reference"


def check(inp: QuoteInput) -> GateResult | None:
    d = dangling_reference(inp.quote)
    if d:
        return GateResult(NAME, "incomplete_quote", f"Not self-contained: '{d}' refers to text outside the quote.")
    return None


# A pronoun or demonstrative opening the quote points outside it - unless a defined term follows
# ("This Agreement", "These Terms", "Such Party" are names, not references).
_OPENING_REF = re.compile(r"^\W*(this|these|those|such|said|it|they|them|its|their|he|she|thereof|the same|"
                          r"the foregoing|the above|the aforementioned|the preceding)\b(\s+\S+)?", re.I)
_REF_ANYWHERE = re.compile(
    r"(\bsee\s+(§|(section|sec\.|article|paragraph|clause|appendix|annex|exhibit|schedule|table|figure)\b)\s*$|"
    r"\bas (described|set forth|stated|discussed|noted|mentioned) (above|earlier|previously)\b|"
    r"\bthe foregoing\b|\bthe aforementioned\b|\baforesaid\b)")
# "the foregoing" after a clause of the quote's own points at it ("Xencor hereby grants … a license
# … ; provided that the foregoing license …"); opening the quote, it points outside
_BACK_INSIDE = re.compile(r"the foregoing|the aforementioned|aforesaid")
INSIDE_WORDS = 12
_SUCH = re.compile(r"\b(?:such|SUCH)\s+(?:(?:an?|AN?)\s+(?=[a-zA-Z]))?([a-z][\w-]*|[A-Z][A-Z-]+\b)")
# "such" before these is no "such <noun>" pointing back: "such as", "to such extent", "used as such in
# our discretion" (the funds the quote names)
_SUCH_NO_NOUN = frozenset(["as", "that", "a", "an", "other", "time", "times", "extent", "manner", "event", "case", "way",
                           "in", "on", "at", "by", "for", "to", "of", "and", "or", "but", "is", "are", "was", "were",
                           "will", "shall", "may", "under", "with", "without", "from"])
# after "such <noun>", the start of the clause that defines it: "such action the defaulting party must
# take", "such information as the Company may request", "such steps that are necessary"
_RESTRICTIVE = frozenset(["as", "that", "which", "who", "whom", "whose", "the", "its", "his", "her", "their", "it",
                          "he", "she", "they", "we", "you"])
_NEXT_WORD = re.compile(r"\s+([A-Za-z]+)\b")
# "such cases and to such extent as …": coordinated with a "such" that what follows defines
_COORDINATED = re.compile(r"\s+(?:and|or)\s+(?:\w+\s+){0,2}such\s+\w+\s+(?:as|that)\b", re.I)
_OF_WORD = re.compile(r"\s+of\s+(?:the\s+)?([A-Za-z]+)\b")
_DEMONSTRATIVES = {"this", "these"}  # "This Agreement" names; "Such Party" still points back
# "this agreement" names the document whatever its case; "this section" would not say which
_DOCUMENT_NOUNS = frozenset(["agreement", "agreements", "contract", "amendment", "addendum", "lease", "license",
                             "licence", "guideline", "guidelines", "document", "publication", "standard", "policy",
                             "memorandum"])
# "It is expressly agreed that …": an expletive "it" that points at the that-clause it opens
_EXPLETIVE_IT = re.compile(r"^\W*it\s+is\s+(?:(?:hereby|expressly|further|mutually|specifically|also|understood and)\s+)*"
                           r"(?:agreed|understood|acknowledged|intended|recogni[sz]ed|stipulated|"
                           r"the\s+(?:intention|intent|understanding)\s+of\s+the\s+parties)\b[^.;]{0,80}?\bthat\b", re.I)


def dangling_reference(quote: str) -> str | None:
    """The words that make the quote depend on text it does not contain, if any. Defined terms
    (a capitalised noun after This/These: "This Agreement"; "the Company", "Licensee"), the
    document itself in any case ("this agreement") and an expletive "It is agreed that …" are
    self-contained; "Such Party" or "such information" with nothing in the quote to point at is not."""
    body = ENUMERATOR.sub("", quote, count=1)
    m = _OPENING_REF.match(body)
    if m and not _EXPLETIVE_IT.match(body):
        word = m.group(1).lower()
        nxt = (m.group(2) or "").strip()
        # in capitals every word is capitalised ("THIS LIMITATION"); after "This" a word in capitals
        # is an acronym that names ("This AD applies to …", "This NIST Special Publication …")
        named = nxt[:1].isupper() and not (m.group(1).isupper() and len(nxt) > 1 and nxt.isupper())
        if not (word in _DEMONSTRATIVES and (named or nxt.lower().rstrip(",.;:") in _DOCUMENT_NOUNS)):
            return f"{m.group(1)}{(' ' + nxt) if word in _DEMONSTRATIVES and nxt else ''}"
    m = _REF_ANYWHERE.search(body)
    if m and not (_BACK_INSIDE.fullmatch(m.group(0).lower()) and len(body[:m.start()].split()) >= INSIDE_WORDS):
        return m.group(0)
    for m in _SUCH.finditer(body):  # "such breach" after "breaches" points inside; otherwise outside
        word = m.group(1).lower()
        if word in _SUCH_NO_NOUN:
            continue
        nxt = _NEXT_WORD.match(body, m.end())
        if nxt and nxt.group(1).lower() in _RESTRICTIVE or _COORDINATED.match(body, m.end()):
            continue  # "such action the defaulting party must take", "such consent as": defined by what follows
        before = set(content_terms(body[:m.start()]))
        of = _OF_WORD.match(body, m.end())
        if stem(word) not in before and not (of and stem(of.group(1).lower()) in before):
            return m.group(0)  # "each such item of default" after "a default" points inside
    return None
