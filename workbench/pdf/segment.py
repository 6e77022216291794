"""Sentence/clause segmentation that never glues a heading onto the next sentence: decide line by
line (a heading is a whole line), then split the remaining text of each block into sentences.
Running headers/footers are left out.

Layout decides what is a heading line (so it is not quoted as a sentence); the section heading a
sentence sits under is stricter: the PDF's outline (table of contents) when it has one, else the
last numbered heading ("14. Miscellaneous", "ARTICLE 2", "3.1 Access Control"). A capitalised
body line ("DISCUSSION"), a table cell or a running footer never names a section."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice
from operator import itemgetter
from typing import TYPE_CHECKING, Literal

from workbench.pdf import structure
from workbench.text import sentence_spans
from workbench.text.sentences import DOT_LEADERS, OPEN_WORDS

if TYPE_CHECKING:
    from workbench.pdf.document import ParsedDocument


@dataclass(frozen=True, slots=True)
class Segment:
    """A sentence or heading of the document: offsets index its text."""

    start: int
    end: int
    page: int
    text: str
    heading: str | None
    kind: Literal["sentence", "heading"]

    def under(self, heading: str | None) -> Segment:
        """The segment under another section heading (dataclasses.replace's result, built
        directly: replace reads the fields anew for each of thousands of segments)."""
        return Segment(self.start, self.end, self.page, self.text, heading, self.kind)

_NUMBERED = re.compile(
    r"^(?:(?:article|section|part|chapter|schedule|exhibit|appendix|annex|title|subpart)\s+[0-9ivxlcdm]+[a-z]?\b"
    r"|§+\s*[0-9]|[0-9]{1,2}(?:\.[0-9]{1,2}){0,3}\.?\s+[A-Z]|[A-Z]\.\s+[A-Z]|[IVX]{1,5}\.\s+[A-Z])",
    re.I,
)
MAX_HEADING_WORDS = 14
# A bare label whose title follows on the next line or block: "ARTICLE 2" / "LICENSES".
# A bare section number on a line of its own, its title on the next line ("2" / "TERM AND RENEWAL").
_BARE_NUMBER = re.compile(r"^\s*(?:[0-9]{1,2}(?:\.[0-9]{1,2}){0,3}\.?|[IVX]{1,5}\.)\s*$")
_LABEL = re.compile(r"^(?:article|section|part|chapter|schedule|exhibit|appendix|annex)\s+[0-9ivxlcdm.]+\s*$", re.I)
# A numbered run-in heading: "2.4 Restrictive Covenants." / "Section 5. Term." — short, title case.
# A title's word: capitalised, maybe joined by "/" or "-" and ending in ";" ("Law;",
# "Continuity/Continuous"), an initialism ("U.S."), or a small word. A comma stays a word of its
# own: attached, it would read a reference ("13. Thein HH, Yi Q, Dore GJ.") as a title.
_TITLE_WORD = r"(?:(?:[A-Z]\.){2,}|[A-Z][\w’'\-/]*;?|of|and|or|the|to|for|in|on|by|with|a|an|&|;|,)"
_RUN_IN = re.compile(
    r"^(?:(?:section|article)\s+)?[0-9]{1,2}(?:\.[0-9]{1,2}){0,3}\.?\s+"
    rf"{_TITLE_WORD}(?:\s+{_TITLE_WORD}){{0,7}}[.:]?(?<=[.:])$",
    re.I,
)

_RUN_IN_START = re.compile(r"\s*(?:[0-9]|section|article)", re.I)  # how a text _RUN_IN matches starts


_SMALL = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "with", "under"}


def _title_case(words: list[str]) -> bool:
    big = [w for w in words if w[0].isalpha() and w.lower() not in _SMALL]
    return bool(big) and all(w[0].isupper() for w in big) and words[0][0].isupper()


_HEIGHT = itemgetter(0)


def body_height(doc: ParsedDocument) -> float:
    """The line height of the body text: the median over characters, not over lines, so pages of
    short small-print lines (the IRS instructions' tax tables) do not make the body's own size
    read as a heading's. Lines over 1.6 times the median line (tall formula lines in lecture
    notes, display type) are left out of it."""
    line_heights = [ln.y1 - ln.y0 for ln in doc.lines]  # once, read twice
    heights = sorted(line_heights)
    if not heights:
        return 0.0
    cap = 1.6 * heights[len(heights) // 2]
    by_height = [(h, ln.end - ln.start) for h, ln in zip(line_heights, doc.lines, strict=True) if h <= cap]
    # by height alone (a NaN is never <= cap): the height where the count reaches half is the same
    # whatever order lines of one height are counted in, and tuples compare slower than floats
    by_height.sort(key=_HEIGHT)
    half, acc = sum([n for _h, n in by_height]) / 2, 0
    for h, n in by_height:
        acc += n
        if acc >= half:
            return h
    return heights[len(heights) // 2]


def _is_heading(text: str, height: float, body: float, prev_ends: bool, alone: bool = False) -> bool:
    if len(text) > 120 or not prev_ends:  # before the split: most lines of a page stop here
        return False
    words = text.split()
    if not words or len(words) > MAX_HEADING_WORDS:
        return False
    if not any(map(str.isalpha, text)) or text.rstrip()[-1] in ",;":
        return False
    if text[0] in "•·▪◦●■➢✓□–—-*":  # a bullet's taller glyph is no heading's type size
        return False
    if structure.lettered_heading(text) and len(words) > 2:  # "g. Governing Law and Forum" on its own line
        return True
    if text[0].islower():
        return False
    # a sentence's end past six words makes a sentence - unless a numbered line in capitals has no
    # verb ("18. SPECIAL CONDITIONS IN CONNECTION WITH DEFRA AGREEMENT NF 0426.")
    ends_sentence = text.rstrip()[-1] in ".!?:" and len(words) > 6 \
        and not (_NUMBERED.match(text) and _capitals(text) and not _CLAUSE_VERB.search(text))
    if ends_sentence:
        return False
    if height >= body * 1.18:
        return True
    if alone and len(words) <= 10 and text.rstrip()[-1] not in ".,;:" and _title_case(words):
        return True  # a short Title Case line standing as its own block ("Emergency Order of Prohibition")
    letters = list(filter(str.isalpha, text))  # not empty: a line without a letter returned above
    if len(letters) >= 4 and sum(map(str.isupper, letters)) / len(letters) >= 0.8:
        return True
    if _NUMBERED.match(text) and height >= body * 0.95:  # smaller print: a numbered footnote
        rest = [w for w in words[1:] if w[0].isalpha()]
        titled = sum(w[0].isupper() for w in rest) >= 0.6 * len(rest) if rest else True
        return titled
    return False


# An entry a converter named after its source file ("htmldoc797.html") names no section.
_FILE_NAME = re.compile(r"^\S+\.(?:s?html?|xhtml|pdf|docx?|odt|rtf|txt|xml|tex|md)$", re.IGNORECASE)


def _outline(doc: ParsedDocument) -> list[tuple[int, str]]:
    """(offset, title) of the PDF outline's entries, found on their pages; [] without an outline."""
    from workbench.pdf.mupdf import mupdf

    if doc.no_outline:  # open_pdf saw no /Outlines in the catalog: opening the bytes again finds none
        return []
    try:
        with mupdf().open(stream=doc.pdf_bytes, filetype="pdf") as pdf:
            toc = pdf.get_toc(simple=True)
    except Exception:  # noqa: BLE001 - an unreadable outline is no outline
        return []
    out: list[tuple[int, str]] = []
    for _level, title, page in toc:
        title = " ".join(str(title).split())
        if not title or not 1 <= page <= len(doc.pages) or _FILE_NAME.match(title):
            continue
        pg = doc.pages[page - 1]
        pat = re.compile(r"\s+".join(re.escape(w) for w in title.split()), re.IGNORECASE)
        m = pat.search(doc.text, pg.start, pg.end)
        out.append((m.start() if m else pg.start, title))
    out.sort(key=lambda t: t[0])
    return out


