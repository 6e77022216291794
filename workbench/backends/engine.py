"""Units of evidence for `ask` and `verify`: whole sentences, list items read after their
lead-in, and clauses, never a line fragment; a unit over the word limit is trimmed at clause
boundaries and says so (its UnitInfo). The judgment itself lives in workbench/judgment: the
judge's scores (`scores`), the verdict on a quote with its named gates (`verdict`, `gates/`) and
on a claim (`claims`); the names below are re-exported for the engine's callers.

Rationales are written for a reviewer: words as written, never stems."""

from __future__ import annotations

import contextlib
import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workbench.config import JudgmentSettings

# re-exported for the engine's callers (backends, pipeline, bench, tests), which read them as engine.X
from workbench.judgment.claims import ClaimVerdict, judge_claim, polarity_conflict, sentence_support  # noqa: F401
from workbench.judgment.gates.dangling_reference import dangling_reference
from workbench.judgment.scores import (  # noqa: F401
    SCORES,
    Judge,
    LexicalJudge,
    ScoreCache,
    closeness,
    get_judge,
    without_party_names,
)
from workbench.judgment.verdict import (  # noqa: F401
    QuoteVerdict,
    judge_evidence,
    judge_quote,
    judged_text,
    lead_of,
    lead_tail,
)
from workbench.models import UnitInfo
from workbench.text import clause_bounds, content_terms
from workbench.text.lexicon import ENUMERATOR as _ENUM
from workbench.text.question_parts import question_parts
from workbench.text.sentences import DOT_LEADERS, FOOTNOTE_MARK, OPEN_WORDS, furniture_between
from workbench.text.terms import embed_form, stem
from workbench.text.weights import TermWeights, weights_for

# The defaults of Settings.judgment (described there), for the engine's readers that are handed no
# settings; the backends pass their own Settings.judgment.
_JUDGMENT = JudgmentSettings()
RELEVANT = _JUDGMENT.relevant
SUPPORTED = _JUDGMENT.supported
EXTRACT_FLOOR = _JUDGMENT.extract_floor
MAX_PROPOSED = _JUDGMENT.max_proposed
SEARCH_K = 40  # segment units asked of the retriever per document and query


# --- units: whole sentences, list items and clauses ------------------------------------------
_BULLET_GLYPH = re.compile(r"[•·▪◦●■+*–—-]\s+")
_TRAIL_CHARS = frozenset(",;:(\u2014\u2013-")
_TRAIL_WORDS = ("and/or", "and", "or")


def trail_cut(text: str, s: int, e: int) -> int:
    """The end of text[s:e] without trailing punctuation, dashes and a dangling "and"/"or"/"and/or".
    A loop, not a regex: the nested-quantifier pattern it replaces backtracked exponentially on a
    table rule ("-------- ----------"), 70 s for 14 dashes, and hung `ask` on a CUAD contract."""
    while e > s:
        ch = text[e - 1]
        if ch.isspace() or ch in _TRAIL_CHARS:
            e -= 1
            continue
        for w in _TRAIL_WORDS:
            k = e - len(w)
            if k > s and text[k:e] == w and text[k - 1].isspace():
                e = k
                break
        else:
            return e
    return e


@dataclass
class Unit:
    """A quotable unit of one document: offsets index the document's text."""

    document_id: str
    start: int
    end: int
    text: str
    trimmed: bool = False
    whole_words: int = 0  # words in the whole sentence, when trimmed
    score: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    lead: str = ""  # the list's lead-in when the unit is one of its items ("… shall not include information:")

    @property
    def judged(self) -> str:
        """What the judge reads: a list item after its lead-in, which says what the item is an
        item of ("(iii) is lawfully obtained from a third party" is an exception only after
        "Confidential Information shall not include information that:"). The quote stays the item."""
        return f"{self.lead} {self.text}" if self.lead else self.text


# A form's row number before the clause number of its next column: "2 4.1 You elect to pay …"
_ROW_NUMBER = re.compile(r"\d{1,3}\s+(?=\d{1,2}(?:\.\d{1,2})+\.?\s+[A-Z\u201c\"(])")


def _clean(text: str, s: int, e: int) -> tuple[int, int]:
    """Whitespace, bullet glyphs and a form's row number off the start (enumerators like "(a)"
    and clause numbers stay); footnote calls and dangling punctuation or and/or off the end."""
    while s < e and text[s].isspace():
        s += 1
    m = _BULLET_GLYPH.match(text, s, e) or _ROW_NUMBER.match(text, s, e)
    if m:
        s = m.end()
    m = FOOTNOTE_MARK.search(text, s, e)
    if m:
        e = m.start()
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def _wc(text: str, s: int, e: int) -> int:
    return len(text[s:e].split())


_LOWER_WORD = re.compile(r"\b[a-z][a-z'-]+\b")
_WORD = re.compile(r"\w")


_TERMINAL = re.compile(r"[.;:!?][\"')\]\u201d\u2019]*$")
# no sentence, clause or list item ends on these: a unit that does was cut at a line or page end
_CUT_WORDS = frozenset(["the", "a", "an", "of", "to", "with", "for", "by", "from", "that", "which", "whose", "its",
                        "their", "our"])
_FINITE = re.compile(r"\b(must|shall|should|may|will|can|cannot|is|are|was|were|has|have|does|do)\b", re.I)
# A word that may be a verb's finite form ("retains", "agreed"); a short unit with none and no
# auxiliary is a label, not a statement. Plural nouns pass too: the test only has to keep sentences.
_VERB_FORM = re.compile(r"(?:[^s]s|ed)\W*$", re.I)
LABEL_MAX_WORDS = 6


