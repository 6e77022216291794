"""The embedded, offline backend on the shared judgment engine (workbench.backends.engine):
evidence is whole units ranked by learned relevance (an inventory without a question still
extracts requirements by rule, seed 000), verification and sentence support by the engine's
scores and gates, composition from verified quotes only.

Extract returns exact offsets into the document text, so every quote is the document's own
text; compose writes each statement from its quote and cites it inline, so nothing in the
answer goes beyond the verified evidence."""

from __future__ import annotations

import re
import time
from typing import get_args

from workbench.backends import engine
from workbench.backends.base import ExtractContext
from workbench.config import JudgmentSettings, Settings
from workbench.models import (
    Candidate,
    Chunk,
    Confidence,
    Evidence,
    RejectionReason,
    SentenceSupport,
    StageUsage,
    Verification,
)
from workbench.text import (
    cited_ids,
    clause_bounds,
    content_terms,
    strip_citations,
)
from workbench.text.lexicon import squash
from workbench.text.sentences import FOOTNOTE_MARK


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --- what makes a sentence a requirement -------------------------------------------------------
# Modal and deontic phrases (seed 000: must / shall / required / prohibited / mandated, and the
# "counties are required to" family its known-gaps section asks for). Strong ones mark a
# requirement on their own; weak ones ("is required", "requires", "mandatory") give low
# confidence, and compose prefers the clearer ones.
_STRONG = re.compile(
    r"\b(?:must(?:\s+not)?|shall(?:\s+not)?|(?:is|are|be|been|being)\s+(?:not\s+)?required\s+to|"
    r"(?:is|are|be)\s+(?:strictly\s+)?prohibited|prohibited\s+from|prohibits?|(?:is|are)\s+forbidden|"
    r"mandated|mandates|may\s+not|(?:is|are)\s+responsible\s+for|(?:is|are)\s+obligated\s+to|"
    r"(?:is|are)\s+obliged\s+to|requires?\s+(?:that|\w+(?:\s+\w+){0,3}\s+to)|(?:is|are)\s+not\s+permitted|"
    r"will\s+ensure|has\s+to|have\s+to|(?:is|are)\s+to\s+be)\b",
    re.IGNORECASE,
)
_WEAK = re.compile(r"\b(?:(?:is|are|be|been)\s+(?:\w+\s+)?required|requires|mandatory)\b", re.IGNORECASE)

# Imperative requirement statements as standards write them ("3.1.12 Monitor and control remote
# access sessions."): a leading identifier, then a base-form verb.
_IMPERATIVE_VERBS = _wordset("""
accept account acquire adhere allocate allow alert analyze analyse apply approve archive assess assign
audit authenticate authorize authorise avoid back backup block calibrate capture categorize change check
classify clean collect communicate complete comply conduct configure confirm consider contain control
coordinate correct correlate create define delete deliver deny deploy designate destroy detect determine
develop disable disconnect display disseminate distribute do document employ enable encrypt enforce
ensure escort establish evaluate examine execute follow generate grant handle identify implement include
inform inspect install integrate inventory isolate keep label limit list lock log maintain manage mark
minimize mitigate monitor notify obtain perform permit plan post prepare prevent prohibit protect provide
publish record reduce register reject remediate remove renew replace report require respond restrict
retain review revoke rotate safeguard sanitize sanitise scan screen secure segregate separate set share
sign specify store submit supervise support terminate test track train transfer transmit update upgrade
use validate verify withdraw
""")
# A capitalised verb followed by one of these is a noun subject ("Control of…", "Review is…").
_NOT_AFTER_VERB = _wordset("""
is are was were be has have had can could may might will would should shall must of 's includes include
consists consist refers refer means mean involves involve focuses focus addresses address
""")
_AFTER_BARE_IMPERATIVE = _wordset("""
the a an all each every any no only that this these those your their its not both either appropriate
""")
_LEADING_ID = re.compile(r"^\s*(?:(?:\(?[0-9]+(?:\.[0-9]+)*[.)]?|\(?[a-zA-Z]\)|\(?[ivxlc]{1,5}\)|[a-z]\.|[•▪◦+\-–*])\s+)*")


def _terms(text: str) -> set[str]:
    """Content words, stemmed, for overlap scoring."""
    return set(content_terms(text))


