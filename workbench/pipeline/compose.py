"""Compose: the answer written from verified quotes only, each statement citing its quote
inline, so nothing in the answer goes beyond the verified evidence. Shared by the offline backend
(its compose stage), the pipeline's fallback when an LLM's compose fails, and review (an answer
recomposed from final statuses): one composer, whoever proposed the quotes."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from workbench.backends import engine
from workbench.config import JudgmentSettings
from workbench.models import Draft, Evidence, RequirementReference
from workbench.text import ID_RE, content_terms, speculative_terms, split_sentences
from workbench.text.lexicon import squash
from workbench.text.question_parts import question_parts
from workbench.text.sentences import furniture_between


def _terms(text: str) -> set[str]:
    """Content words, stemmed, for overlap scoring."""
    return set(content_terms(text))


_NEGATIVE = re.compile(r"\b(?:must\s+not|shall\s+not|may\s+not|prohibit\w*|forbidden|not\s+permitted|"
                       r"(?:is|are)\s+not\s+required|never|no\s+\w+\s+(?:shall|may|must))\b", re.IGNORECASE)
MAX_STATEMENTS = 8


_FOOTNOTE_TAIL = re.compile(r"(?<=[.)])\d{1,3}(?:\s+\d{1,3})*$")  # "platforms.23", "accounts.24 25"


_LETTER_ENUM = re.compile(r"^\(?(?:[a-z]|[ivx]{1,4})[.)]\s+(?=\S)")


def _without_between_blocks(quote: str) -> str:
    """A quote whose sentence runs over a page or column break holds, between its halves, the
    blocks the break put there: a running header or footer, a page number ("Page 55 of 80",
    "24 FREE CULTURE"). The answer sentence leaves them out (the quote keeps them)."""
    for a, b in reversed(furniture_between(quote)):
        quote = quote[:a].rstrip() + "\n" + quote[b:].lstrip()
    return quote


def statement(quote: str, cut: tuple[bool, bool] = (False, False)) -> str:
    """A quote as an answer sentence body: whitespace collapsed, closing punctuation dropped.
    `cut`: whether the quote is part of a longer sentence that goes on before / after it; the
    answer then says so with "…" where words were left out, as the quote's verdict does."""
    s = re.sub(r"(\w)- (\w)", r"\1-\2", " ".join(_without_between_blocks(quote).split()))
    s = _FOOTNOTE_TAIL.sub("", s).rstrip(" .;:,")
    s = _LETTER_ENUM.sub("", s, count=1) or s  # "d. Neither party …" reads as "Neither party …"
    s = s[:1].upper() + s[1:] if s[:1].islower() else s
    return f"{'… ' if cut[0] else ''}{s}{' …' if cut[1] else ''}"


_ITEM_END = re.compile(r"[;,\u037e]\s*(?:and|or|and/or)\s*$")
_OPENING_MARK = re.compile(r"^\W*(?:\(?(?:\d+(?:\.\d+)*|[a-zA-Z]|[ivxlcIVXLC]{1,6})[.)])\s")


def source_prefix(title: str) -> str:
    """How an answer statement names its document when a run spans several: "In the Adams Golf
    Endorsement Agreement: " (two contracts each calling itself "this Agreement" are told apart)."""
    title = re.sub(r"^the\s+", "", title.strip(), flags=re.I)
    return f"In the {title}: "


def named(sentence: str, title: str | None) -> str:
    """The sentence naming its document (unchanged without a title)."""
    return f"{source_prefix(title)}{sentence}" if title else sentence


def without_source(sentence: str, titles: Iterable[str]) -> str:
    """The sentence without the document name `named` put before it: what it claims of the
    quote it cites, for the support check (the name is the run's, not the quote's); a conflict
    between two documents names the second after "by contrast, " too."""
    for t in titles:
        p = source_prefix(t)
        if sentence.startswith(p):
            sentence = sentence[len(p):]
        sentence = sentence.replace(f"; by contrast, i{p[1:]}", "; by contrast, ")
    return sentence