# A template's blank: "[to be completed]", "[insert date]", "[●]", "[____]". What is left around it
# must state something on its own ("8.6 Governing Law / Jurisdiction: [to be completed]" answered
# "What law governs this agreement?" in CERES's form of subcontract). A template's variable
# ("[CERES/IGER] has the right to assign …") names a party and is kept.
_BLANK = re.compile(r"\[\s*(?:[^\w\]]*|(?:to\s+be|insert|enter|specify|fill|tbd|tbc|blank|complete)\b[^\]]*)\]", re.I)


def _states_something(unit: str, bulleted: bool = False) -> bool:
    """Prose, not a table cell, a heading or a line cut off: a short unit needs two lower-case
    words ("ERIKSSON, ANNA MARIA G" from a form's example table states nothing); an all-caps
    unit needs 8 words and a full stop, or 15 words (a warranty disclaimer states something, "TREATMENT FOR ADULTS,
    ADOLESCENTS AND CHILDREN (≥3 YEARS)" is a heading); and a capitalised unit of under 15
    words that does not end a sentence and has no modal or auxiliary verb is a heading or a
    broken line ("However, effective linkage to hepatitis care"), unless an enumerator opens it
    as a list item ("(ii) is known to the Recipient; or"); "Each contractor shall retain the
    records required by Section 3.2" still states something. A unit of at most 6 words with no
    auxiliary and no word that may be a finite verb is a run-in label even with its full stop
    ("Penalty for late payment of tax."); "Licensor retains all rights." states something. A
    template's blank states nothing: the words around it are judged alone."""
    if _BLANK.search(unit):
        unit = _BLANK.sub(" ", unit)
        if unit.rstrip().endswith(":") or not _FINITE.search(unit):
            return False  # "Governing Law / Jurisdiction: [to be completed]", "Date: [____]"
    words = unit.split()
    if words and words[-1].lower() in _CUT_WORDS:  # "… with other services to increase the": a line cut off
        return False
    lower = len(_LOWER_WORD.findall(unit))
    if lower == 0:
        return len(words) >= 15 or (len(words) >= 8 and bool(_TERMINAL.search(unit.rstrip())))
    if (len(words) < 15 and not _TERMINAL.search(unit.rstrip()) and unit[:1].isupper() and not _ENUM.match(unit)
            and not _FINITE.search(unit)):
        return False
    if (len(words) <= LABEL_MAX_WORDS and not _FINITE.search(unit) and not any(_VERB_FORM.search(w) for w in words)
            and not bulleted):  # "• An electronic facial image." is a list's item
        return False  # a run-in label ending in a full stop: "Penalty for late payment of tax."
    return len(words) >= 8 or lower >= 2


def _opens_clause(head: str) -> bool:
    """Whether a part of a sentence quoted from a clause boundary reads as a clause of its own: it
    opens with a capital, an enumerator or a quotation (what `cut_in_document` accepts)."""
    return head[:1].isupper() or bool(_ENUM.match(head)) or head[:1] in "\"\u201c("


# A part that opens with one of these is a condition or a concession: it needs its main clause.
_SUBORDINATE = re.compile(r"^(?:if|unless|when|whenever|where|wherever|in the event|to the extent|provided|"
                          r"although|though|while|whereas|until|once|because|since|in case|except|save as|"
                          r"before|after|upon|prior to|following)\b", re.I)  # "Before further flight and after …, do"
# A part that opens with a proviso or a ground states something only with a main verb in it:
# "Subject to the terms …, PivX hereby grants …" and "Subject to section 12.2 Galaxy reserves the
# right …" do; "Subject to the exceptions …, each covered entity that processes …" names who, not
# what they must do, and "In view of those and other considerations, as well as the long-term nature
# of this Agreement" says nothing.
_PROVISO = re.compile(r"^(?:subject to|notwithstanding|without limiting|without prejudice to|in addition to|"
                      r"in (?:view|light|consideration|respect) of|by reason of|on account of|because of|due to|"
                      r"as a result of|for (?:the )?purposes? of|pursuant to|in accordance with|with respect to)\b", re.I)
_MAIN_VERB = re.compile(r"\b(?:must|shall|may|will|should|can|cannot|would|could|hereby|is|are|has|have|grants?|"
                        r"appoints?|agrees?|acknowledges?|represents?|warrants?|covenants?|undertakes?|reserves?|"
                        r"accepts?|retains?|assumes?)\b", re.I)
_MODAL = re.compile(r"\b(?:must|shall|may|will|should|can|cannot|would|could)\b", re.I)
# "you and your Managers", "us and our Affiliates": one party with its own, not two clauses
_PRONOUN_AND_THEIRS = re.compile(r"\b(?:you|us|them|him|her|it|me)\s+(?:and/or|and|or)\s+(?:your|our|their|his|her|its|my)\b",
                                 re.I)
# "… agrees that during the term …, except as …": a that-clause opened by an adverbial phrase;
# its verb comes after the phrase, so a part ending before any verb states nothing.
_THAT_ADVERBIAL = re.compile(r"\bthat\s*,?\s*(?:during|in|upon|on|if|unless|except|notwithstanding|for|after|before|"
                             r"within|subject|to the extent|when|where|while|until|following|prior to|at|by)\b", re.I)
_VERB_AFTER = re.compile(r"\b(?:must|shall|may|will|should|can|cannot|would|could|is|are|was|were|has|have|had|does|do|"
                         r"did)\b", re.I)
_NOT_MAIN = re.compile(r"^(?:then\b\W*$|and|or|but|including|which|that|who|whom|whose|such|as|if|unless|when|where|"
                       r"provided|except|other than)\b", re.I)