def _imperative_at(text: str) -> int | None:
    """Offset of the leading base-form verb when the sentence is an imperative requirement."""
    m = _LEADING_ID.match(text)
    pos = m.end() if m else 0
    words = re.findall(r"[A-Za-z']+", text[pos:pos + 60])
    if len(words) < 2 or not text[pos:pos + 1].isupper():
        return None
    first, second = words[0].lower(), words[1].lower()
    if first not in _IMPERATIVE_VERBS or second in _NOT_AFTER_VERB:
        return None
    # Without a list identifier many of these verbs are nouns ("Audit logs are reviewed…"):
    # then the verb must be followed by a determiner, as in "Ensure that all visitors sign in."
    if pos == 0 and second not in _AFTER_BARE_IMPERATIVE:
        return None
    if first == "do" and second != "not":
        return None
    return pos


def requirement_trigger(text: str) -> tuple[int, Confidence] | None:
    """(offset of what makes `text` a requirement, extraction confidence) or None."""
    m = _STRONG.search(text)
    if m:
        return m.start(), "high"
    pos = _imperative_at(text)
    if pos is not None:
        return pos, "medium"
    m = _WEAK.search(text)
    if m:
        return m.start(), "low"
    return None


# --- excerpts: 10–40 words, cut at clause boundaries, never mid-word --------------------------
_BULLET = re.compile(r"(?:[+•▪◦●■*–—-]|\(?[ivx]+\)|\(?[a-z]\))\s+")


# Superscript footnote calls right after a word's full stop, at the end of a quote. The letter
# before the stop keeps section numbers ("Section 3.2") intact.


def _trim(text: str, s: int, e: int) -> tuple[int, int]:
    """Whitespace and list bullets off the start, dangling punctuation and and/or off the end."""
    while s < e and text[s].isspace():
        s += 1
    m = _BULLET.match(text, s, e)
    if m:
        s = m.end()
    m = FOOTNOTE_MARK.search(text, s, e)  # "accounts.24 25": footnote calls are not the requirement
    if m:
        e = m.start()
    return s, engine.trail_cut(text, s, e)


def _wc(text: str, s: int, e: int) -> int:
    return len(text[s:e].split())


def excerpt(text: str, trigger: int, question_terms: set[str], min_words: int, max_words: int,
            others: tuple[int, ...] = ()) -> tuple[int, int] | None:
    """Span [s, e) of `text` (one sentence) to quote for the requirement at `trigger`: the whole
    sentence when it fits; else the best run of whole clauses holding the trigger; else words
    from the trigger's clause up to max_words. Runs are ranked by words shared with the
    question, then by holding fewer `others` (other requirement phrases, quoted on their own),
    then by starting the sentence (its subject), then by length. A sentence shorter than min_words is quoted only
    when it is complete (ends with a full stop) — a short standard requirement is still whole."""
    s0, e0 = _trim(text, 0, len(text))
    n = _wc(text, s0, e0)
    if n <= max_words:
        if n >= min_words or (n >= 4 and text[s0:e0].rstrip().endswith((".", ";"))):
            return s0, e0
        return None
    bounds = sorted({s0, e0, *clause_bounds(text, s0, e0)})
    best: tuple[tuple, tuple[int, int]] | None = None
    for i in range(len(bounds) - 1):
        if bounds[i] > trigger:
            break
        for j in range(i + 1, len(bounds)):
            s, e = _trim(text, bounds[i], bounds[j])
            if e <= trigger:
                continue
            wc = _wc(text, s, e)
            if wc > max_words:
                break
            if wc < min_words:
                continue
            key = (len(_terms(text[s:e]) & question_terms), -sum(s <= o < e for o in others), s == s0, wc)
            if best is None or key > best[0]:
                best = (key, (s, e))
    if best:
        return best[1]
    toks = [(m.start(), m.end()) for m in re.finditer(r"\S+", text[:e0])]
    ti = next((k for k, (a, b) in enumerate(toks) if b > trigger), len(toks) - 1)
    clause_start = max((b for b in bounds if b <= trigger), default=s0)
    first = next((k for k, (a, _) in enumerate(toks) if a >= clause_start), ti)
    first = min(first, ti)
    last = min(len(toks), first + max_words) - 1
    if last - first + 1 < min_words:
        first = max(0, last - max_words + 1)
    s, e = _trim(text, toks[first][0], toks[last][1])
    return (s, e) if _wc(text, s, e) >= min_words else None