def run_in_heading(text: str) -> bool:
    """A numbered run-in heading ("2.4 Restrictive Covenants.", "15.3 Applicable law."), not a
    short numbered sentence: no modal or auxiliary verb in lower case, and no "that:" introducing
    what follows ("1.4 Each SCHEDULE will at least contain the following:", "4. You have Part B
    benefits."). A title capitalises its verbs ("1.4 Limits on Where You May Operate.")."""
    if not _RUN_IN_START.match(text):  # what _RUN_IN starts with, read before the text is flattened
        return False
    t = " ".join(text.split()).replace("\u037e", ";")  # some PDFs map ";" to the Greek question mark
    return bool(_RUN_IN.match(t)) and not _LOWER_FINITE.search(t) and not t.endswith("that:")


_LOWER_FINITE = re.compile(r"\b(?:must|shall|should|may|will|can|cannot|is|are|was|were|has|have|does|do|be)\b")


def _numbered(text: str) -> bool:
    t = " ".join(text.split())
    return bool(_NUMBERED.match(t) or run_in_heading(t) or _LABEL.match(t))


# A heading that opens a part of its own after the body: "ADDENDUM TO … FRANCHISE DISCLOSURE
# DOCUMENT" / "FOR THE STATE OF CALIFORNIA", "EXHIBIT B", "Schedule 2 - Fees". Unnumbered or
# lettered, it still ends the last numbered section: the addendum is not clause 27.7.
_DIVISION = re.compile(r"^(?:addendum|addenda|amendments?|exhibits?|schedules?|appendix|appendices|annex(?:es)?|"
                       r"attachments?|riders?)\b", re.I)  # "AMENDMENTS TO COMMERCIAL LICENSE AGREEMENT AND …"
DIVISION_MAX_WORDS = 20


def _division(doc: ParsedDocument, segs: list[Segment], i: int) -> str | None:
    """The title of the division heading segs[i] opens, with the heading lines right after it on
    its page ("… FRANCHISE DISCLOSURE DOCUMENT", "FOR THE STATE OF CALIFORNIA"), or None."""
    if segs[i].kind != "heading" or not _DIVISION.match(segs[i].text.lstrip()):
        return None
    words = segs[i].text.split()
    for a, b in zip(segs[i:-1], segs[i + 1:], strict=True):
        more = b.text.split()
        if (b.kind != "heading" or b.page != a.page or doc.text[a.end:b.start].strip() or _numbered(b.text)
                or _DIVISION.match(b.text.lstrip()) or len(words) + len(more) > DIVISION_MAX_WORDS):
            break
        words += more
    return " ".join(words)