def _part_reads_whole(text: str, s: int, e: int, cut: int, cuts: Sequence[int], e0: int) -> bool:
    """Whether text[s:e], a run of clauses cut at boundary `cut` (one of `cuts`) before its
    sentence's end e0, can stand as a quoted part: it does not end on a word that promises more
    ("… without giving effect to", "…, then": what it promised is the part left out), nor between
    the items of a list (short pieces around the cut: "… you will offer" before ", sell, and
    provide"; "… of New York" before ", United States, without reference to …" is no list, nor
    "… in force" before "and effect."), and
    a that-clause opened by an adverbial phrase keeps its verb ("… agrees that during the term
    …, except as otherwise approved by Franchisor" is not whole), and
    a part that opens with a condition or an exception ("If the subscriber serves a counter
    notification …, then", "Except as otherwise provided in this Agreement …") holds a main clause
    after a comma, with its modal ("…, Licensor may terminate"), not only the condition, and
    it does not end between a pronoun and the party's own people or things joined to it ("… in
    consideration of you" | "and your Managers' and Producers' use of …")."""
    words = text[s:e].split()
    if not words or words[-1].strip("\"'()[]\u201c\u201d").lower() in OPEN_WORDS:
        return False
    if names_joined(text, e):
        return False
    inner = [b for b in cuts if s < b < e]
    prev = max((b for b in cuts if b < cut), default=s)
    nxt = next((b for b in cuts if b > cut), e0)
    after = next((b for b in cuts if b > nxt), e0)

    def short(a: int, b: int) -> bool:
        return 1 <= len(text[a:b].split()) <= 3

    def after_comma(b: int) -> bool:
        return text[:b].rstrip()[-1:] in (",", ";")

    def last_item(a: int, b: int) -> bool:
        return bool(re.match(r"\s*(?:and|or)\s", text[a:b], re.I))

    if after_comma(cut):  # what follows is read in comma pieces ("at any time, which offers and" is none)
        commas = [b for b in cuts if after_comma(b)]
        prev_c = max((b for b in commas if b < cut), default=s)
        nxt = next((b for b in commas if b > cut), e0)
        after = next((b for b in commas if b > nxt), e0)
        if not any(c.isdigit() for c in text[prev_c:nxt]) and (
                (prev_c > s and short(prev_c, cut) and last_item(cut, nxt)) or (short(cut, nxt) and last_item(nxt, after))):
            return False  # "… have terms, conditions" before "and obligations that …", or "… have terms" before it
    if short(cut, nxt) and (short(nxt, after) or short(prev, cut)):  # short items on both sides: a list
        return False
    if _PRONOUN_AND_THEIRS.search(text[max(s, e - 12):cut + 40]):
        return False  # "… in consideration of you" before "and your Managers' and Producers' use of …"
    body = _ENUM.sub("", text[s:e], count=1)
    that = list(_THAT_ADVERBIAL.finditer(body))
    if that and not _VERB_AFTER.search(body, that[-1].end()):
        return False  # "Member covenants and agrees that during the term …, except as otherwise approved …"
    if _PROVISO.match(body):
        return bool(_MAIN_VERB.search(body, _PROVISO.match(body).end()))
    if _SUBORDINATE.match(body):
        return any(text[:b].rstrip()[-1:] in (",", ";", ":") and _MODAL.search(text[b:e])
                   and not _NOT_MAIN.match(text[b:e].lstrip()) for b in inner)
    return True


WHOLE_MAX_FACTOR = 3  # a sentence no clause boundary can trim is quoted whole up to this many times max_words
WHOLE_WORDS = 120  # a sentence of up to this many words is quoted whole (issue 39: units are structure nodes)


def fit_unit(text: str, s0: int, e0: int, terms: set[str], min_words: int, max_words: int
             ) -> tuple[int, int, bool] | None:
    """The span of one sentence text[s0:e0] to quote: all of it when it has at most WHOLE_WORDS
    (or max_words) words — a sentence is a node of the document's structure, and a cut inside it
    ("… shall be interpreted" without "and construed under the laws of …") loses what it says;
    else the run of whole clauses (10..max_words words) sharing most words with `terms`,
    preferring the sentence's start (its subject). A run starts at the sentence's start or at a
    clause that opens with a capital or an enumerator: one opening "and will renew …" or "empowered
    to …" has lost its subject, and the gate would reject it as a fragment anyway. Where no run of
    whole clauses reads whole, the sentence is quoted whole (up to WHOLE_MAX_FACTOR × max_words),
    else its first max_words words. None for a unit too short to state anything."""
    was = s0
    s0, e0 = _clean(text, s0, e0)
    n = _wc(text, s0, e0)
    if n <= max(max_words, WHOLE_WORDS):
        bulleted = text[was:s0].strip()[:1] in _BULLETS
        return (s0, e0, False) if n >= 4 and _states_something(text[s0:e0], bulleted) else None
    # a clause boundary inside the running header a page break put in the sentence is none: "SP
    # 800-171, REVISION 2 PROTECTING …" opened a quote after the header's comma
    furniture = furniture_between(text, s0, e0)
    bounds = sorted({s0, e0, *(b for b in clause_bounds(text, s0, e0) if not any(a <= b <= z for a, z in furniture))})
    best: tuple[tuple, tuple[int, int]] | None = None
    for i in range(len(bounds) - 1):
        if bounds[i] != s0 and not _opens_clause(text[bounds[i]:bounds[i] + 40]):
            continue  # "empowered to mortgage …", "and will automatically renew …": not quotable alone
        for j in range(i + 1, len(bounds)):
            s, e = bounds[i], bounds[j]
            e = trail_cut(text, s, e)
            wc = _wc(text, s, e)
            if wc > max_words:
                break
            if wc < min_words or (bounds[j] != e0 and not _part_reads_whole(text, s, e, bounds[j], bounds, e0)):
                continue
            if s != s0 and not (_MAIN_VERB.search(text, s, e) or _VERB_AFTER.search(text, s, e)):
                continue  # a phrase from inside the sentence ("Producers' use of our business processes, …")
            key = (len(set(content_terms(text[s:e])) & terms), s == s0, wc)
            if best is None or key > best[0]:
                best = (key, (s, e))
    if best is None and n <= WHOLE_MAX_FACTOR * max_words:
        # no clause boundary fits: the sentence whole, not cut mid-way ("… governed by the laws of a
        # different" without "state."; "… shall cease to be bound" without what from)
        return (s0, e0, False) if _states_something(text[s0:e0]) else None
    if best is None:  # a very long sentence: its first max_words words, not ending on "that"
        words = list(re.finditer(r"\S+", text[s0:e0]))[:max_words]
        while len(words) > min_words and words[-1].group(0).strip("\"'()[]\u201c\u201d,;:").lower() in OPEN_WORDS:
            words.pop()
        return s0, trail_cut(text, s0, s0 + words[-1].end()), True
    s, e = best[1]
    return s, e, True