def extract_from_text(text: str, offset: int, question: str | None, min_words: int, max_words: int
                      ) -> list[tuple[int, int, Confidence]]:
    """Requirement quotes in one sentence as absolute (start, end, confidence). With a question,
    one quote per sentence: of the excerpts around each requirement phrase, the one sharing
    most words with the question. Without, one quote per requirement phrase (inventory)."""
    qt = _terms(question or "")
    trig = requirement_trigger(text)
    if trig is None:
        return []
    pos, conf = trig
    triggers = sorted({pos, *(m.start() for m in _STRONG.finditer(text))})
    whole_span = _trim(text, 0, len(text))
    found: list[tuple[int, int, Confidence]] = []
    for t in triggers:
        if question is None and any(s <= t + offset < e for s, e, _ in found):
            continue
        span = excerpt(text, t, qt, min_words, max_words, tuple(o for o in triggers if o != t))
        if span is None:
            continue
        s, e = span
        c: Confidence = conf if span == whole_span or conf == "low" else "medium"
        found.append((offset + s, offset + e, c))
    if question is not None and len(found) > 1:  # several phrases: the excerpt closest to the question
        best = max(found, key=lambda f: (len(_terms(text[f[0] - offset:f[1] - offset]) & qt), -f[0]))
        found = [best]
    return found


# --- compose: statements from quotes, citing inline ----------------------------------------------
def _items_of_lead_ins(units: list, rel, chosen: list[int], judgment: JudgmentSettings) -> list[int]:
    """The chosen units, best first, then the items of each chosen lead-in likely to answer
    (relevance >= judgment.relevant) that the limit on proposals left out: "The following biometric
    data shall be collected from each PIV applicant:" proposed without "+ An electronic facial
    image." says only that a list follows."""
    out = list(chosen)
    for i in chosen:
        if rel[i] < judgment.relevant or not engine.leads_a_list(units[i].text):
            continue
        lead = squash(units[i].text)
        items = [j for j in range(len(units)) if j not in out and units[j].document_id == units[i].document_id
                 and units[j].start > units[i].start and rel[j] >= judgment.extract_floor
                 and (said := squash(units[j].lead)) and lead.endswith(said)]
        out += sorted(items, key=lambda j: units[j].start)[:engine.LIST_ITEMS_MAX]
    return out


# --- the backend ----------------------------------------------------------------------------------
_REASONS = set(get_args(RejectionReason))


def _relevance(question: str, evidence: list[Evidence]) -> list[float]:
    """The judge's relevance of each item to the question, read as Extract read it (after its
    lead-in); the judge's score cache makes the second reading of a run's items free."""
    if not evidence:
        return []
    return [float(r) for r in engine.SCORES("relevance", question, [engine.judged_text(e) for e in evidence],
                                             [e.document_id for e in evidence])]