# A paper's unnumbered front and back matter: it ends the numbered section before it ("Kiyoshi
# Sudo, Satoshi Sekine, and Ralph Grishman." sat under "5 Conclusion", and the conclusion question
# was offered the bibliography). A "References" heading counts only where entries follow.
_MATTER = re.compile(r"^\W*(?:abstract|acknowledge?ments?|references|bibliography|works\s+cited|literature\s+cited)\W*$",
                     re.I)
_SOURCES = re.compile(r"^\W*(?:references|bibliography|works\s+cited|literature\s+cited)\W*$", re.I)
_ENTRY = re.compile(r"\b(?:1[89]|20)\d\d[a-z]?\b|^\s*\[\d{1,3}\]")  # a year, or an entry's "[12]"
MATTER_LOOKAHEAD = 6  # segments after a "References" heading read for entries (years, "[12]")


def _matter(segs: list[Segment], i: int, numbered_yet: bool) -> str | None:
    """The title of the front or back matter heading segs[i] opens ("Abstract" only before the
    first numbered heading; "References" only over entries: years, "[12]"), or None."""
    sg = segs[i]
    if sg.kind != "heading" or not _MATTER.match(sg.text):
        return None
    title = " ".join(sg.text.split())
    if title.strip(" .:").lower() == "abstract" and numbered_yet:
        return None
    if _SOURCES.match(title):
        after = segs[i + 1:i + 1 + MATTER_LOOKAHEAD]  # entries too may read as title-case heading lines
        if sum(bool(_ENTRY.search(s.text)) for s in after) < 2:
            return None
    return title


_CONTENTS = re.compile(r"^\W*(?:table\s+of\s+)?contents\W*$", re.I)
# "TABLE OF CONTENTS Page ARTICLE 1 SALE AND PURCHASE 1": the title run into its first entries,
# possibly after a page's running header on the same line ("Execution version TABLE OF CONTENTS").
_CONTENTS_RUN_IN = re.compile(r"^\W*(?:\S+\s+){0,3}?TABLE\s+OF\s+CONTENTS\b")
CONTENTS_LINK_PAGES = 2  # a contents title on more pages than this and than half the document's: a running link
CONTENTS_ENTRY_MAX_WORDS = 6  # a line of a contents page that is no heading: a page number, a short title


def _contents_entry(sg: Segment) -> bool:
    """Whether a segment may be a line of a contents page: a heading, a short entry, one with dot
    leaders, a title that ends without a stop ("Section 4.01 Representations, Warranties and
    Agreements of the Company"), or entries run together that end on a page number ("13.1 Term 15
    13.2 Termination 16"); a body sentence ends in a stop."""
    words = sg.text.split()
    return (sg.kind == "heading" or len(words) <= CONTENTS_ENTRY_MAX_WORDS or bool(DOT_LEADERS.search(sg.text))
            or (len(words) <= MAX_HEADING_WORDS and sg.text.rstrip()[-1:] not in ".;:!?,")
            or bool(_ENDS_ON_PAGE_NUMBER.search(sg.text)) or len(_PAGE_THEN_ENTRY.findall(sg.text)) >= 2)


_ENDS_ON_PAGE_NUMBER = re.compile(r"(?:[^\W\d_]|[)\]])\s+\d{1,3}\s*$")  # "… Business Continuity 17", "[* * *] 3"
_PAGE_THEN_ENTRY = re.compile(r"(?:[^\W\d_]|[)\]])\s+\d{1,3}\s+\d{1,2}\.\d")  # "Governing Law 21 14.4 …"