def searched_ranges(query: str, doc: Any, retriever: Any, k: int = SEARCH_K) -> list[tuple[int, int]]:
    """(start, end) of the segment units the retriever finds for `query` in one document."""
    search = getattr(retriever, "search_segments", None)  # a chunk-only retriever has none
    return [(seg.start, seg.end) for seg, _score in search(query, doc, k)] if search else []


TOPIC_K = 6  # units per contract the clause-topic model adds for a question about a kind of clause
TOPIC_ASKED = 0.5  # how surely the question must ask about one kind
_KIND_ROWS: OrderedDict[tuple[str, int], np.ndarray] = OrderedDict()  # per document: P(unit is each kind)
_KIND_ROWS_MAX = 32
_KIND_LOCK = threading.Lock()


def topic_ranges(query: str, doc: Any, retriever: Any, k: int = TOPIC_K) -> list[tuple[int, int]]:
    """In a contract, (start, end) of the k segment units the clause-topic model (fitted on
    cuad-train, workbench.judgment.topics) finds likeliest to be the kind of clause the question
    asks about. Search ranks by words and cosine: "What is the term of the franchise agreement?"
    shares its words with a hundred sentences of an 80-page franchise agreement, and none with
    the one that says it "will expire ten (10) years from the Effective Date"."""
    store = getattr(retriever, "store", None)
    if store is None or getattr(doc.document, "source_type", None) != "contract":
        return []
    judge = SCORES.judge or get_judge()
    if not hasattr(judge, "_topic_model"):
        return []
    topics = judge._topic_model()
    ask = topics.asked(judge._vecs([embed_form(query)])[0], query)
    if not len(ask) or float(ask.max()) < TOPIC_ASKED:
        return []
    units = store.get(doc).segment_units(doc)
    if units.vectors is None or not units.texts:
        return []
    key = (doc.document.id, len(units.texts))
    with _KIND_LOCK:
        rows = _KIND_ROWS.get(key)
    if rows is None:
        rows = topics.kinds(units.vectors, units.texts)
        with _KIND_LOCK:
            _KIND_ROWS[key] = rows
            while len(_KIND_ROWS) > _KIND_ROWS_MAX:
                _KIND_ROWS.popitem(last=False)
    score = rows @ ask
    out: list[tuple[int, int]] = []
    for i in np.argsort(-score, kind="stable")[:4 * k]:
        p = units.pieces[i]
        if score[i] < TOPIC_ASKED or len(out) >= k:
            break
        if p.kind != "heading":
            out.append((p.start, p.end))
    return out


def candidate_units(query: str, document_id: str, sentences: Sequence[tuple[int, int, str]], *,
                    min_words: int = 10, max_words: int = 40) -> list[Unit]:
    """Whole units for `query` from (start, end, text) sentences of one document (in the order
    given): each sentence whole, trimmed at clause boundaries only when over max_words."""
    terms = set(content_terms(query))
    out: list[Unit] = []
    seen: set[tuple[int, int]] = set()
    for s0, _e0, t in sentences:
        fit = fit_unit(t, 0, len(t), terms, min_words, max_words)
        if fit is None:
            continue
        s, e, trimmed = fit
        if (s0 + s, s0 + e) in seen:
            continue
        seen.add((s0 + s, s0 + e))
        unit = Unit(document_id, s0 + s, s0 + e, t[s:e], trimmed, _wc(t, 0, len(t)) if trimmed else 0)
        unit.extra["at_clause"] = not trimmed or cut_at_clause(t, e)
        unit.extra["cut"] = (trimmed and bool(_WORD.search(t, 0, s)), trimmed and bool(_WORD.search(t, e)))
        out.append(unit)
    return out


_ITEM_MARK = re.compile(r"^\s*(?:\(?(?:\d+(?:\.\d+)*|[a-zA-Z]|[ivxlcIVXLC]{1,6})[.)]|\d+(?:\.\d+)+\.?|[•·▪◦●■–+-])\s+")
_FORWARD = re.compile(r"\b(?:the following|as follows)\b", re.I)  # a full-stop lead-in points at its list
_LEAD_END = re.compile(r"(?::|:?\s*[-\u2013\u2014])\s*$")
LEAD_MAX_WORDS = 60  # a longer lead-in is cut to its last words, those nearest the list
LEAD_LOOKBACK = 15  # segments walked back over a list's items to its lead-in


def _mark(text: str) -> str | None:
    m = _ITEM_MARK.match(text)
    return m.group(0).strip().rstrip(".") if m else None