class RulesBackend:
    """Offline backend; no network, no model downloads. It has no composer of its own: the
    pipeline composes its answers from the verified quotes (workbench.pipeline.compose)."""

    name = "rules"

    def __init__(self, settings: Settings):
        self.settings = settings
        self._usage: dict[str, StageUsage] = {}

    def _count(self, stage: str, t0: float) -> None:
        u = self._usage.setdefault(stage, StageUsage())
        u.calls += 1
        u.latency_s = round(u.latency_s + time.perf_counter() - t0, 4)

    def extract(self, question: str | None, chunks: list[Chunk], context: ExtractContext) -> list[Candidate]:
        """Quotes at exact offsets. With a question: the whole units (sentences, list items,
        clauses) of the retrieved chunks and of the segment search, ranked by the learned
        relevance to the question, best first (engine.units_for, shared with claim checking).
        question=None inventories every requirement sentence by rule (seed 000)."""
        t0 = time.perf_counter()
        lo, hi = self.settings.quote_min_words, self.settings.quote_max_words
        out: list[Candidate] = []
        if question is None:
            out = self._inventory(chunks, context, lo, hi)
            self._count("extract", t0)
            return out
        ranges: dict[str, list[tuple[int, int]]] = {}
        for ch in chunks:
            ranges.setdefault(ch.document_id, []).append((ch.start, ch.end))
        units = engine.units_for(question, context, ranges, min_words=lo, max_words=hi)
        rel = engine.SCORES("relevance", question, [u.judged for u in units], [u.document_id for u in units])
        order = engine.apart(units, sorted(range(len(units)), key=lambda i: (-rel[i], units[i].document_id, units[i].start)))
        j = self.settings.judgment
        chosen = [i for i in order[:j.max_proposed] if rel[i] >= j.extract_floor]
        for i in _items_of_lead_ins(units, rel, chosen, j):
            u = units[i]
            ch = next((c for c in chunks if c.document_id == u.document_id and c.start <= u.start < c.end), None)
            conf: Confidence = "high" if rel[i] >= 0.8 else "medium" if rel[i] >= j.relevant else "low"
            out.append(Candidate(exact_quote=u.text, chunk_id=ch.chunk_id if ch else f"{u.document_id[:8]}-s{u.start}",
                                 document_id=u.document_id,
                                 section_heading=context.heading_at(u.document_id, u.start) or (ch.section_heading if ch else None),
                                 extraction_confidence=conf, start=u.start, end=u.end))
        self._count("extract", t0)
        return out

    def _inventory(self, chunks: list[Chunk], context: ExtractContext, lo: int, hi: int) -> list[Candidate]:
        out: list[Candidate] = []
        seen: set[tuple[str, int, int]] = set()
        for ch in chunks:
            for s, _e, text in context.sentences(ch.document_id, ch.start, ch.end):
                for qs, qe, conf in extract_from_text(text, s, None, lo, hi):
                    key = (ch.document_id, qs, qe)
                    if key in seen:
                        continue
                    seen.add(key)
                    out.append(Candidate(exact_quote=text[qs - s:qe - s], chunk_id=ch.chunk_id, document_id=ch.document_id,
                                         section_heading=context.heading_at(ch.document_id, qs) or ch.section_heading,
                                         extraction_confidence=conf, start=qs, end=qe))
        return out

    def verify(self, question: str, evidence: list[Evidence]) -> list[Verification]:
        """Seed 000's three criteria (engine.judge_quote): learned relevance to the question,
        then the hard gates (hedging, a quote cut mid-sentence, a reference outside the quote)."""
        t0 = time.perf_counter()
        rel = _relevance(question, evidence)
        out = []
        for e, r in zip(evidence, rel, strict=True):
            v = engine.judge_evidence(question, e, float(r), self.settings.judgment)
            reason = v.reason if v.reason in _REASONS else (None if v.verified else "does_not_address_question")
            out.append(Verification(requirement_id=e.requirement_id, verified=v.verified, rejection_reason=reason,
                                    verification_rationale=v.rationale, score=float(min(1.0, max(0.0, v.score))),
                                    verifier="rules"))
        self._count("verify", t0)
        return out

    def support(self, sentences: list[str], evidence: list[Evidence]) -> list[SentenceSupport]:
        """Seed 004's validate step: each sentence against the evidence it cites."""
        t0 = time.perf_counter()
        by_id = {e.requirement_id: e for e in evidence}
        out = []
        for s in sentences:
            ids = cited_ids(s)
            cited = [by_id[i] for i in ids if i in by_id]
            if not cited:
                out.append(SentenceSupport(text=s, citations=ids, supported=False, reason="cites no verified evidence"))
                continue
            ok, score, reason = engine.sentence_support(strip_citations(s), [e.exact_quote for e in cited],
                                                        [e.document_id for e in cited])
            out.append(SentenceSupport(text=s, citations=ids, supported=bool(ok), reason=reason or f"score {score:.2f}"))
        self._count("quality_review", t0)
        return out

    def claim_support(self, claim: str, evidence_texts: list[str]) -> tuple[bool, float, str]:
        """The engine's support verdict on one claim against the given spans (as `verify` judges)."""
        return engine.sentence_support(claim, evidence_texts)

    def usage(self) -> dict[str, StageUsage]:
        return dict(self._usage)
