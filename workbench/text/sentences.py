"""Sentence and clause boundaries, once: for PDF segments (spans of the raw text, line breaks
kept) and for composed answers (collapsed text). A boundary is . ! or ? (optionally closed by a
quote or bracket), then space, then what can start a sentence (a capital, a digit, an opening
quote or bracket, a bullet) — except after an abbreviation or a single initial, and never
inside a section number (3.1.12) or right after a bare enumerator ("14. Miscellaneous.")."""

from __future__ import annotations

import re

from workbench.text.citations import CITATION_RE

ABBREVIATIONS = frozenset({
    "e.g", "i.e", "etc", "cf", "vs", "no", "nos", "sec", "secs", "art", "u.s", "u.s.c", "inc", "ltd",
    "co", "corp", "fig", "figs", "vol", "pp", "para", "st", "dr", "mr", "mrs", "ms", "jr", "sr", "approx",
    "incl", "al", "ch", "pt", "subpt", "op", "p", "c.f.r", "cfr", "u.k", "e.u", "rev", "dept", "reg",
    # legal citations ("Minn. Stat. § 80C.17", "Cal. Bus. & Prof. Code", "Tex. Civ. Prac. & Rem. Code
    # Ann."); states whose abbreviation is also a word a sentence ends on (Ill., Wash., Mass.) are left out
    "stat", "stats", "ann", "supp", "cir", "const", "civ", "prac", "rem", "proc", "prof", "admin", "gen",
    "ala", "ariz", "ark", "cal", "colo", "conn", "del", "fla", "ga", "haw", "ind", "kan", "ky",
    "mich", "minn", "mont", "neb", "nev", "okla", "pa", "tenn", "tex", "va", "vt", "wis", "wyo",
})
# What may open the next sentence: a capital, a digit or an opening quote or bracket before one; a
# bullet; an item's "(a) "; a lettered item or heading before a capital ("b. “Company Products” …",
# "g. Governing Law and Forum", "a) TERMINATION FOR BREACH."); an ellipsis, where an answer quotes
# part of a sentence ("… do all actions").
_END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*(?=\s+(?:[\"'\u201c\u2018(\[]?[A-Z0-9*]|[•·▪…]\s|\([a-z]{1,4}\)\s"
                  r"|(?:[a-z]|[ivx]{2,4})[.)]\s+[\"\u201c(]?[A-Z])|\s*$)")
# What a sentence never is on its own: a bare enumerator ("14.", "(a)", "3.1.12.", "iv.",
# "Section 14.", "14.." typed with a doubled stop) - the run-in heading or the clause after it
# belongs to it.
_ENUMERATOR = re.compile(r"(?:(?:section|article|clause|part)\s+)?\(?(?:\d+(?:\.\d+)*|[a-z]|[ivxlc]{1,6})(?:\.\.?|\))",
                         re.IGNORECASE)
# _ENUMERATOR as it reads a text stripped of the whitespace around it (\s is str.isspace's characters,
# and an enumerator neither starts nor ends on one): matched in place, the text is not copied to strip it.
_STRIPPED_ENUMERATOR = re.compile(rf"\s*(?:{_ENUMERATOR.pattern})\s*", re.IGNORECASE)
# "ARTICLE I." is a number, not an initial: it may end an enumerator ("… as follows:\nARTICLE I. SCOPE …")
_LABELLED_ROMAN = re.compile(r"\b(?:ARTICLE|SECTION|PART|Article|Section|Part)\s+[IVXLC]{1,6}$")
# Footnote calls at the end of a sentence: "accounts.24 25", "platforms.23" - the digits after a
# word's full stop or bracket are a reference, not part of what the sentence says.
FOOTNOTE_MARK = re.compile(r"(?<=[^\W\d_][.)])\d{1,3}(?:\s+\d{1,3})*\s*$")
# Clause boundaries inside a sentence: after , ; : or and / or / and/or, and before a condition
# ("… renew for additional periods of five (5) years | unless one Party notifies …").
_CLAUSE_END = re.compile(r"[;:,]\s+|\s(?:and/or|and|or)\s+|\s+(?=(?:unless|provided that|except that)\s)")


# Words no sentence or clause ends on ("… without giving effect to", "… written under", "…, then"):
# text that ends on one goes on, or was cut.
OPEN_WORDS = frozenset({
    "to", "of", "for", "with", "by", "from", "on", "in", "at", "into", "onto", "upon", "under",
    "through", "throughout", "without", "within", "between", "among", "against", "about", "over",
    "after", "before", "during", "than", "as", "such", "any", "all", "each", "every", "no", "the",
    "a", "an", "its", "their", "his", "her", "our", "your", "this", "that", "these", "those",
    "which", "who", "whom", "whose", "where", "when", "if", "unless", "then", "including", "namely",
    "whether", "because", "provided", "except", "other", "either", "neither", "both", "not"
})
# A list item's end before the next item's number on a new line: "…;", "…:", "…; and", "…, or".
_ITEM_END = re.compile(r"(?:[;:,]|[;,]\s*(?:and|or))\s*$")
# A lettered or numbered item opening the next line: the line before ends its sentence even on an
# initial or an abbreviation.
_ITEM_NEXT_LINE = re.compile(r"[ \t]*\n\s*\(?(?:[a-z]|[ivx]{2,4}|\d{1,2}(?:\.\d{1,2})*)[.)]\s")
# … and inside a line, where a bare comma is too weak a sign ("… in Section 2, b. The …" is rare,
# "… material breach; or ii. Insolvency …" is the list's next item).
_ITEM_END_INLINE = re.compile(r"(?:[;:\u037e]|[;,\u037e]\s*(?:and|or|and/or))\s*$")


def _abbreviation_before(text: str, start: int, dot: int) -> bool:
    before = _last_word(text, start, dot)
    before = before.lstrip("([\"'\u201c").lower()
    return before in ABBREVIATIONS or (len(before) == 1 and before.isalpha())


def _last_word(text: str, start: int, end: int) -> str:
    """The last whitespace-separated word of text[start:end] ("" when none), as
    text[start:end].rsplit(None, 1)[-1] gives it, read back from `end` instead of copying and
    splitting the whole sentence so far at every full stop: the word starts after the last space
    or line break (rfind, in C), and a rarer space inside what is left (U+2002, a tab) is split on
    there, as split would."""
    e = end
    while e > start and text[e - 1].isspace():
        e -= 1
    b = max(text.rfind(" ", start, e), text.rfind("\n", start, e), start - 1) + 1
    word = text[b:e]
    return word if word.isprintable() or not any(map(str.isspace, word)) else word.rsplit(None, 1)[-1]


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """[start, end) of each sentence of text[start:end], leading/trailing whitespace excluded."""
    end = len(text) if end is None else end
    out: list[tuple[int, int]] = []
    s = start
    enumerator = _ENUMERATOR.fullmatch  # on text[a:b] as sliced, with pos and endpos: no copy
    stripped_enumerator = _STRIPPED_ENUMERATOR.fullmatch  # … as _ENUMERATOR on text[a:b].strip()
    for m in _END.finditer(text, start, end):
        at, e = m.span()
        if text[at] == "." and _abbreviation_before(text, s, at) and not _ITEM_NEXT_LINE.match(text, e) \
                and not _LABELLED_ROMAN.search(text, s, at):
            continue  # "Acme Inc. or …", "John A. Smith"; but "… in Exhibit B." | "l. “Reseller” shall …" ends
        if stripped_enumerator(text, s, e):
            continue
        ls = text.rfind("\n", s, at) + 1
        ws = max(ls, max(text.rfind(" ", s, at), text.rfind("\t", s, at)) + 1)
        if (ls > s and stripped_enumerator(text, ls, e) and _ITEM_END.search(text, s, ls)) or (
                ws > s and enumerator(text, ws, e) and _ITEM_END_INLINE.search(text, s, ws)):
            # "…communications;\n2.\nSystem caching;" or "… material breach; or ii. Insolvency …": the
            # enumerator opens the next item, it does not end this one; the item before ends at its ";"
            ls = ls if ls > s and stripped_enumerator(text, ls, e) else ws
            _push(text, s, ls, out)
            s = ls
            continue
        _push(text, s, e, out)
        s = e
    _push(text, s, end, out)
    return out


def _push(text: str, s: int, e: int, out: list[tuple[int, int]]) -> None:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    if e > s:
        out.append((s, e))


def split_sentences(text: str) -> list[str]:
    """Sentences of a composed answer or a claim (whitespace collapsed); a lead-in ending on its
    citation and a colon ("… shall remain in force until [REQ-C096]:") is a sentence of its own:
    what follows is its list's first item, which cites evidence of its own."""
    text = " ".join(text.split())
    pieces, k = [], 0
    for m in re.finditer(r"\]:\s+", text):  # first the cited lead-ins: "… if [REQ-P007]: 1. Your only …"
        head = text[k:m.start() + 1]
        if (c := list(CITATION_RE.finditer(head))) and c[-1].end() == len(head):
            pieces.append(head + ":")
            k = m.end()
    pieces.append(text[k:])
    return [p[s:e] for p in pieces for s, e in sentence_spans(p)]


def clause_bounds(text: str, start: int = 0, end: int | None = None) -> list[int]:
    """Offsets where a clause may begin inside text[start:end] (after , ; : and/or, and at "unless" or
    "provided that"), never inside brackets opened after `start`: a parenthetical is a node of its
    own ("… this Agreement (including the Sections entitled “Compliance with Laws,” …) will survive"
    was cut after "Laws,”", dropping what survives)."""
    end = len(text) if end is None else end
    out, depth, at = [], 0, start
    for m in _CLAUSE_END.finditer(text, start, end):
        for ch in text[at:m.start()]:
            if ch in "([":
                depth += 1
            elif ch in ")]" and depth:
                depth -= 1
        at = m.start()
        if not depth:
            out.append(m.end())
    return out


_BLOCK_BREAK = re.compile(r"\n[ \t]*\n")
FURNITURE_MAX_WORDS = 12
DOT_LEADERS = re.compile(r"(?:\.\s?){5,}|…{2,}")  # a contents line's "Biometric Data Collection ........ 6"


def furniture_between(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Spans of the short blocks between the first and last block of a sentence text[start:end]:
    the running header, footer or page number a page or column break put between its halves
    ("CHAPTER THREE" / "PAGE 36", "SP 800-171, REVISION 2 …"). A sentence has no blank line of
    its own, so a block of at most FURNITURE_MAX_WORDS words between two others is furniture."""
    end = len(text) if end is None else end
    breaks = list(_BLOCK_BREAK.finditer(text, start, end))
    return [(a.end(), b.start()) for a, b in zip(breaks, breaks[1:], strict=False)
            if len(text[a.end():b.start()].split()) <= FURNITURE_MAX_WORDS]