_ROMAN = frozenset(["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii"])


def _shape(mark: str) -> str:
    """The kind of enumerator: "1.1" for "4.2", "(a)" for "(b)", "(r)" for "(iii)", "A." for "B."."""
    def letters(m: re.Match) -> str:
        w = m.group(0)
        kind = "r" if w.lower() in _ROMAN else "a"
        return kind.upper() if w.isupper() else kind

    return re.sub(r"[A-Za-z]+", letters, re.sub(r"\d+", "1", mark))


def _parent(mark: str) -> str | None:
    """"4.1" of "4.1.2"; None for a mark that is not a dotted number."""
    return mark.rsplit(".", 1)[0] if re.fullmatch(r"\d+(?:\.\d+)+", mark) else None


_BULLETS = frozenset("•·▪◦●■□☐❖➢►▶✓✔*!-–—o+")


def _bulleted(context: Any, document_id: str, start: int) -> bool:
    """Whether the sentence at `start` opens a bulleted item: a mark with no letter or digit on
    the start of its line ("• ", or a symbol font's bullet read as "!" on a line of its own).
    Segments leave bullets out of their text, so the document's text is read."""
    doc = getattr(context, "doc", None)
    if doc is None:
        return False
    try:
        text = doc(document_id).text
    except KeyError:
        return False
    i = start - 1
    while i >= 0 and text[i] in " \t\n":
        i -= 1
    return i >= 0 and text[i] in _BULLETS and (i == 0 or text[i - 1] in " \t\n") and (i < 2 or "\n" in text[i - 2:i])


def _item_mark(context: Any, document_id: str, start: int, text: str) -> str | None:
    """The enumerator of the list item `text` beginning at `start`, "•" for a bulleted one, or None."""
    return _mark(text) or ("•" if _bulleted(context, document_id, start) else None)


def lead_in(context: Any, document_id: str, start: int) -> str:
    """The lead-in of the list whose item begins at `start` ("Each party may disclose the
    Confidential Information of the other party:"), or "". Walked back over the item's siblings
    (the same kind of enumerator, under the same parent number) and their continuations to the
    sentence ending in a colon or dash, or in a full stop after "the following" / "as follows".
    Anything else ends the walk with no lead-in: a plain sentence ending in a full stop, another
    kind of enumerator (a sibling's sub-list, whose lead-in is not this item's), a sibling
    itself ending in a colon ("4.1 …:" before "4.2"), or a numbered lead-in the item's number
    does not extend. A bulleted sentence ending in a colon right before bulleted items leads them:
    WHO's "• The following evidence-based interventions should be considered …:" sets its
    sub-items with the same "•". The list's first item follows its lead-in directly: "Parties:" above the
    parties' names does not lead the numbered clauses after them."""
    item = context.sentences(document_id, start, start + 1)
    mark = _item_mark(context, document_id, item[0][0], item[0][2]) if item else None
    if mark is None:
        return ""
    shape, parent = _shape(mark), _parent(mark)
    sents = [t for t in context.sentences(document_id, max(0, start - 4000), start) if t[1] <= start]
    after_item = True  # the text after this one (in reading order) is an item of the list
    below = mark  # the nearest sibling below, walking back
    said_on = 0  # plain sentences walked over since that sibling: its predecessor's continuation
    for s0, _e0, t in reversed(sents[-LEAD_LOOKBACK:]):
        body = t.strip()
        m = _item_mark(context, document_id, s0, body)
        if _LEAD_END.search(body):
            nested = after_item and m is not None and _is_bullet(m) and _is_bullet(mark)  # one glyph, two levels
            if not nested and (not after_item or (m is not None and (
                    _shape(m) == shape or (parent is not None and re.fullmatch(r"[\d.]+", m)
                                           and not mark.startswith(m + "."))))):
                return ""
            return " ".join(body.split()[-LEAD_MAX_WORDS:])
        if m is None:
            if not _TERMINAL.search(body):
                return ""  # a title between items ("New 2022 recommendations") ends their list
            if body.endswith(".") and _FORWARD.search(" ".join(body.split()[-12:])):
                return " ".join(body.split()[-LEAD_MAX_WORDS:]) if after_item else ""
            if body.endswith("."):
                if said_on == ITEM_GOES_ON or (_before(below) is None and not _is_bullet(below)):
                    return ""
                said_on += 1  # "The access zone provides …" after "3. The access zone has …"
                after_item = False
                continue
        elif _shape(m) != shape or _parent(m) != parent or (said_on and m != (_before(below) or below)):
            return ""
        else:
            below, said_on = m, 0
        after_item = m is not None
    return ""


ITEM_GOES_ON = 2  # plain sentences an item may say after its own before its next sibling


def _is_bullet(mark: str) -> bool:
    return not any(c.isalnum() for c in mark)


def _before(mark: str) -> str | None:
    """The enumerator just before this one: "1" of "2", "(a)" of "(b)", "4.1" of "4.2"; None for
    a bullet (any bullet is the one before), a first item or a Roman numeral (whose continuation
    sentences are not walked over)."""
    m = re.fullmatch(r"(\(?)(?:(\d+(?:\.\d+)*\.)?(\d+)|([a-zA-Z]))([.)]?)", mark)
    if m is None:
        return None
    if m.group(3) is not None:
        n = int(m.group(3))
        return f"{m.group(1)}{m.group(2) or ''}{n - 1}{m.group(5)}" if n > 1 else None
    c = m.group(4)
    if c.lower() in "ivx" or c in "aA":
        return None
    return f"{m.group(1)}{chr(ord(c) - 1)}{m.group(5)}"


LIST_ITEMS_MAX = 12  # items of a lead-in's list read with it


