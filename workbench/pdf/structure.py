"""The numbered sections of a document as a tree: each with its number, title, level and
character span, read once at parse time from the segments (workbench.pdf.segment).

Why a tree and not "the last numbered heading seen": a contract numbers its clauses "5.1 URL."
then "5.2 The Company shall …" (no title); the last-heading rule labelled 5.2 "5.1 URL." although
5.2 is no part of 5.1. Here an untitled clause closes its siblings, and a quote is labelled with
the innermost *titled* section that holds it ("5. Marketing" for 5.2). Run-in titles that the
layout reads as sentences ("7.4 Records; Inspection. Ono shall keep …") open sections too.

A numbered line only opens a section where the numbering goes on: "1. Year 1 $[*****]" after
section 19 is a list inside 19, not a new section 1. A division (an exhibit, a schedule, an
addendum) closes every section and lets numbering start again."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

SECTION_SKIP_MAX = 3  # a number may skip this many siblings ("7." after "4." where 5 and 6 were missed)
TITLE_MAX_WORDS = 12

# "6.", "8.6", "Section 4.", "ARTICLE V", "II." — the number, then the rest (title or clause).
# A doubled stop ("14.. Notices.") is a typing slip, not another numbering.
_DECIMAL = re.compile(r"^(?:(?:section|article|clause)\s+)?(\d{1,2}(?:\.\d{1,2}){0,3})(\.{0,2})(?=\s|$)\s*(.*)$", re.I | re.S)
# A clause number typed against its title, the space lost ("4.3Fixtures and Tooling", "3.2ESTABLISHMENT
# Representations."): a number of two levels or more before a word of two letters or more in capitals.
_GLUED = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){1,3})()([A-Z][A-Za-z].*)$", re.S)
# A dash or colon between a heading's number and its title ("ARTICLE 2 - PROGRAM", "Section 4: Fees").
_SEPARATOR = re.compile(r"^[-\u2013\u2014:]\s+(?=[^\W\d_])")  # a letter: "5 - 10 units" is a range
# "ARTICLE 2 - ENTERPRISE NAME 2.1 The …": the label word in capitals, its number, a separator or
# none, then words in capitals (2+ letters, or "A"/"&" inside) up to the first word that is not.
_CAPS_WORD = r"(?:[A-Z][A-Z'’,;/&()-]*[A-Z),;]|&)"
_RUN_IN_CAPITALS = re.compile(r"^(?:(ARTICLE|SECTION)\s+(\d{1,2}|[IVXL]{1,6})\.?|(\d{1,2}\.|\d{1,2}(?:\.\d{1,2}){1,2}\.?))\s+"
                              rf"(?:[-\u2013\u2014:]\s+)?({_CAPS_WORD}(?:\s+(?:{_CAPS_WORD}|[A-Z])){{0,11}})"
                              r"(?:\s+(.*))?$", re.S)
# How a clause that run_in_capitals or _DECIMAL reads starts (after space): a digit, or the label
# word (_DECIMAL's are read ignoring case, as here). A clause starting otherwise opens no section.
_MAY_BE_NUMBERED = re.compile(r"\s*(?:\d|section|article|clause)", re.I)
_ITEM_MARK = re.compile(r"(?:[IVX]{1,4}|[A-Z])[.)]\s")  # "… RESTRICTIONS I. Licensee …": the first item's mark
_CLAUSE_NUMBER = re.compile(r"\(?\d{1,2}(?:\.\d{1,2})*[.)]?\s")
# A division's designation is no section's title: "1 EXHIBIT 10.17" is a page number before it.
_DESIGNATION = re.compile(r"^(?:exhibit|schedule|annex|appendix|attachment|addendum)\s+[\w.()-]{1,8}$", re.I)
# A typed underline after a title ("2. Consumer Cost Description -------------"): a rule, not words.
_RULE_TAIL = re.compile(r"\s*(?:[-_=~*\u2010-\u2015]\s*){3,}$")
_ROMAN_LABEL = re.compile(r"^(?:article|section|part)\s+([IVXLC]{1,6})\b\.?\s*(.*)$", re.I | re.S)
_ROMAN = re.compile(r"^([IVX]{1,5})\.\s+(.*)$", re.S)
_LOWER_FINITE = re.compile(r"\b(?:must|shall|should|may|will|can|cannot|is|are|was|were|has|have|does|do|be|"
                           r"agrees?|acknowledges?|hereby)\b")
# A verb that makes a numbered paragraph a statement (a clause of the contract), not a list entry.
_STATES = re.compile(r"\b(?:must|shall|should|may|will|can|cannot|is|are|was|were|has|have|does|do|be|been|means|"
                     r"mean|agrees?|acknowledges?|warrants?|represents?|includes?|applies|apply|remains?)\b", re.I)
_SMALL = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "with", "under",
          "upon", "its", "their", "&"}
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}


@dataclass(frozen=True, slots=True)
class Section:
    """A numbered section or clause: `number` as printed ("6.", "8.6", "ARTICLE V"), `key` the
    numbers it stands for ((6,), (8, 6), (5,)), `title` ("" when the clause has none), `label` what
    names it to a reader ("6. Termination", "8.6 Governing Law"), its span in the text."""

    number: str
    key: tuple[int, ...]
    title: str
    label: str
    level: int
    start: int
    end: int
    page: int


def roman(s: str) -> int:
    total, prev = 0, 0
    for ch in reversed(s.lower()):
        v = _ROMAN_VALUES[ch]
        total = total - v if v < prev else total + v
        prev = max(prev, v)
    return total


def run_in_title(rest: str) -> str:
    """The run-in title opening a numbered clause's text ("Records; Inspection" of "Records;
    Inspection. Ono shall keep …"), or "": at most TITLE_MAX_WORDS words before a full stop or a
    colon, in title case or capitals, with no verb in lower case."""
    m = re.match(r"([^.:\n]{1,120}?(?:\([a-z]{1,2}\))?)[.:](?:\s|$)", rest)
    if m is None:
        return ""
    title = " ".join(m.group(1).split())
    words = title.split()
    if not words or len(words) > TITLE_MAX_WORDS or _LOWER_FINITE.search(title) or not words[0][:1].isupper():
        return ""
    big = [w for w in words if w.lower().strip(";,") not in _SMALL]
    return title if big and sum(w[:1].isupper() for w in big) >= 0.75 * len(big) else ""


def run_in_capitals(t: str) -> tuple[str, tuple[int, ...], str, str] | None:
    """A numbered heading in capitals run into its first clause, as text flattened from lines
    reads ("ARTICLE 2 - ENTERPRISE NAME 2.1 The Joint Venture …", "SECTION 3 COVENANTS OF THE
    COMPANY As a condition …", "2. DEFINITIONS 2.1 …", "9. INSPECTION AND LIMITATION OF LIABILITY
    Buyer shall …"): (number, key, label "ARTICLE 2 - ENTERPRISE NAME", the text after), or None.
    A bare number needs its title alone, or followed by the first clause's number, or two words
    or a word of four letters or more before a capital ("1.1 JHU has acquired …" is a sentence
    about JHU)."""
    m = _RUN_IN_CAPITALS.match(t)
    if m is None:
        return None
    word, num, bare, title, after = m.groups()
    after = after or ""
    if _LOWER_FINITE.search(title.lower()) or (re.match(r"[A-Z][A-Z'’,;/&()-]*(?:[A-Z),;](?:\s|$)|[.:])", after)
                                               and not _ITEM_MARK.match(after)):
        # a clause set in capitals ("SECTION 9 NOTWITHSTANDING, IN NO EVENT SHALL …"), or a title that
        # goes on past what capitals alone read ("1. EXTENSION OF TERM: The …": run_in_title's)
        return None
    if bare is not None:
        if after and not _CLAUSE_NUMBER.match(after) and not (
                (len(title.split()) >= 2 or len(title) >= 4) and after[:1].isupper()):
            return None
        printed = t[:m.start(4)].strip().rstrip("-\u2013\u2014:").strip()
        key = tuple(int(x) for x in bare.rstrip(".").split("."))
        while len(key) > 1 and key[-1] == 0:
            key = key[:-1]  # "13.0 DANGEROUS GOODS" is section 13, as parse_number reads it
        return printed, key, t[:m.end(4)].rstrip(",;"), after
    key = (roman(num),) if num[:1].isalpha() else (int(num),)
    return f"{word} {num}", key, t[:m.end(4)].rstrip(",;"), after


@lru_cache(maxsize=1024)
def _before_child(child: str) -> re.Pattern[str]:
    """The pattern of a title before the first child's number `child` ("5.1"), compiled once: the
    re module's own cache of 512 held them no longer than a few documents."""
    return re.compile(rf"([^\n]{{1,120}}?)[.:]?\s+{re.escape(child)}\.?(?:\s|$)")


def title_before_child(key: tuple[int, ...], rest: str) -> str:
    """The title between a number and its first child's number ("2. Co-operation procedure. 2.1.
    Sourcing …", "5. Payment 5.1 FEES AND EXPENSES …": text flattened from lines), or "": at most
    TITLE_MAX_WORDS words opening with a capital, with no verb in lower case."""
    child = ".".join(map(str, (*key, 1)))
    if child not in rest:  # what the pattern needs: most clauses name no child, and none is compiled
        return ""
    m = _before_child(child).match(rest)  # "5. Term 5.1." cut at its stop
    if m is None:
        return ""
    title = " ".join(m.group(1).split())
    words = title.split()
    if not words[0][:1].isupper() or len(words) > TITLE_MAX_WORDS or _LOWER_FINITE.search(title):
        return ""
    return title


def parse_number(text: str, heading: bool) -> tuple[str, tuple[int, ...], str] | None:
    """(number as printed, key, the text after the number) of a numbered heading or clause, or
    None. A clause (heading=False) needs a dotted number ("5.2", "6."): "10 South Wacker Drive"
    and a page's "2" open none."""
    return _parse_flat(" ".join(text.split()), heading)


def _parse_flat(t: str, heading: bool) -> tuple[str, tuple[int, ...], str] | None:
    """parse_number of a text already flattened (" ".join(text.split()))."""
    if m := _DECIMAL.match(t) or _GLUED.match(t):
        num, dot, rest = m.groups()
        if not heading and "." not in num + dot:
            return None
        if not heading and not rest[:1].isupper() and rest[:1] not in ('“', '"'):
            return None
        printed = t[:m.start(3)].strip() if rest else t
        if heading:
            rest = _SEPARATOR.sub("", rest)  # "ARTICLE 2 - PROGRAM": the title after the dash
        key = tuple(int(x) for x in num.split("."))
        while len(key) > 1 and key[-1] == 0:
            key = key[:-1]  # "2.0 Definitions" is section 2 of a "1.0, 1.1, 1.2, 2.0" numbering
        return printed, key, rest
    if heading and (m := _ROMAN_LABEL.match(t) or _ROMAN.match(t)):
        printed = t[:m.start(2)].strip() if m.group(2) else t
        return printed, (roman(m.group(1)),), _SEPARATOR.sub("", m.group(2))  # "ARTICLE II - AUTHORITY …"
    if not heading and (m := _ROMAN_LABEL.match(t)) and m.group(1).isupper() and run_in_title(m.group(2)):
        # "ARTICLE I. SCOPE OF STRATEGIC ALLIANCE. A. COOL TECH shall …": a labelled roman article's run-in title
        return t[:m.start(2)].strip(), (roman(m.group(1)),), m.group(2)
    return None


@dataclass
class _Open:
    number: str
    key: tuple[int, ...]
    title: str
    label: str
    start: int
    page: int


def style(number: str) -> tuple[str, bool]:
    """How a number is written: its label word and whether a stop follows ("Section 4." and
    "5." are two numberings: the definitions "5. “Issuer-Represented …”" inside Section 4 are
    no Section 5)."""
    parts = number.split()
    word = parts[0].lower() if len(parts) > 1 else "roman" if number[:1].isalpha() else ""  # "I." and "II." alike
    return word, number.endswith(".")


def titled(rest: str) -> bool:
    """Whether the words after a letter or other label read as a title ("A. Definitions"), not
    as a form's or a list's line ("A. Associated Natural Gas Company, a division of …")."""
    words = rest.split()
    big = [w for w in words if w.lower().strip(";,") not in _SMALL]
    return (bool(big) and len(words) <= TITLE_MAX_WORDS and "," not in rest
            and sum(w[:1].isupper() or not w[:1].isalpha() for w in big) >= 0.75 * len(big))


def build(candidates: list[tuple[int, int, str, bool]], divisions: list[int], text_end: int,
          midline: frozenset[int] = frozenset()) -> list[Section]:
    """The section tree, flattened in document order. candidates: (start, page, text, heading)
    of every heading segment and every sentence segment that opens a line or, at the offsets in
    `midline`, opens a sentence inside one ("… this Agreement. Section 3.2. Prior Written
    Approval. Prior to …": a text run together from lines); divisions: offsets where a division
    (exhibit, schedule, addendum, back matter, contents) closes all sections. A clause inside a
    line opens a section only where it is the very next number: its open parent's first child or
    the next sibling, never a skip (a cross-reference or a list may start a sentence too)."""
    out: list[Section] = []
    stack: list[_Open] = []
    last_child: dict[tuple[int, ...], int] = {}  # parent key -> last child number seen under it
    stated: dict[tuple[int, ...], int] = {}  # parent key -> the last untitled clause's number under it
    div = sorted(divisions)
    d = 0
    inner_letter = "@"  # the last letter of a lettered list inside the open numbered section

    def close(upto: int, end: int) -> None:
        while len(stack) > upto:
            o = stack.pop()
            out.append(Section(o.number, o.key, o.title, o.label, max(1, len(o.key)), o.start, end, o.page))

    pending: list[tuple[int, int, str, bool]] = []  # a first child run in after its parent's title
    queue = iter(candidates)
    while pending or (nxt := next(queue, None)) is not None:
        start, page, text, heading = pending.pop() if pending else nxt
        if heading and not (text := _RULE_TAIL.sub("", text)).strip():
            continue
        while d < len(div) and div[d] <= start:
            close(0, div[d])
            last_child.clear()
            stated.clear()
            d += 1
        if not heading and not _MAY_BE_NUMBERED.match(text):
            continue  # a clause opens no section unless a number or its label starts it: no need to read it
        t = " ".join(text.split())  # flattened once: a candidate is often a whole sentence
        run_in = None if heading else run_in_capitals(t)
        parsed = (run_in[0], run_in[1], run_in[2][len(run_in[0]):].lstrip(" -\u2013\u2014:")) if run_in \
            else _parse_flat(t, heading)
        if parsed is None:
            letter = re.match(r"^([A-Z])\.\s+(.*)$", t)
            opens = heading and (letter is None or titled(letter.group(2)))
            if opens and letter is not None and any(o.key for o in stack) and (
                    letter.group(1) == chr(ord(inner_letter) + 1) or "C" <= letter.group(1) > inner_letter):
                # "A. GUARANTY.", "B. …" inside "3. GUARANTY.": its items, also where the first were run
                # into lines ("16. MISCELLANEOUS. A. ADVERTISING. …" then "C. ARBITRATION." on its own);
                # a "B." with no "A." may be a form's second part
                inner_letter = letter.group(1)
                continue
            if opens:
                # numbered another way ("PART 39—…", "A. Definitions", "§ 3"): it holds what follows
                close(0, start)
                last_child.clear()
                stated.clear()
                label = t
                stack.append(_Open(label, (), label, label, start, page))
            continue
        number, key, rest = parsed
        parent = key[:-1]
        # "5.2" with no open "5": accepted only where 5 is the open top section's number, or none is open,
        # or, in a document whose top sections print no heading of their own ("3.4 Termination for
        # Convenience" then "4.1 Charges"), as the first child heading of one of the next numbers
        if parent and not any(o.key == parent for o in stack) and stack and stack[0].key \
                and stack[0].key[:1] != key[:1] and not (
                    heading and key[-1] == 1 and len(key) == len(stack[0].key) == 2
                    and 0 < key[0] - stack[0].key[0] <= 1 + SECTION_SKIP_MAX):
            continue
        prev = last_child.get(parent, 0)
        if prev and not prev < key[-1] <= prev + 1 + SECTION_SKIP_MAX:
            continue  # numbering that does not go on: a list, a table's rows, a cross-reference line
        if start in midline and run_in is None and (
                key[-1] != prev + 1 or (parent and not any(o.key == parent for o in stack))
                or (not parent and not prev and stack)):
            continue  # ("ARTICLE 12 - DIVIDEND DISTRIBUTIONS" is a heading however it was run in)
        sibling = next((o for o in stack if len(o.key) == len(key) and o.key[:-1] == parent), None)
        if sibling is not None and style(sibling.number) != style(number) and not (
                heading and style(sibling.number)[0] == style(number)[0] and key[-1] == sibling.key[-1] + 1):
            continue  # another numbering than its siblings': a list inside the section (a heading on its own
            # line that only drops or adds the stop and goes on from its sibling is theirs: "3. DELIVERY …", "4 FEES.")
        title = " ".join(rest.split()) if heading or run_in else run_in_title(rest)
        child_after = bool(run_in and _CLAUSE_NUMBER.match(run_in[3]))
        if (heading or not title) and not run_in and (before := title_before_child(key, rest)):
            title = before  # its first child's number ends it
            child_after = not heading
        if heading and _DESIGNATION.match(title):
            continue
        if not heading and not title and not _STATES.search(rest) and stated.get(parent) != key[-1] - 1:
            continue  # a numbered phrase that states nothing ("5. Development of the main pages."): a list's entry
        if heading and title and not title[:1].isalnum() and title[:1] not in "“\"'(":
            continue
        label = (run_in[2] if run_in else f"{number} {title}" if heading and title != " ".join(rest.split())
                 else t if heading else (f"{number} {title}." if title else ""))
        if heading and not title:
            label = ""
        if not label and not any(o.label for o in stack[:sum(1 for o in stack if o.key == key[:len(o.key)])]):
            label = number  # an untitled numbered paragraph with no titled section above it: "2."
        keep = sum(1 for o in stack if o.key == key[:len(o.key)] and len(o.key) < len(key))
        close(keep, start)
        last_child[parent] = key[-1]
        if not heading and not title:
            stated[parent] = key[-1]  # its next sibling is a clause too, whatever its verb ("2. … continue without …")
        for k in [k for k in last_child if k[:len(key)] == key]:
            del last_child[k]  # the new section's children are counted from its first
        stack.append(_Open(number, key, title, label, start, page))
        inner_letter = "@"  # the letter before "A": a lettered list inside the new section starts at A
        if child_after and (m := re.search(rf"(?<![\d.]){re.escape('.'.join(map(str, (*key, 1))))}\.?\s", text)):
            # "9. CONFIDENTIAL INFORMATION 9.1 Confidential Information. 9.1.1 All …": 9.1 opens too
            pending.append((start + m.start(), page, text[m.start():], False))
    close(0, div[d] if d < len(div) else text_end)
    out.sort(key=lambda s: (s.start, s.level))
    return out


def label_changes(sections: list[Section]) -> list[tuple[int, str | None, bool]]:
    """(offset, label, titled) where the label in force changes: the innermost titled section
    open there, else an untitled paragraph's number ("2.", titled False), None outside every
    one. Sections nest, so one sweep over their starts and ends does."""
    events = sorted([(s.start, 1, -s.end, i) for i, s in enumerate(sections)]
                    + [(s.end, 0, 0, i) for i, s in enumerate(sections)])
    stack: list[int] = []
    out: list[tuple[int, str | None, bool]] = []
    for at, opening, _neg_end, i in events:
        if opening:
            stack.append(i)
        elif i in stack:
            stack.remove(i)
        s = next((sections[j] for j in reversed(stack) if sections[j].label), None)
        label, titled = (s.label, s.label != s.number) if s else (None, False)
        if out and out[-1][0] == at:
            out[-1] = (at, label, titled)
        elif not out or out[-1][1] != label:
            out.append((at, label, titled))
    return out


# --- enumerated items inside one sentence ---------------------------------------------------------
# An item's marker set in the running text: "(ii) ", "(B) ", "(3) ", "b) ", "iii. ". A dotted digit is
# a clause number or a decimal ("Section 1. ", "1.5 "), never an inline item.
_INLINE_MARK = re.compile(r"(?<!\S)(\()?([ivxlc]{1,6}|[a-zA-Z]|\d{1,2})([.)])(?=\s)")
_LEAD_END = re.compile(r"(?::|:?\s*[-\u2013\u2014])\s*$")  # "… of the following events:" / "as follows:-"
# What a list needs, in one search: a lead-in's last character (":" or a dash, what _LEAD_END ends
# on), space, then a first item's mark (a token worth 1: "1", "01", "a", "A", "i"; see _values) as
# _INLINE_MARK reads it. A sentence without one has no list; most have none, though many hold a
# hyphen, and are not read mark by mark.
_FIRST_ITEM_AFTER_LEAD = re.compile(r"[:\-\u2013\u2014]\s+\(?(?:0?1|[aAi])[.)](?=\s)")
# "…;", "…, or", "…; and" (";" may be U+037E, the Greek question mark some PDFs map it to)
_ITEM_SEP = re.compile(r"(?:[;,\u037e]|[;,\u037e]?\s+(?:and|or|and/or))\s*$")


def _values(token: str) -> list[tuple[str, int]]:
    """The (kind, value) a marker's token may stand for: "ii" roman 2; "i" roman 1 or letter 9."""
    out: list[tuple[str, int]] = []
    if token.isdigit():
        return [("1", int(token))]
    if token.islower() and set(token) <= set(_ROMAN_VALUES):
        out.append(("i", roman(token)))
    if len(token) == 1:
        out.append(("a" if token.islower() else "A", ord(token.lower()) - 96))
    return out


def item_starts(text: str, start: int = 0, end: int | None = None) -> list[int]:
    """Where the items of an enumerated list set inside one sentence text[start:end] begin: a
    lead-in ending in a colon ("… upon the occurrence of any of the following events:") then
    sibling markers counting up from the first, "(i)", "(ii)", "(iii)", each after the item before
    it ends (";", ",", "; or", ", and"). Each item is a node of its own, read after its lead-in:
    an item quoted whole carries its marker, and the item before it never ends on that marker
    ("… material breach; or (ii"). A marker not after an item's end ("under clause (i) above")
    is a reference and begins nothing; a list without a lead-in colon is left whole."""
    end = len(text) if end is None else end
    if not _FIRST_ITEM_AFTER_LEAD.search(text, start, end):  # no first item after a lead-in: most sentences
        return []
    marks = [(m.start(), m.group(2), (m.group(1) or "") + m.group(3)) for m in _INLINE_MARK.finditer(text, start, end)
             if (m.group(3) == ")" or not (m.group(1) or m.group(2).isdigit()))]
    out: set[int] = set()
    for i, (at, token, style) in enumerate(marks):
        for kind, value in _values(token):
            if value != 1 or at in out or not _LEAD_END.search(text, start, at):
                continue
            chain, want = [at], 2
            for at2, token2, style2 in marks[i + 1:]:
                if style2 == style and (kind, want) in _values(token2) and _ITEM_SEP.search(text, chain[-1], at2):
                    chain.append(at2)
                    want += 1
            if len(chain) >= 2:
                out.update(chain)
                break
    return sorted(out)


def may_hold_lists(text: str) -> bool:
    """Whether any sentence of `text` (a block's text) can hold an enumerated list: one search of
    the whole text for what item_starts needs first. A first item after a lead-in inside a
    sentence is inside the text too, so where this finds none, item_spans cuts no sentence of it."""
    return _FIRST_ITEM_AFTER_LEAD.search(text) is not None


def item_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """text[start:end], one sentence, as its lead-in and the items of the list inside it (item_starts)."""
    cuts = item_starts(text, start, end)
    if not cuts:  # most sentences hold no list
        return [(start, end)]
    return list(zip([start, *cuts], [*cuts, end], strict=True))


# A lettered heading, run in or on its own line: "g. Governing Law and Forum", "a) TERMINATION FOR
# BREACH.", "(b) Obligations." - a marker, then a few words in title case or capitals, no verb.
_LETTERED = re.compile(
    r"^\(?(?:[a-z]|[ivx]{2,4}|[A-Z])[.)]\s+"
    r"(?:[A-Z][\w’'\-]*)(?:\s+(?:[A-Z][\w’'\-]*|of|and|or|the|to|for|in|on|by|with|a|an|&|;|,)){0,7}[.:]?$")

_LETTERED_START = re.compile(r"\s*\(?(?:[a-z]|[ivx]{2,4}|[A-Z])[.)]\s")


def lettered_heading(text: str) -> bool:
    """Whether a line or a run-in sentence is a lettered heading ("g. Governing Law and Forum",
    "a) TERMINATION FOR BREACH.") rather than a list item that states something ("a. Unless
    terminated earlier …", "b) Berkshire represents and warrants to Auriemma that:")."""
    if not _LETTERED_START.match(text):  # what _LETTERED starts with, read before the text is flattened
        return False
    t = " ".join(text.split())
    return bool(_LETTERED.match(t)) and not _LOWER_FINITE.search(t) and len(t.split()) >= 2