def named_by_citation(answer: str, verified: list[Evidence], sources: Mapping[str, str]) -> str:
    """An answer composed elsewhere (an LLM's) over several documents: each sentence whose
    citations all lie in one document, and that names none yet, names it (`named`); a sentence
    citing two documents is left as written (it compares them). Without `sources`, unchanged."""
    if not sources:
        return answer
    from workbench.text import cited_ids

    doc = {e.requirement_id: e.document_id for e in verified}
    out = []
    for s in split_sentences(answer):
        docs = {doc[c] for c in cited_ids(s) if c in doc}
        title = sources.get(next(iter(docs))) if len(docs) == 1 else None
        out.append(named(s, title) if without_source(s, sources.values()) == s else s)
    return " ".join(out)


def quote_cut(quote: str) -> tuple[bool, bool]:
    """Whether a quote, read alone, is part of a longer sentence before / after it: it opens in
    lower case without an item's mark, or it ends on no sentence's or item's end ("… shall return
    all copies" is cut; "(b) the copies; and" is a whole item). For a quote whose unit is not known:
    one a reviewer added or marked supported."""
    q = " ".join(quote.split()).strip("\u2022\u00b7 ")
    core = q.rstrip("\"'\u201d\u2019)] ")
    before = bool(q[:1].islower()) and not _OPENING_MARK.match(q)
    after = bool(core) and core[-1] not in ".!?;:\u037e" and not _ITEM_END.search(core)
    return before, after


def _same_text(a: str, b: str) -> bool:
    """The same words in the same order, ignoring case, spacing, punctuation and hyphenation."""
    return squash(a) == squash(b)


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def _announces(lead: Evidence, item: Evidence) -> bool:
    """Whether `item` is an item of the list `lead` introduces (its lead-in is lead's quote)."""
    said, quote = squash(engine.lead_of(item)), squash(lead.exact_quote)
    return bool(said) and item is not lead and (quote.endswith(said) or said.endswith(quote))


def _needs_its_lead(item: Evidence) -> bool:
    """Whether a list item says nothing whole without its lead-in: it was read after one, opens
    with no subject and states no modal of its own ("(i) Solicit, divert … any business …" after
    "Member will not, either directly or indirectly, …:"). "The transmission must be initiated by
    a person other than the provider." and "We validate our tracing techniques …" stand alone."""
    lead = engine.lead_of(item)
    if not lead or not engine.leads_a_list(lead):
        return False
    said = statement(item.exact_quote)
    words = re.findall(r"[\w’'-]+", _ITEM_MARK.sub("", said, count=1))
    has_subject = bool(words) and (words[0].lower() in _SUBJECTS or (
        len(words) > 1 and words[1].islower() and words[1].endswith("s") and not words[1].endswith("ss")))
    return not has_subject and not _MODAL_WORD.search(said)


_ITEM_MARK = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|\(?[a-z]{1,2}\)|\(?[ivxlc]{1,6}[.)]|[A-Z][.)])\s+")
_MODAL_WORD = re.compile(r"\b(?:must|shall|may|will|should|can|cannot|would|could|means|includes?)\b", re.I)
# Words that open a clause with its subject ("We validate …", "The transmission is …"): such an
# item states something whole though it was read after a lead-in.
_SUBJECTS = frozenset("""we you i it they he she this these those that each every all any no none the a an such our
your its their his her there""".split())  # noqa: SIM905


def _items_after_their_lead(quotes: list[Evidence]) -> list[Evidence]:
    """The quotes best first, each lead-in followed by its items: the answer's limit on statements
    then keeps a lead-in with what it announces ("File Form 1040NR if any of the following four
    conditions applies to you." cited alone, its conditions cut by the limit, said nothing)."""
    out: list[Evidence] = []
    for e in quotes:
        if e in out:
            continue
        out.append(e)
        if engine.leads_a_list(e.exact_quote):
            out += [item for item in quotes if item not in out and _announces(e, item)]
    return out