def leads_a_list(text: str) -> bool:
    """Whether a sentence announces a list: it ends in a colon or dash, or in a full stop after
    "the following" / "as follows"."""
    body = text.strip()
    return bool(_LEAD_END.search(body)) or (body.endswith(".") and bool(_FORWARD.search(" ".join(body.split()[-12:]))))


def list_items(context: Any, document_id: str, end: int) -> list[tuple[int, int, str]]:
    """The items of the list whose lead-in ends at `end`, in order (up to LIST_ITEMS_MAX): a
    lead-in found relevant brings its items, which say what it only announces ("… must meet the
    following conditions:"), though they need not share the question's words."""
    out: list[tuple[int, int, str]] = []
    said_on = 0
    lead = ""  # the first item's lead-in: this list's, which every item shares
    for t in context.sentences(document_id, end, end + 6000)[:(LIST_ITEMS_MAX + 1) * (ITEM_GOES_ON + 1)]:
        if t[0] < end:
            continue
        its = lead_in(context, document_id, t[0])
        if not its or (lead and its != lead):
            if (not out or said_on == ITEM_GOES_ON or its or leads_a_list(t[2]) or not _TERMINAL.search(t[2].rstrip())
                    or _item_mark(context, document_id, t[0], t[2].strip())):
                break  # the list has ended: another list's item or lead-in, a title, or a paragraph
            said_on += 1  # an item's own further sentence: its next sibling may follow
            continue
        lead = its
        out.append(t)
        said_on = 0
        if len(out) == LIST_ITEMS_MAX:
            break
    return out


def unit_info(context: Any, document_id: str, start: int, end: int) -> UnitInfo:
    """The unit facts of the located span [start, end) of a document, read from the document
    itself as Extract reads them (its sentences, list lead-ins): whoever proposed the quote (a
    rule, an LLM, a reviewer) and whichever process judges it, the verdict reads the same facts."""
    sents = [t for t in context.sentences(document_id, start, end) if t[0] < end and t[1] > start]
    lead = lead_in(context, document_id, start)
    if len(sents) != 1:
        return UnitInfo(lead_in=lead, joined=len(sents) > 1)
    s0, _e0, t = sents[0]
    cs, ce = _clean(t, 0, len(t))
    a, b = max(0, start - s0), min(len(t), end - s0)
    whole = _wc(t, cs, ce)
    if _wc(t, a, b) >= whole:
        return UnitInfo(lead_in=lead)
    return UnitInfo(lead_in=lead, trimmed_from=whole, at_clause=cut_at_clause(t, b),
                    cut_before=bool(_WORD.search(t, 0, a)), cut_after=bool(_WORD.search(t, b)))


def with_units(context: Any, evidence: Sequence[Any]) -> list[Any]:
    """The evidence items, each located one that carries no unit facts given them from its
    document (an LLM's quote, a reviewer's span); items with facts are returned as they are."""
    out = []
    for e in evidence:
        if e.unit is None and e.span is not None:
            with contextlib.suppress(KeyError):  # the document is not in this context
                e = e.model_copy(update={"unit": unit_info(context, e.document_id, e.span.start, e.span.end)})
        out.append(e)
    return out


# per document: a segment's embed_form -> its row (bounded and locked like _KIND_ROWS)
_SEG_ROWS: OrderedDict[tuple[str, int], dict[str, int]] = OrderedDict()


def _prime_vectors(retriever: Any, doc: Any, units: Sequence[Unit]) -> None:
    """Hand the judge the index's vectors of the units that are segments of the index, embedded
    by the same model from text that embeds the same (NFKC leaves it as it is; the tokenizer
    reads whitespace alike), so they are not embedded again. Only with the default model."""
    judge = SCORES.judge or get_judge()
    store, emb = getattr(retriever, "store", None), getattr(retriever, "embedder", None)
    if not hasattr(judge, "prime") or store is None or emb is None or not hasattr(retriever, "search_segments") \
            or (getattr(emb, "tokenizer_file", 1), getattr(emb, "model_file", 1)) != (None, None):
        return  # segment units are built by segment search (searched_ranges): never here
    seg = store.get(doc).segment_units(doc)
    if seg.vectors is None or not seg.texts:
        return
    key = (doc.document.id, len(seg.texts))
    with _KIND_LOCK:
        rows = _SEG_ROWS.get(key)
    if rows is None:
        rows = {embed_form(t): i for i, t in enumerate(seg.texts) if unicodedata.normalize("NFKC", t) == t}
        with _KIND_LOCK:
            _SEG_ROWS[key] = rows
            while len(_SEG_ROWS) > _KIND_ROWS_MAX:
                _SEG_ROWS.popitem(last=False)
    hits = [(t, rows[t]) for t in dict.fromkeys(embed_form(u.judged) for u in units) if t in rows]
    if hits:
        judge.prime([t for t, _ in hits], seg.vectors[[r for _, r in hits]])


_NAME_WORD = re.compile(r"\b(?:the\s+)?([A-Za-z][\w-]*)(['\u2019]s)?\b")


def in_parties_words(query: str, weights: TermWeights | None) -> list[str]:
    """The question again in the words of a contract that calls its parties "we" and "you"
    (TermWeights.aliases): "Can the franchisor terminate the agreement?" as "Can we terminate the
    agreement?". Search leaves pronouns out of its words and reads them in its vectors only, so
    the clauses written "we may terminate" are found only this way. [] when nothing is renamed."""
    names = {st: person for person, stems in (weights.aliases if weights is not None else {}).items() for st in stems}
    if not names:
        return []

    def say(m: re.Match) -> str:
        person = names.get(stem(m.group(1).lower()))
        if person is None:
            return m.group(0)
        return {"we": "our", "you": "your"}[person] if m.group(2) else person

    renamed = _NAME_WORD.sub(say, query)
    return [renamed] if renamed != query else []


