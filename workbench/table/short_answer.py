"""A cell's short answer, read from its run as reviewed: the characters of a verified quote that
state the fact asked, normalised beside them; "Yes" citing the clause for a yes/no question whose
topic the clause names; the clause itself otherwise; "not found" when no evidence is supported.

Never "No": an absent clause is "not found" (NO_AUTHORITATIVE_EVIDENCE), which a reviewer may
correct, never a finding the engine makes. The facts are read by workbench.judgment.facts, the
same reader that judges claims, so "thirty (30) days" is 30 days everywhere."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from workbench.judgment.facts import Fact, extract
from workbench.models import NO_AUTHORITATIVE_EVIDENCE, CellCitation, EvidenceStatus, QuestionKind, ReviewedRun

NOT_FOUND = "not found"
YES = "Yes"
CLAUSE_WORDS = 30  # a clause shown as the short answer is cut to this many words
MAX_CITATIONS = 5
# words a yes/no question's topic never rests on ("Does this agreement …", "a party's …")
_GENERIC = frozenset(["agreement", "contract", "clause", "provision", "section", "party", "parties", "other", "right", "rights", "term", "terms", "grant", "require", "allow", "give", "provide", "address"])
_LAW_WORDS = re.compile(r"\b(?:law|laws|governed|governing|construed|jurisdiction|courts?|venue)\b", re.IGNORECASE)
_UNIT = re.compile(r"(business day|calendar day|working day|day|week|month|quarter|year)s?", re.IGNORECASE)


@dataclass
class ShortAnswer:
    text: str  # NOT_FOUND, YES, the words of the quote stating the fact, or the clause
    normalized: str | None = None
    basis: str | None = None  # the evidence ID it was read from
    citations: list[CellCitation] = field(default_factory=list)
    result: str | None = None  # NO_AUTHORITATIVE_EVIDENCE when nothing is supported


def _fmt(v: float) -> str:
    return f"{int(v):,}" if v == int(v) else f"{v:,.2f}"


def normalize(fact: Fact) -> str:
    """A fact in one written form: "Kansas", "2014-05-08" ("2014-05" without a day), "30 days",
    "USD 1,000,000", "7%"."""
    if fact.kind == "jurisdiction":
        return str(fact.value[0])
    if fact.kind == "date":
        y, m, d = fact.value
        return f"{y:04d}-{m:02d}-{d:02d}" if d else f"{y:04d}-{m:02d}"
    if fact.kind == "duration":
        unit = _UNIT.search(fact.text)
        word = unit.group(1).lower() if unit else "day"
        count = fact.count or fact.value[0]
        return f"{_fmt(count)} {word}{'' if count == 1 else 's'}"
    if fact.kind == "amount":
        return f"{fact.value[0]} {_fmt(fact.value[1])}"
    if fact.kind == "percent":
        return f"{_fmt(fact.value[0])}%"
    return _fmt(fact.value[0])


def normalize_text(text: str, kind: QuestionKind) -> str | None:
    """The normalised form of a fact of `kind` stated in `text` (a reviewer's correction), if any."""
    if kind == "yes_no":
        low = text.strip().lower()
        return "yes" if low.startswith("yes") else "no" if low.startswith("no") else None
    fact = _pick(extract(text), kind, text, strict=False)
    return normalize(fact) if fact else None


def _pick(facts: list[Fact], kind: QuestionKind, quote: str, *, strict: bool = True) -> Fact | None:
    """The fact of `kind` a quote states; a jurisdiction only as the governing law (or the courts),
    never where a party is incorporated."""
    if kind == "jurisdiction":
        law = [f for f in facts if f.kind == "jurisdiction" and f.role == "law"]
        if law:
            return law[0]
        loose = [f for f in facts if f.kind == "jurisdiction" and f.role == ""]
        return loose[0] if loose and (not strict or _LAW_WORDS.search(quote)) else None
    return next((f for f in facts if f.kind == kind), None)


def _topic_terms(label: str, question: str) -> set[str]:
    """The stems a clause must name to answer a yes/no question "Yes": its label's (else the
    question's) content words, less function words and words every contract question uses."""
    from workbench.text.terms import FUNCTION_WORDS, stem, tokenize

    drop = {stem(w) for w in FUNCTION_WORDS | _GENERIC}
    return {t for t in tokenize(label or question) if t not in drop and len(t) > 2}


def _names(terms: set[str], text: str) -> bool:
    """Every term is named in `text` (a stem matching the start of a word's stem, or the other way:
    "non-compete" in "non-competitive")."""
    from workbench.text.terms import tokenize

    have = set(tokenize(text))
    return all(any(h.startswith(t) or (len(h) >= 4 and t.startswith(h)) for h in have) for t in terms)


def _clause(text: str) -> str:
    words = text.split()
    return " ".join(words[:CLAUSE_WORDS]) + (" …" if len(words) > CLAUSE_WORDS else "")


def _quote(s: EvidenceStatus) -> str:
    return s.evidence.span.text if s.evidence.span else s.evidence.exact_quote


def citation(s: EvidenceStatus, amendments: frozenset[str] = frozenset()) -> CellCitation:
    ev, sp = s.evidence, s.evidence.span
    return CellCitation(requirement_id=ev.requirement_id, document_id=ev.document_id,
                        page=sp.page if sp else None, page_label=sp.page_label if sp else None,
                        quote=" ".join(_quote(s).split()), start=sp.start if sp else None, end=sp.end if sp else None,
                        text_sha256=sp.text_sha256 if sp else None,
                        final_status=s.final_status, human_label=s.human_label,
                        ocr_confidence=sp.ocr_confidence if sp else None,
                        ocr_min_confidence=sp.ocr_min_confidence if sp else None,
                        amendment=ev.document_id in amendments)


def ranked(rr: ReviewedRun, amendments: frozenset[str] = frozenset()) -> list[EvidenceStatus]:
    """Supported items, best first: an amendment's before the document it changes (the later word
    on the same matter), then a reviewer's Supported, then the verifier's score."""
    ok = [s for s in rr.statuses if s.final_status == "supported" and s.hash_ok]
    return sorted(ok, key=lambda s: (s.evidence.document_id not in amendments, s.human_label != "supported",
                                     -(s.verification.score if s.verification else 1.0)))


def short_answer(rr: ReviewedRun, kind: QuestionKind, question: str, label: str = "",
                 amendments: frozenset[str] = frozenset()) -> ShortAnswer:
    """The cell's short answer from the run as reviewed (see the module docstring). `amendments`:
    the documents related to the row's as changing it; a fact they state is the answer, marked."""
    items = ranked(rr, amendments)
    if not items:
        return ShortAnswer(text=NOT_FOUND, result=NO_AUTHORITATIVE_EVIDENCE)
    basis, text, normalized = items[0], None, None
    if kind == "yes_no":
        terms = _topic_terms(label if label != question else "", question)
        named = next((s for s in items if _names(terms, f"{_quote(s)} {s.evidence.section_heading or ''}")), None)
        if named is not None:
            basis, text, normalized = named, YES, "yes"
    elif kind != "text":
        for s in items:
            quote = " ".join(_quote(s).split())
            fact = _pick(extract(quote), kind, quote)
            if fact is not None:
                basis, text, normalized = s, fact.text, normalize(fact)
                break
    if text is None:  # no fact of the kind asked in any supported quote: the best clause speaks for itself
        text = _clause(_quote(basis))
    cited = {c for sent in rr.answer.sentences for c in sent.citations}
    others = [s for s in items if s is not basis and s.evidence.requirement_id in cited]
    return ShortAnswer(text=text, normalized=normalized, basis=basis.evidence.requirement_id,
                       citations=[citation(s, amendments) for s in [basis, *others][:MAX_CITATIONS]])