def compose_from_quotes(verified: list[Evidence], exclude: set[str] | frozenset[str] = frozenset(),
                        max_statements: int = MAX_STATEMENTS, cuts: dict[str, tuple[bool, bool]] | None = None,
                        joined: set[str] | frozenset[str] = frozenset(),
                        sources: Mapping[str, str] | None = None) -> Draft:
    """An answer built only from the verified quotes, in the order given (best first) for
    choosing (at most `max_statements`, a lead-in with its items counting as one), then in
    document order for reading. Quotes with the same words (the same requirement
    quoted twice, e.g. in the body and an appendix) become one sentence
    citing all their IDs; quotes of opposite polarity on the same subject (a conflict) are
    presented together in one sentence citing both. Speculative quotes, quotes that would read
    as more than one sentence (so a citation could not cover them all), and low-confidence
    extractions when clearer ones exist are left out (listed unused) - except a `joined` quote
    (a sentence quoted with the one it reads on from: "Such notice …"), which becomes two answer
    sentences, each citing it. `cuts`: for a quote that is part of a longer sentence, by ID,
    whether words were left out before / after it. `sources`: for a run over several documents,
    each document's short title by id: every sentence then names its document (`named`), and
    quotes of different documents are never merged into one sentence (a conflict between two is
    still presented in one, naming each)."""
    cuts = cuts or {}
    sources = sources or {}

    def same_doc(a: Evidence, b: Evidence) -> bool:
        return not sources or a.document_id == b.document_id

    def said(e: Evidence) -> str:
        return statement(e.exact_quote, cuts.get(e.requirement_id, (False, False)))

    usable = [e for e in verified if e.requirement_id not in exclude and not speculative_terms(e.exact_quote)
              and (e.requirement_id in joined or len(split_sentences(statement(e.exact_quote) + " [X].")) == 1)]
    if any(e.extraction_confidence != "low" for e in usable):  # the clear requirements speak; weak ones wait
        usable = [e for e in usable if e.extraction_confidence != "low"]
    announced = [e for e in usable if engine.leads_a_list(e.exact_quote)
                 and not any(_announces(e, item) for item in usable)]
    if len(announced) < len(usable):  # a lead-in without its items says only that a list follows
        usable = [e for e in usable if e not in announced]
    orphans = [e for e in usable if _needs_its_lead(e) and not any(_announces(lead, e) for lead in usable)]
    if len(orphans) < len(usable):  # "(i) Solicit, divert …" without "Member will not …:" reads as an order
        usable = [e for e in usable if e not in orphans]
    groups: list[list[Evidence]] = []
    statements = 0  # a lead-in and its items count as one: the list is what it says
    for e in _items_after_their_lead(usable):
        for g in groups:
            if _same_text(statement(e.exact_quote), statement(g[0].exact_quote)) and same_doc(e, g[0]):
                g.append(e)
                break
        else:
            item = any(_announces(g[0], e) for g in groups)
            if item or statements < max_statements:
                groups.append([e])
                statements += not item
    alone = [g for g in groups if engine.leads_a_list(g[0].exact_quote)
             and not any(_announces(g[0], x) for h in groups for x in h)]
    if len(alone) < len(groups):  # its items were left out by the limit: the lead-in goes too
        groups = [g for g in groups if g not in alone]
    doc_order = {d: i for i, d in enumerate(dict.fromkeys(e.document_id for e in verified))}
    groups.sort(key=lambda g: (doc_order[g[0].document_id], g[0].span.start if g[0].span else 0))

    def cite(g: list[Evidence]) -> str:
        return "[" + ", ".join(e.requirement_id for e in g) + "]"

    sentences: list[str] = []
    paired: set[int] = set()
    for i, g in enumerate(groups):
        if i in paired:
            continue
        source = sources.get(g[0].document_id)
        if len(split_sentences(said(g[0]))) > 1:  # a sentence with the one it reads on from: each cites
            sentences += [named(f"{part.rstrip(' .;:,')} {cite(g)}.", source) for part in split_sentences(said(g[0]))]
            continue
        neg = bool(_NEGATIVE.search(g[0].exact_quote))
        partner = next((j for j in range(i + 1, len(groups)) if j not in paired
                        and len(split_sentences(said(groups[j][0]))) == 1
                        and bool(_NEGATIVE.search(groups[j][0].exact_quote)) != neg
                        and _jaccard(_terms(g[0].exact_quote), _terms(groups[j][0].exact_quote)) >= 0.5), None)
        if partner is None:
            lists = (engine.leads_a_list(g[0].exact_quote) and g[0].exact_quote.rstrip()[-1:] in ":–—-"
                     and i + 1 < len(groups) and _announces(g[0], groups[i + 1][0]))
            sentences.append(named(f"{said(g[0])} {cite(g)}{':' if lists else '.'}", source))  # "… until [REQ-C096]:"
        else:
            paired.add(partner)
            other = groups[partner]
            theirs = sources.get(other[0].document_id)
            elsewhere = f"i{source_prefix(theirs)[1:]}" if theirs and theirs != source else ""
            sentences.append(named(f"{said(g[0])} {cite(g)}; by contrast, {elsewhere}{said(other[0])} {cite(other)}.",
                                   source))
    used = {e.requirement_id for g in groups for e in g}
    refs = [RequirementReference(requirement_id=e.requirement_id, used_in_answer=True, statement=said(e))
            for g in groups for e in g]
    return Draft(final_answer=" ".join(sentences), requirement_references=refs,
                 unused_requirements=[e.requirement_id for e in verified if e.requirement_id not in used])