def units_for(query: str, context: Any, ranges: dict[str, list[tuple[int, int]]], *, min_words: int = 10,
              max_words: int = 40, search_k: int = SEARCH_K, join: bool = True) -> list[Unit]:
    """Candidate units for `query` over an ExtractContext: the sentences overlapping `ranges`
    (document id -> [(start, end)], e.g. retrieved chunks) and those the context's retriever
    finds by segment search in each document. `join`: a sentence that reads on from the one
    before it is a candidate with it (for quotes; claim checking judges sentences as they stand,
    since a longer unit covers more of any claim's words)."""
    out: list[Unit] = []
    retriever = getattr(context, "retriever", None)
    docs = {d.document.id: d for d in context.documents()} if hasattr(context, "documents") else {}
    for doc_id in dict.fromkeys([*ranges, *docs]):
        doc = docs.get(doc_id)
        spans = list(ranges.get(doc_id, []))
        if doc is not None:
            context.sentences(doc_id, 0, 0)  # the document's term weights (and party aliases) are known from here
            for q in [query, *in_parties_words(query, weights_for(doc_id))]:
                spans += searched_ranges(q, doc, retriever, search_k)
            spans += topic_ranges(query, doc, retriever)
            parts = question_parts(query)  # a question asking several things: each part is searched too
            for part in parts if len(parts) > 1 else ():
                spans += searched_ranges(part, doc, retriever, search_k) + topic_ranges(part, doc, retriever)
        sents: dict[tuple[int, int], tuple[int, int, str]] = {}
        heading_at = getattr(context, "heading_at", None)
        for a, b in spans:
            for t in context.sentences(doc_id, a, b):
                heading = heading_at(doc_id, t[0]) if heading_at is not None else None
                if (t[0], t[1]) not in sents and not reference_entry(t[2], heading) \
                        and not navigation_line(t[2], heading):
                    sents[(t[0], t[1])] = t
        for t in [t for t in sents.values() if leads_a_list(t[2])]:
            if (t[0], t[1]) not in sents:  # an item of a list read whole above, itself leading a list
                continue
            items = list_items(context, doc_id, t[1])
            if not join and doc is not None and items and _wc(doc.text, t[0], items[-1][1]) <= max_words:
                # a claim is judged against the lead-in with its whole list, the sentence it is set in
                # ("Reseller may terminate … events: (i) …; (ii) if Company ceases …; or (iii) …")
                for item in items:
                    sents.pop((item[0], item[1]), None)
                del sents[(t[0], t[1])]
                sents[(t[0], items[-1][1])] = (t[0], items[-1][1], doc.text[t[0]:items[-1][1]])
                continue
            for item in items:
                if not navigation_line(item[2], heading_at(doc_id, item[0]) if heading_at is not None else None):
                    sents.setdefault((item[0], item[1]), item)
        # a sentence that reads on from the one before it ("This is called a type-stable loop
        # iteration.") is a candidate with it, not alone; the one before stays a candidate too. A
        # lead-in ("This paper makes the following contributions:") is read with its items instead
        first_end: dict[int, int] = {}  # a pair's start -> where its second sentence starts
        for t in [t for t in list(sents.values()) if join and doc is not None and points_back(t[2])
                  and not leads_a_list(t[2])]:
            pair = with_sentence_before(context, doc, t, max_words)
            if pair is not None and (pair[0], pair[1]) not in sents:
                del sents[(t[0], t[1])]
                sents[(pair[0], pair[1])] = pair
                first_end[pair[0]] = t[0]
        units = candidate_units(query, doc_id, sorted(sents.values()), min_words=min_words, max_words=max_words)
        for u in units:
            u.lead = lead_in(context, doc_id, u.start)
            u.extra["joined"] = u.start in first_end and u.end > first_end[u.start]
        if doc is not None:
            _prime_vectors(retriever, doc, units)
        out += units
    return out


# Openings that carry a sentence on from the one before it: "Consequently, any and all patent
# applications … shall be assigned jointly" says what follows from "4.6 CERES and IGER shall have an
# undivided interest in JOINT INTELLECTUAL PROPERTY."
_CARRIES_ON = re.compile(r"^\W*(?:consequently|accordingly|therefore|thus|hence|as a result|as such|in (?:that|such) "
                         r"(?:event|case)|in either case|in any such case|thereafter|thereupon)\b", re.I)


def points_back(text: str) -> bool:
    """Whether a sentence (not a list item: its lead-in says what it belongs to) reads on from the
    sentence before it: a reference it does not contain ("Such notice …", "This right …") or an
    opening that carries an argument on ("Consequently, …")."""
    if _ITEM_MARK.match(text):
        return False
    body = _ENUM.sub("", text, count=1)
    return bool(_CARRIES_ON.match(body)) or dangling_reference(text) is not None


def with_sentence_before(context: Any, doc: Any, sentence: tuple[int, int, str], max_words: int
                         ) -> tuple[int, int, str] | None:
    """The sentence joined with those before it, as one unit, back to the first that reads without
    them ("Ono shall keep … records …" before "Such records will be open for inspection …" and
    "Such inspections may be made …"), when all are one run of text under the same heading and
    fit max(max_words, WHOLE_WORDS) — a clause is quoted whole as a sentence is: the reader gets
    what "such" or "Consequently" points at inside the quote. None when there is no such sentence
    (a heading, a lead-in, a page break between) or the run is too long to quote whole."""
    document_id = doc.document.id
    before = getattr(context, "sentence_before", None)
    heading_at = getattr(context, "heading_at", None)
    first = sentence
    while True:
        prev = before(document_id, first[0]) if before is not None else None
        if prev is None or prev[2].rstrip().endswith(":"):
            return None
        if heading_at is not None and heading_at(document_id, prev[0]) != heading_at(document_id, sentence[0]):
            return None
        text = doc.text[prev[0]:sentence[1]]
        if len(text.split()) > max(max_words, WHOLE_WORDS):  # cut, the run would lose what it was joined for
            return None
        if not points_back(prev[2]):
            return prev[0], sentence[1], text
        first = prev


