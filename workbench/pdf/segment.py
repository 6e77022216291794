"""Sentence/clause segmentation that never glues a heading onto the next sentence: decide line by
line (a heading is a whole line), then split the remaining text of each block into sentences.
Running headers/footers are left out."""

from __future__ import annotations

import re
import statistics
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.pdf.document import ParsedDocument, Segment

_NUMBERED = re.compile(
    r"^(?:(?:article|section|part|chapter|schedule|exhibit|appendix|annex|title|subpart)\s+[0-9ivxlcdm]+[a-z]?\b"
    r"|§+\s*[0-9]|[0-9]{1,2}(?:\.[0-9]{1,2}){0,3}\.?\s+[A-Z]|[A-Z]\.\s+[A-Z]|[IVX]{1,5}\.\s+[A-Z])",
    re.I,
)
# Sentence end: . ! ? (optionally closed by quotes/brackets), then space, then a likely start.
_SENT_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9*]|[•·▪]\s)")
_ABBREV = re.compile(
    r"(?:\b(?:[A-Z]|Mr|Mrs|Ms|Dr|Inc|Ltd|Co|Corp|No|Nos|Sec|Secs|Art|Fig|Figs|Vol|pp|Jr|Sr|St|U\.S|e\.g|i\.e|etc|vs|cf|al|approx|Dept|Reg|para|Para)\.)$"
)
MAX_HEADING_WORDS = 14
# A bare label whose title follows on the next line or block: "ARTICLE 2" / "LICENSES".
_LABEL = re.compile(r"^(?:article|section|part|chapter|schedule|exhibit|appendix|annex)\s+[0-9ivxlcdm.]+\s*$", re.I)
# A numbered run-in heading: "2.4 Restrictive Covenants." / "Section 5. Term." — short, title case.
_RUN_IN = re.compile(
    r"^(?:(?:section|article)\s+)?[0-9]{1,2}(?:\.[0-9]{1,2}){0,3}\.?\s+"
    r"(?:[A-Z][\w’'\-]*|of|and|or|the|to|for|in|on|by|with|a|an|&|;|,)(?:\s+(?:[A-Z][\w’'\-]*|of|and|or|the|to|for|in|on|by|with|a|an|&|;|,)){0,7}[.:]$",
    re.I,
)


_SMALL = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "with", "under"}


def _title_case(words: list[str]) -> bool:
    big = [w for w in words if w[0].isalpha() and w.lower() not in _SMALL]
    return bool(big) and all(w[0].isupper() for w in big) and words[0][0].isupper()


def _is_heading(text: str, height: float, body: float, prev_ends: bool, alone: bool = False) -> bool:
    words = text.split()
    if not words or len(words) > MAX_HEADING_WORDS or len(text) > 120 or not prev_ends:
        return False
    if not any(c.isalpha() for c in text) or text.rstrip()[-1] in ",;":
        return False
    if text[0].islower():
        return False
    letters = [c for c in text if c.isalpha()]
    upper = sum(c.isupper() for c in letters) / len(letters)
    ends_sentence = text.rstrip()[-1] in ".!?:" and len(words) > 6
    if ends_sentence:
        return False
    if height >= body * 1.18:
        return True
    if alone and len(words) <= 10 and text.rstrip()[-1] not in ".,;:" and _title_case(words):
        return True  # a short Title Case line standing as its own block ("Emergency Order of Prohibition")
    if len(letters) >= 4 and upper >= 0.8:
        return True
    if _NUMBERED.match(text) and height >= body * 0.95:  # smaller print: a numbered footnote
        rest = [w for w in words[1:] if w[0].isalpha()]
        titled = sum(w[0].isupper() for w in rest) >= 0.6 * len(rest) if rest else True
        return titled
    return False


def _split_sentences(text: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    start = 0
    for m in _SENT_END.finditer(text):
        if _ABBREV.search(text[max(0, m.start() - 8):m.start()]):
            continue
        end = m.start() + len(m.group(0).rstrip())
        if text[start:end].strip():
            out.append((start, end))
        start = m.end()
    if text[start:].strip():
        out.append((start, len(text.rstrip())))
    return out


def segment(doc: ParsedDocument) -> list[Segment]:
    from workbench.pdf.document import Segment

    heights = [ln.y1 - ln.y0 for ln in doc.lines]
    body = statistics.median(heights) if heights else 0.0
    furniture = doc.furniture
    out: list[Segment] = []
    heading: str | None = None
    text = doc.text

    def flush(start: int | None, end: int) -> None:
        nonlocal heading
        if start is None:
            return
        chunk = text[start:end]
        for n, (a, b) in enumerate(_split_sentences(chunk)):
            s, e = start + a, start + b
            while s < e and (text[s].isspace() or text[s] in "•·▪"):  # bullets are not quoted
                s += 1
            if e <= s or not any(c.isalnum() for c in text[s:e]):  # "[***]", "•": nothing to quote
                continue
            if n == 0 and _RUN_IN.match(text[s:e]):  # "2.4 Restrictive Covenants." opening a paragraph
                heading = " ".join(text[s:e].split())
                out.append(Segment(s, e, doc.page_at(s), text[s:e], heading, "heading"))
            else:
                out.append(Segment(s, e, doc.page_at(s), text[s:e], heading, "sentence"))

    body_start: int | None = None
    body_end = 0
    prev_key: tuple[int, int] | None = None
    prev_ends = True
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
        ws = doc.words[ln.first_word:ln.last_word]
        width = max(w.x1 for w in ws) - min(w.x0 for w in ws)
        vertical = ln.y1 - ln.y0 > 2 * width  # side text rotated 90°: tall boxes, not a big font
        alone = block_lines[blk] == 1
        if not vertical and _is_heading(lt, ln.y1 - ln.y0, body, prev_ends, alone):
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
    flush(body_start, body_end)
    return out