def unit_cuts(evidence: list[Evidence]) -> tuple[dict[str, tuple[bool, bool]], set[str]]:
    """From the items' unit facts: for a part of a longer sentence, whether words were left out
    before / after it (by ID); and the IDs of the quotes of two sentences read as one."""
    cuts = {e.requirement_id: (e.unit.cut_before, e.unit.cut_after) for e in evidence
            if e.unit is not None and e.unit.trimmed_from}
    return cuts, {e.requirement_id for e in evidence if e.unit is not None and e.unit.joined}


# Quality review's feedback names the IDs of an unsupported or speculative sentence first.
_FEEDBACK_IDS = re.compile(r"^(?:unsupported|speculative):\s*(\[[^\]]*\])")


def compose_answer(question: str, verified: list[Evidence], feedback: list[str] | None = None,
                   judgment: JudgmentSettings | None = None, sources: Mapping[str, str] | None = None) -> Draft:
    """The answer of a backend without a composer of its own (the offline one): statements from
    the verified quotes that answer best (within judgment.answer_margin of the best relevance, for
    each part of a question asking several things: text.question_parts; the weaker stay listed as
    unused). On a revise pass, the IDs quality review named as unsupported or
    speculative are dropped. `sources`: as compose_from_quotes."""
    j = judgment or JudgmentSettings()
    exclude: set[str] = set()
    for line in feedback or []:
        m = _FEEDBACK_IDS.match(line)
        if m:
            exclude.update(ID_RE.findall(m.group(1)))
    if verified:
        texts, docs = [engine.judged_text(e) for e in verified], [e.document_id for e in verified]
        kept: set[str] = set()
        # each part of a question asking several things keeps its own best quotes: the forum clause
        # answers "where must disputes be resolved" though the law clause scores higher on the whole
        for part in question_parts(question):
            scores = [float(r) for r in engine.SCORES("relevance", part, texts, docs)]
            floor = max(scores) - j.answer_margin
            kept |= {e.requirement_id for e, r in zip(verified, scores, strict=True) if r >= floor}
        exclude |= {e.requirement_id for e in verified} - kept
    cuts, joined = unit_cuts(verified)
    draft = compose_from_quotes(verified, exclude, cuts=cuts, joined=joined, sources=sources)
    if not draft.final_answer and exclude:  # every quote was excluded: better the quotes than nothing
        draft = compose_from_quotes(verified, cuts=cuts, joined=joined, sources=sources)
    return draft