def apart(units: Sequence[Unit], order: Sequence[int]) -> list[int]:
    """`order` without the units that overlap one before them in it: a sentence and the pair it
    forms with the sentence before it are one piece of evidence, not two."""
    kept: list[int] = []
    taken: dict[str, list[tuple[int, int]]] = {}
    for i in order:
        u = units[i]
        spans = taken.setdefault(u.document_id, [])
        if any(u.start < e and s < u.end for s, e in spans):
            continue
        spans.append((u.start, u.end))
        kept.append(i)
    return kept


_REFERENCES = re.compile(r"^\W*(?:appendix\s+\w+\W+|annex\s+\w+\W+|\d+(?:\.\d+)*\.?\s+)?"
                         r"(?:references|bibliography|works cited|literature cited|cited literature)\W*$", re.I)
# A numbered bibliography entry: "210. Neri S, Bertino G, Petralia A, …", "[12] Smith J, Jones AB."
_BIB_ENTRY = re.compile(r"^\s*[\[(]?\d{1,4}[.)\]]?\s+(?:[A-Z][\w'\u2019-]+\s+[A-Z]{1,3}[,.;]\s+){2}")


# A book's back matter by its own unnumbered title: endnotes cite sources, the index points to pages
# (Free Culture's "What is Eldred v. Ashcroft about?" was answered from "12. Brief of Hal Roach
# Studios … 537 U.S. 186 (2003)" and "249, 325n Eldred Act, 249–54"). "5. Notes" in a contract is
# a clause and is not matched.
_BACK_MATTER = re.compile(r"^\W*(?:notes|endnotes|index)\W*$", re.I)


def reference_entry(text: str, heading: str | None = None) -> bool:
    """Whether a sentence is a bibliography entry (it names a source, it states nothing the
    document asserts): under a References / Bibliography section, a book's endnotes or index, or
    numbered "Author AB, Author C, …"."""
    h = " ".join((heading or "").split())
    return bool(h and (_REFERENCES.match(h) or _BACK_MATTER.match(h))) or bool(_BIB_ENTRY.match(text))


_NUMBERING = re.compile(r"^\W*(?:(?:section|article|chapter|part|appendix|annex)\s+)?[\divxlcIVXLC]+(?:\.[\d]+)*\.?\s+",
                        re.I)
_STATEMENT_END = re.compile(r"[.;:!?][\"')\u201d\u2019]*$")


def navigation_line(text: str, heading: str | None = None) -> bool:
    """Whether a segment only finds the way, stating nothing: a contents line (dot leaders to a
    page number) or the section heading itself ("4.1.4.3 Optional Items on the Front of the PIV
    Card" under that heading). A numbered line ending like a sentence ("3.1.12 Monitor and
    control remote access sessions.") states a requirement and is kept."""
    t = " ".join(text.split())
    if DOT_LEADERS.search(t):
        return True
    if not heading or _STATEMENT_END.search(t):
        return False
    from workbench.pdf.normalize import key

    bare = key(_NUMBERING.sub("", t))
    return bool(bare) and bare == key(_NUMBERING.sub("", " ".join(heading.split())))


def cut_in_document(text: str, unit_start: int, start: int) -> str | None:
    """Why a quote beginning at `start` inside the document sentence (or list item) that begins
    at `unit_start` is not a whole unit, or None. Whole: it begins the sentence (bullets, change
    bars such as FIPS 201-2's "+", other marks without a letter or digit, whitespace and an
    enumerator may precede it). Quoted in part: it begins at a clause boundary
    (after , ; : or before and/or) with a capital or an enumerator, as a long clause trimmed to
    its part says. Anything else starts mid-sentence, whatever its first letter."""
    before = text[unit_start:start]
    if not any(ch.isalnum() for ch in before) or _ENUM.fullmatch(before + " "):
        return None
    head = text[start:start + 40]
    at_clause = start in clause_bounds(text, unit_start, start + 1)
    if at_clause and (head[:1].isupper() or _ENUM.match(head) or head[:1] in "\"\u201c("):
        return None
    last = " ".join(before.split()[-6:])
    return f"it starts mid-sentence (the sentence reads \"…{last}\" before it)"


def cut_at_clause(text: str, end: int) -> bool:
    """Whether a part of a sentence ending at `end` of `text` ends where a clause does (a comma,
    semicolon or colon, or and/or, unless … follows), not at the 40-word limit inside a clause."""
    return bool(re.match(r"[\s\W]*$|\s*(?:[,;:]|(?:and/or|and|or|unless|provided that|except that)\b)", text[end:])) \
        and not names_joined(text, end)


_NAMES_JOINED = re.compile(r"\s+(?:and/or|and|or|&)\s+[A-Z]")


def names_joined(text: str, end: int) -> bool:
    """Whether `end` falls between two names joined by "and" or "or" ("… assigned jointly to CERES"
    | "and IGER as soon as practicable"): a cut there leaves a party out, and is no clause's end."""
    before = text[:end].rstrip().rsplit(None, 1)[-1:] or [""]
    return bool(before[0][:1].isupper() and _NAMES_JOINED.match(text, len(text[:end].rstrip())))