def _contents_segments(segs: list[Segment]) -> set[int]:
    """The segments of a table of contents (indexes into segs): those before a "Contents" heading
    on its page (the document's title), then the entries after it, over as many pages as they run,
    up to the body: two segments in a row that are no entries (one alone, a page's notice, does
    not end them)."""
    heads = [i for i, sg in enumerate(segs)  # "TABLE" read first: _CONTENTS_RUN_IN needs it, most segments lack it
             if (sg.kind == "heading" and _CONTENTS.match(sg.text)) or ("TABLE" in sg.text and _CONTENTS_RUN_IN.match(sg.text))]
    pages: dict[str, set[int]] = {}
    for i in heads:
        pages.setdefault(" ".join(segs[i].text.lower().split()), set()).add(segs[i].page)
    link = max(CONTENTS_LINK_PAGES, len({sg.page for sg in segs}) // 2)
    out: set[int] = set()
    for i in heads:
        sg = segs[i]
        if i in out or len(pages[" ".join(sg.text.lower().split())]) > link:
            continue  # a filing's "Table of Contents" link atop every page is no contents
        out.update(k for k in range(i) if segs[k].page == sg.page)
        last = i
        for k in range(i + 1, len(segs)):
            if _contents_entry(segs[k]):
                last = k
            elif k > last + 1:
                break
        out.update(range(i, last + 1))
    return out


def _section_headings(doc: ParsedDocument, segs: list[Segment]) -> tuple[list[Segment], list[structure.Section]]:
    """Each segment with the section heading it sits under, and the section tree. With an
    outline, the outline's entries; else the innermost titled numbered section that holds it
    (workbench.pdf.structure), and after a division that ends them (an addendum, an exhibit, a
    schedule, a paper's abstract, acknowledgements and references) the division's title. A table
    of contents lists the headings and sits under none of them: its last entry ("57 EXHIBIT H")
    named the preamble and recitals after it."""
    outline = _outline(doc)
    if outline:
        return _outline_headings(segs, outline), []
    contents = _contents_segments(segs)
    text = doc.text
    candidates: list[tuple[int, int, str, bool]] = []
    midline: set[int] = set()  # candidates that open a sentence inside a line
    divisions: list[int] = []
    titles: dict[int, str] = {}  # division start -> its title
    numbered_yet = False
    body_yet = False  # a sentence seen: a division heading before any is the document's own title
    for i, sg in enumerate(segs):
        if i in contents:
            if not divisions or divisions[-1] != sg.start:
                divisions.append(sg.start)
            titles[sg.start] = ""
        elif sg.kind == "heading" and (title := _division(doc, segs, i) or _matter(segs, i, numbered_yet)) is not None:
            if body_yet or title == _matter(segs, i, numbered_yet):
                divisions.append(sg.start)
                titles[sg.start] = title
        elif _CLOSING.match(sg.text) and (sg.start == 0 or text[sg.start - 1] == "\n" or _WITNESS.match(sg.text)):
            divisions.append(sg.start)  # the testimonium and signatures end the last section
            titles[sg.start] = ""
        elif sg.kind == "heading":
            if _numbered(sg.text) and not _LOWER_LETTERED.match(sg.text):  # "g. Governing Law" is an item's title
                numbered_yet = True
                candidates.append((sg.start, sg.page, sg.text, True))
        elif sg.start == 0 or text[sg.start - 1] == "\n":  # a clause opening its line: "5.2 The Company …"
            candidates.append((sg.start, sg.page, sg.text, False))
        elif sg.kind == "sentence" and sg.text[:1].isalnum():  # one opening a sentence inside a line
            candidates.append((sg.start, sg.page, sg.text, False))
            midline.add(sg.start)
        body_yet = body_yet or sg.kind == "sentence"
    sections = structure.build(candidates, divisions, len(text), frozenset(midline))
    changes = structure.label_changes(sections)
    out: list[Segment] = []
    k = d = 0
    label: str | None = None
    titled = False
    division: str | None = None
    for i, sg in enumerate(segs):
        while k < len(changes) and changes[k][0] <= sg.start:
            _at, label, titled = changes[k]
            k += 1
        while d < len(divisions) and divisions[d] <= sg.start:
            division = titles[divisions[d]] or None
            d += 1
        # a division's title names its untitled paragraphs ("ADDENDUM … FOR THE STATE OF CALIFORNIA", not "4.")
        current = None if i in contents else (label if titled or not division else division)
        out.append(sg if sg.heading == current else sg.under(current))
    return out, sections


# A heading lettered in lower case or in brackets ("g. Governing Law and Forum", "a) TERMINATION FOR
# BREACH.") titles an item of the section it sits in, and opens no section of the tree.
_LOWER_LETTERED = re.compile(r"^\s*(?:\(?[a-z]{1,4}[.)]|\([A-Z]\)|[A-Z]\))\s")


# The testimonium ("IN WITNESS WHEREOF, the parties …") and the signature blocks after it are in
# no numbered section: Berkshire's signature was labelled "27. ARBITRATION".
# The testimonium ends the last section even where it runs on from the clause before, inside a line.
_WITNESS = re.compile(r"^\s*in\s+witness\s+where(?:of|for)\b", re.I)
_CLOSING = re.compile(r"^\s*(?:in\s+witness\s+where(?:of|for)|agreed\s+(?:to\s+)?and\s+accepted|accepted\s+and\s+agreed)\b",
                      re.I)


def _outline_headings(segs: list[Segment], outline: list[tuple[int, str]]) -> list[Segment]:
    """Each segment under the PDF outline's entry in force at its start."""
    out: list[Segment] = []
    current: str | None = None
    k = 0
    for i, sg in enumerate(segs):
        while k < len(outline) and outline[k][0] <= sg.start:
            current = outline[k][1]
            k += 1
        if _SOURCES.match(sg.text) and (title := _matter(segs, i, True)) is not None:
            current = title  # an outline that stops at its last section: Qwen2's REFERENCES
        out.append(sg if sg.heading == current else sg.under(current))
    return out


# Words that open a sentence; one in capitals right after a label with no stop between says the
# label was a run-in heading set on the paragraph's first line.
_OPENERS = frozenset({
    "The", "This", "These", "That", "Those", "We", "Our", "In", "For", "To", "It", "Its", "An", "As", "On",
    "With", "By", "Each", "All", "Any", "If", "When", "Specifically", "However", "Moreover", "Additionally",
    "Finally", "Furthermore", "Notably", "Meanwhile", "Here", "There", "Unlike", "Although", "While", "Since",
    "Because", "After", "Before", "During", "Given", "Following", "Using", "Compared", "Similarly", "Overall",
    "Thus", "Hence", "Therefore", "Instead", "Recently", "Currently", "Typically", "Generally", "Both", "Most",
    "Many", "Several", "Some", "Such", "You", "Your", "They", "Their",
})
_FINITE = re.compile(r"\b(?:must|shall|should|may|will|can|cannot|is|are|was|were|has|have|does|do|be)\b", re.I)
RUN_IN_MAX_WORDS = 10
_NON_SPACE = re.compile(r"\S+")


def run_in_label(text: str) -> int:
    """Length of an unnumbered run-in heading opening `text` ("Dual Chunk Attention with YARN",
    "Execution Feedback" before "For coding tasks, …"), else 0: at most 10 words in title case
    or capitals, no stop, no verb, not ending on a word a phrase goes on from, then a word that
    opens sentences, capitalised. A number or an enumerator alone is an item's mark, not a label."""
    # the words read are the first RUN_IN_MAX_WORDS + 7 at most (a label, its opener, six after it),
    # and the bound on k below is the same with them as with all of a long sentence's words; split
    # cuts at the characters \S+ does (both str.isspace's), without a match object a word
    words = text.split(None, RUN_IN_MAX_WORDS + 8)[:RUN_IN_MAX_WORDS + 8]
    for k in range(1, min(RUN_IN_MAX_WORDS + 1, len(words) - 3)):
        if words[k].rstrip(",") not in _OPENERS:
            continue
        label = words[:k]
        if (any(w[-1] in ".:;!?,)" for w in label) or _FINITE.search(" ".join(label))
                or label[-1].lower() in OPEN_WORDS or not any(c.isalpha() for c in "".join(label))
                or any(re.fullmatch(r"[\d.()]+|[A-Za-z]", w) for w in label)):
            return 0
        rest = words[k + 1:k + 7]
        if (sum(w[:1].isupper() or w[:1].isdigit() for w in label) < 0.6 * len(label) or not label[0][:1].isupper()
                or sum(w[:1].isupper() for w in rest) > len(rest) / 2  # a title: "Secure Your Tax Records from …"
                or (k == 1 and not re.search(r"[\d\-:]", label[0]))):  # one plain word: "Sei", "Expatriation"
            return 0
        return next(islice(_NON_SPACE.finditer(text), k - 1, None)).end()  # where the label's last word ends
    return 0


def segment(doc: ParsedDocument) -> list[Segment]:
    return segment_and_sections(doc)[0]


def segment_and_sections(doc: ParsedDocument) -> tuple[list[Segment], list[structure.Section]]:
    """The segments, each with its section heading, and the numbered sections they sit in."""
    return _section_headings(doc, _items_among_items(_rejoin(doc, _segment(doc))))


# Run-in labels of a list item or a worksheet row, never a section's title ("2. Note. If you completed …")
_LABELS = frozenset(["note", "notes", "example", "examples", "caution", "tip", "warning", "exception", "exceptions"])
_ITEM_NUMBER = re.compile(r"^\s*(\d{1,2}(?:\.\d{1,2}){0,2})\.?\s+\S")
SIBLINGS_NEAR = 10  # segments looked at on each side for a numbered line's neighbours in its list


def _items_among_items(segs: list[Segment]) -> list[Segment]:
    """A numbered line that reads as a heading ("5. Your income from the property.", "3. You claim
    an International Social" cut by its column's line end) is a list item when an item next to it
    in the same list (one or two numbers before or after: "4. A description of any substantial
    improvements …") is a sentence of its own: a section's siblings are sections. A numbered title in capitals or title case
    stays a heading ("8. LIABILITY", "4.4.4 Feasibility"), and so does one whose sibling opens with
    a run-in title ("9. Term. This Agreement …")."""
    out = list(segs)
    for i, sg in enumerate(segs):
        m = _ITEM_NUMBER.match(sg.text)
        if sg.kind != "heading" or m is None:
            continue
        title = sg.text[m.end() - 1:]
        if _capitals(sg.text) or (
                _title_case(title.split()) and title.strip(" .:").lower() not in _LABELS):
            continue
        *parent, last = m.group(1).split(".")
        near = [*segs[max(0, i - SIBLINGS_NEAR):i], *segs[i + 1:i + 1 + SIBLINGS_NEAR]]
        for n in (int(last) - 1, int(last) + 1, int(last) - 2, int(last) + 2):
            mark = ".".join([*parent, str(n)])
            if n > 0 and any(o.kind == "sentence" and abs(o.page - sg.page) <= 1 and _opens_item(o.text, mark)
                             for o in near):
                out[i] = Segment(sg.start, sg.end, sg.page, sg.text, sg.heading, "sentence")
                break
    return out


def _opens_item(text: str, mark: str) -> bool:
    """Whether `text` is the list item numbered `mark` stated as a sentence, not a run-in title
    with its paragraph ("9. Term. This Agreement …")."""
    m = re.match(re.escape(mark) + r"\.?\s+(.*)", text.strip(), re.S)
    if m is None:
        return False
    title = re.match(r"([^.]{1,80})\.\s", m.group(1))
    return not (title and run_in_heading(f"{mark}. {title.group(1)}."))


# Words a sentence does not end on: a block that ends on one ("… would not be enforced as written
# under" | page footer | "Texas law, then …") goes on in the next block.
_GOES_ON = OPEN_WORDS | {"and", "or", "nor", "but", "shall", "must", "may", "will", "would", "should", "can", "could", "is",
                          "are", "be", "been", "was", "were", "has", "have"}
_ITEM_START = re.compile(r"^\s*(?:\(?(?:\d+(?:\.\d+)*|[a-zA-Z]|[ivxlcIVXLC]{1,6})[.)]\s|[•·▪◦●■–-]|o\s)")  # "o ": a Wingdings bullet read as a letter
REJOIN_MIN_WORDS = 5  # a shorter block end is a table cell or a label, not a sentence going on
# The next item's marker after an item's end, with its item on the next page or block: the marker
# goes with its item, and the sentence runs on into the block that holds it.
_MARK_AT_END = re.compile(r"(?:[;:,\u037e]|\b(?:and|or))\s+\(?(?:[ivxlc]{1,6}|[a-zA-Z]|\d{1,2})[.)]$")
_MARK_ENDS = (".", ")", ".\n", ")\n")  # how a text _MARK_AT_END finds anything in ends
_ITEM_END_AND_OR = re.compile(r"[;\u037e]\s*(?:and|or)$")
_AND_OR_ENDS = ("and", "or", "and\n", "or\n")  # … and _ITEM_END_AND_OR's


def _mark_at_end(a: str) -> bool:
    """_MARK_AT_END.search(a), searched from where a match can start, not from a's first character
    (a is a whole sentence). A match ends on "." or ")" at the end ($: or before a last newline);
    its mark ("(", a token of up to 6, the stop) lies in the last 9 characters, the space before the
    mark runs back from there, and the separator before that is 3 characters at most ("and")."""
    if not a.endswith(_MARK_ENDS):
        return False
    i = max(0, len(a) - 9)
    while i > 0 and a[i - 1].isspace():
        i -= 1
    return _MARK_AT_END.search(a, max(0, i - 3)) is not None  # \b still sees the character before


def _words_at_least(text: str, n: int) -> bool:
    """len(text.split()) >= n, splitting off n words at most (a sentence before a break is often
    long): with maxsplit n - 1 the split gives min(words, n) pieces."""
    return len(text.split(None, n - 1)) >= n


def _goes_on(a: str, b: str) -> bool:
    """Whether the sentence ending block text `a` runs on into `b`, the next block's first
    sentence: `a` ends without a sentence end, on a comma or a word no sentence ends on, or `b`
    opens in lower case; `b` is not a list item. After a closing bracket it goes on only into a
    lower-case line of running text ("twenty (20)" | "days from the date …"). A list item ending "; and" is followed by the
    next item, and a hyphen goes on only into a lower-case word ("arti-" | "Unrestricted …" is
    the next column's paragraph)."""
    a = a.rstrip().rstrip("\"'\u201d\u2019")  # '… entitled “Infringement,”' ends on its comma
    if _mark_at_end(a) and _words_at_least(a, REJOIN_MIN_WORDS):
        return b[:1].isalpha()  # "… outside the Ono Territory, or (ii)" | page break | "against Third Party …"
    if not a or a[-1] in ".!?:;\u037e" or not _words_at_least(a, REJOIN_MIN_WORDS):
        return False
    if not b[:1].isalpha() or _ITEM_START.match(b):
        return False
    if a[-1] in ")]":  # "… within twenty (20)" | "days from the date …": a bracket ends no sentence,
        # but a glossary's "[44 USC 3552]" | "information system" and a table's "(Long distance)" |
        # "included" end an entry: the next line must read as running text
        return b[:1].islower() and len(b.split("\n", 1)[0].split()) >= REJOIN_MIN_WORDS
    if a.endswith(_AND_OR_ENDS) and _ITEM_END_AND_OR.search(a):  # a list item's end (";" may be U+037E): the next item follows
        return False
    if a[-1] in "-\u2013":  # a word broken over the break goes on in lower case
        return b[:1].islower()
    return a[-1] == "," or a.rsplit(None, 1)[-1].lower() in _GOES_ON or b[:1].islower()


# Nothing, or a rule drawn in text ("______" under NIST SP 800-171's running header): no bullet, no word.
_BLANK_OR_RULE = re.compile(r"\s*(?:[_=\-\u2013\u2014]{5,}\s*)*")


def _rejoin(doc: ParsedDocument, segs: list[Segment]) -> list[Segment]:
    """One sentence where a block, column or page break cut it in two, with only furniture
    (a running footer, a page number, a rule) or nothing between the halves. Its text then holds that
    footer (the text is the document's own, offsets index it); answers leave it out."""
    out: list[Segment] = []
    text = doc.text
    for seg in segs:
        prev = out[-1] if out else None
        if (prev is not None and prev.kind == "sentence" and seg.kind == "sentence" and seg.page - prev.page in (0, 1)
                and _goes_on(prev.text, seg.text)
                and all(_BLANK_OR_RULE.fullmatch(text[a:b]) for a, b in doc.without_furniture(prev.end, seg.start))):
            out[-1] = Segment(prev.start, seg.end, prev.page, text[prev.start:seg.end], prev.heading, "sentence")
        else:
            out.append(seg)
    return out


# A lower-case line that opens an enumerated item ("a) …", "ii. …"), not a sentence's continuation.
_LOWER_ITEM = re.compile(r"^[a-z]{1,4}[.)]\s")
_ROMAN_PAGE = re.compile(r"^[ivxlc]+\s*$")  # a contents line's page number ("GLOSSARY" / "xii")


def _sentence_goes_on(doc: ParsedDocument, furniture: set[int] | frozenset[int], i: int, body: float) -> bool:
    """Whether body-size line i is a paragraph's first line: the next line of its block carries
    its sentence on in lower case. "Title 49 of the United States Code" / "specifies the FAA's
    authority …" looks like a numbered heading and is not one. A small margin label ("CAUTION")
    read inside a paragraph stays apart from it, and a display title wraps its lower-case words
    onto the next line ("Guidelines for the care and treatment of persons" / "diagnosed with
    chronic hepatitis C") and stays a heading."""
    ln = doc.lines[i]
    if not body * 0.95 <= ln.y1 - ln.y0 < body * 1.18:
        return False
    for j in range(i + 1, len(doc.lines)):
        if j in furniture:
            continue
        nxt = doc.lines[j]
        if (nxt.page, nxt.block) != (ln.page, ln.block):
            return False
        t = doc.text[nxt.start:nxt.end].lstrip()
        return bool(re.match(r"[a-z]", t)) and not _LOWER_ITEM.match(t) and not _ROMAN_PAGE.match(t)
    return False


# What makes a line of capitals a clause, not a title: a verb a clause turns on, or a sentence
# ending inside the line ("4.3 LIMITATION OF LIABILITY. EXCEPT FOR …").
_CLAUSE_VERB = re.compile(r"\b(?:SHALL|WILL|MAY|MUST|SHOULD|CANNOT|WOULD|COULD|IS|ARE|WAS|WERE|BE|BEEN|HAS|HAVE|"
                          r"HEREBY|DOES|DO)\b")
_STOP_INSIDE = re.compile(r"[A-Za-z\])]{2}[.;]\s+\S+\s+\S")
CAPITALS_CLAUSE_MIN_WORDS = 6


def _clause_in_capitals(doc: ParsedDocument, furniture: set[int] | frozenset[int], i: int, body: float) -> bool:
    """Whether body-size line i, set in capitals, is the first line of a paragraph in capitals
    (a disclaimer, a limitation of liability) and not a heading: the next line goes on in
    capitals, and the two read as a clause (a verb such as SHALL or ARE, a sentence ending
    inside, a last word no sentence ends on) or run past a heading's length. "IN NO EVENT SHALL
    EITHER PARTY BE LIABLE" as a heading cut the clause in two; "ADDENDUM TO THE FRANCHISE
    AGREEMENT" / "FOR THE STATE OF CALIFORNIA" reads as no clause and stays a heading."""
    ln = doc.lines[i]
    if not body * 0.95 <= ln.y1 - ln.y0 < body * 1.18:
        return False
    t = doc.text[ln.start:ln.end].strip()
    words = t.split()
    if len(words) < CAPITALS_CLAUSE_MIN_WORDS or not (_capitals(t) or _STOP_INSIDE.search(t)):
        return False  # capitals, or a run-in title before them ("8.2 No Consequential Damages. EXCEPT …")
    ends_open = words[-1].lower() in _GOES_ON
    for j in range(i + 1, len(doc.lines)):
        if j in furniture:
            continue
        nxt = doc.lines[j]
        # the next line of the block; across blocks only when no sentence can end on this line's
        # last word ("(vi) VENDOR IS HEREBY WARNED … THAT" | "EXPOSURE TO CHEMICALS MAY OCCUR …")
        if nxt.page != ln.page or (nxt.block != ln.block and not ends_open):
            return False
        n = doc.text[nxt.start:nxt.end].strip()
        if not re.match(r"[A-Za-z\"“$]", n) or _ITEM_START.match(n) or not _capitals(n):
            return False
        both = f"{t} {n}"
        return bool(ends_open or _CLAUSE_VERB.search(both) or _STOP_INSIDE.search(both)
                    or len(both.split()) > MAX_HEADING_WORDS)
    return False


def _opens_paragraph(line: str) -> bool:
    """A run-in title and the first words of its paragraph on one line ("8.2 HDI Obligations. All
    Confidential Information of the", "12. Sale … Prohibited. No Joint"): a stop inside, and a last
    word no heading ends on or, after a title's stop, a word a sentence opens with and no title does."""
    words = line.split()
    stop = _STOP_INSIDE.search(line)
    if not words or stop is None:
        return False
    after = line[stop.start() + 3:].split()  # the words after the stop
    return words[-1].lower() in OPEN_WORDS or (  # "Prohibited. No …" (not "Part II. The Offering")
        line[stop.start() + 1].islower() and bool(after) and after[0].lower() in OPEN_WORDS)


def _capitals(text: str) -> bool:
    letters = list(filter(str.isalpha, text))
    return bool(letters) and sum(map(str.isupper, letters)) >= 0.8 * len(letters)


_ALNUM = re.compile(r"[^\W_]")  # str.isalnum's characters, as the re module reads \w (less the underscore)


def _segment(doc: ParsedDocument) -> list[Segment]:
    body = body_height(doc)
    furniture = doc.furniture
    line_x = doc.line_x()
    out: list[Segment] = []
    heading: str | None = None
    text = doc.text

    def flush(start: int | None, end: int) -> None:
        nonlocal heading
        if start is None:
            return
        chunk = text[start:end]
        page = doc.page_at(start)  # a chunk lies in one block, on one page
        # sentences, and an enumerated list inside one read as its lead-in and items (structure.item_starts)
        pieces = [piece for a, b in sentence_spans(chunk) for piece in structure.item_spans(chunk, a, b)] \
            if structure.may_hold_lists(chunk) else sentence_spans(chunk)
        for n, (a, b) in enumerate(pieces):
            s, e = start + a, start + b
            while e > s and text[e - 1].isspace():
                e -= 1
            while s < e and (text[s].isspace() or text[s] in "•·▪"):  # bullets are not quoted
                s += 1
            piece = text[s:e]
            if e <= s or not _ALNUM.search(piece):  # "[***]", "•": nothing to quote
                continue
            at_line_start = s == start or text[s - 1] == "\n"
            if at_line_start and (run_in_heading(piece) or (  # "2.4 Restrictive Covenants." opening a paragraph
                    # "a) TERMINATION FOR BREACH. Either Party …", "(b) Obligations." over its paragraph
                    structure.lettered_heading(piece) and (n + 1 < len(pieces) or len(piece.split()) > 2))):
                heading = " ".join(piece.split())
                out.append(Segment(s, e, page, piece, heading, "heading"))
            elif n == 0 and (k := run_in_label(piece)):  # "Dual Chunk Attention with YARN To expand …"
                out.append(Segment(s, s + k, page, text[s:s + k], heading, "heading"))
                b = s + k + len(text[s + k:e]) - len(text[s + k:e].lstrip())
                out.append(Segment(b, e, page, text[b:e], heading, "sentence"))
            else:
                out.append(Segment(s, e, page, piece, heading, "sentence"))

    body_start: int | None = None
    body_end = 0
    prev_key: tuple[int, int] | None = None
    prev_ends = True
    pending_number = None  # a bare section number line waiting to see if a title follows
    block_lines: dict[tuple[int, int], int] = {}
    for ln in doc.lines:
        block_lines[(ln.page, ln.block)] = block_lines.get((ln.page, ln.block), 0) + 1
    for i, ln in enumerate(doc.lines):
        if i in furniture:
            continue
        blk = (ln.page, ln.block)
        if blk != prev_key:  # a new block ends the sentence run of the previous one
            flush(body_start, body_end)
            body_start = None
            prev_ends = True
            prev_key = blk
        lt = text[ln.start:ln.end]
        x0, x1 = line_x[i]
        width = x1 - x0
        vertical = ln.y1 - ln.y0 > 2 * width  # side text rotated 90°: tall boxes, not a big font
        alone = block_lines[blk] == 1
        number, pending_number = pending_number, None
        if (number is not None and (number.page, number.block) == blk and not vertical
                and not _BARE_NUMBER.match(lt)
                and _is_heading(lt, ln.y1 - ln.y0, body, True, alone or block_lines[blk] == 2)  # "1" / "Background"
                and not _clause_in_capitals(doc, furniture, i, body)):
            heading = " ".join(text[number.start:ln.end].split())  # "2" / "TERM AND RENEWAL": one heading
            out.append(Segment(number.start, ln.end, number.page, text[number.start:ln.end], heading, "heading"))
            prev_ends = True
            continue
        if number is not None:  # no title follows: the number opens a body line after all
            if (number.page, number.block) == blk:
                body_start, body_end, prev_ends = number.start, number.end, False
            else:
                flush(number.start, number.end)
        if prev_ends and not alone and _BARE_NUMBER.match(lt):
            flush(body_start, body_end)  # a section number alone on its line: a heading's, if a title follows
            body_start = None
            pending_number = ln
            continue
        if prev_ends and not vertical and _is_heading(lt, ln.y1 - ln.y0, body, True, alone) and not _opens_paragraph(lt) \
                and not _sentence_goes_on(doc, furniture, i, body) and not _clause_in_capitals(doc, furniture, i, body):
            flush(body_start, body_end)
            body_start = None
            prev_h = out[-1] if out and out[-1].kind == "heading" else None
            if (prev_h is not None and prev_h.page == ln.page and not text[prev_h.end:ln.start].strip()
                    and (prev_h.end + 1 == ln.start or _LABEL.match(prev_h.text))):
                prev = out.pop()  # a heading wrapped over two lines ("ARTICLE 1" / "DEFINITIONS")
                heading = " ".join(text[prev.start:ln.end].split())
                out.append(Segment(prev.start, ln.end, prev.page, text[prev.start:ln.end], heading, "heading"))
            else:
                heading = lt.strip()
                out.append(Segment(ln.start, ln.end, ln.page, lt, heading, "heading"))
            prev_ends = True
            continue
        if body_start is None:
            body_start = ln.start
        body_end = ln.end
        prev_ends = lt.rstrip()[-1:] in ".!?:;" if lt.strip() else True
    if pending_number is not None:
        flush(pending_number.start, pending_number.end)
    flush(body_start, body_end)
    return out
