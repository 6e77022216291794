"""Words and text from one page, in reading order, built so that text offsets and word boxes
always agree: the text IS the words joined (space within a line, newline between lines, blank
line between blocks). Words come from get_text("words") with the default flags, so they are the
same words a reader of the page gets back (ligatures kept, no dehyphenation)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np

from workbench.pdf.furniture import _LINE_NO, LINE_NUMBERS_MIN, margin_line_numbers
from workbench.pdf.mupdf import mupdf

if TYPE_CHECKING:
    from types import ModuleType

    import pymupdf

LINE_SEP = "\n"
BLOCK_SEP = "\n\n"


# A raw word as get_text("words") gives it: (x0, y0, x1, y1, text, block, line, word_no).
RawWord = tuple[float, float, float, float, str, int, int, int]


class UnmappedText(Exception):
    """The page's glyphs mostly map to no character: its fonts lack a Unicode map, so what a text
    layer gives there is symbols, not the words the page shows."""

    def __init__(self, unmapped: int, mapped: int):
        super().__init__(f"{unmapped} of {unmapped + mapped} glyphs map to no character")
        self.unmapped, self.mapped = unmapped, mapped


# Glyphs a font maps to a control character or to U+FFFD: ordinary pages have none, or a few
# dozen in a formula; a page set in a font without a Unicode map has thousands.
_UNMAPPED = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ufffd]")
UNMAPPED_MAX = 0.5  # share of a page's glyphs beyond which its text layer is not read at all


LineBox = tuple[float, float, float, float]


def _may_be_unmapped(fitz: ModuleType, textpage: pymupdf.TextPage) -> bool:
    """Whether the text page may hold a glyph _UNMAPPED counts. extractText, which counts them,
    builds each character's box to keep only those on the page; MuPDF's own plain-text dump of
    the text page writes every character of every line, boxes unread, in a fraction of the time,
    so the characters extractText gives are among those: where the dump holds none, neither does
    extractText. A character MuPDF cannot write as UTF-8 (a lone surrogate) decodes to U+FFFD
    here, which _UNMAPPED matches, so it too sends the page to the exact count."""
    low = fitz.mupdf
    dump = low.fz_buffer_extract(low.fz_new_buffer_from_stext_page(textpage.this))
    return _UNMAPPED.search(dump.decode("utf-8", "replace")) is not None


def page_blocks(page: pymupdf.Page, line_boxes: list[LineBox] | None = None, width: float | None = None
                ) -> list[list[list[RawWord]]]:
    """Blocks → lines → words, blocks in reading order (see order_blocks). Raises UnmappedText
    when most glyphs map to no character: the few that do are then no more than symbols ("(700;)&"
    for "(2003).") and must not be read as the page's words. Each line's box (_line_box) is taken
    once, for order_blocks and margin_icons_apart; with `line_boxes`, they are appended to it in
    the order of the lines returned, for the caller that builds the page's lines. `width`: the
    page's width, where the caller has its rect already (a page's rect is a call into MuPDF)."""
    fitz = mupdf()
    textpage = page.get_textpage(flags=fitz.TEXTFLAGS_WORDS)
    raw = textpage.extractWORDS()  # what page.get_text("words", textpage=textpage) returns, unsorted, unclipped
    unmapped = len(_UNMAPPED.findall(textpage.extractText())) if _may_be_unmapped(fitz, textpage) else 0
    if unmapped:
        mapped = sum(len(w[4]) for w in raw)
        if unmapped > UNMAPPED_MAX * (unmapped + mapped):
            raise UnmappedText(unmapped, mapped)
    blocks: dict[int, dict[int, list[RawWord]]] = {}
    for w in raw:
        if w[4]:
            b = blocks.get(w[5])
            if b is None:
                b = blocks[w[5]] = {}
            ln = b.get(w[6])
            if ln is None:
                b[w[6]] = [w]
            else:
                ln.append(w)
    body, numbers = line_numbers_apart([list(lines.values()) for lines in blocks.values()])
    if width is None:
        width = page.rect.width  # once: a page's rect is a call into MuPDF
    ordered, cuts = split_straddling(body, width)
    boxes = {id(ln): _line_box(ln) for b in (*ordered, *numbers) for ln in b}  # lines kept alive: ids unique
    out = [part for b in order_blocks(ordered, width, cuts, boxes) for part in margin_icons_apart(b, boxes)] + numbers
    if line_boxes is not None:
        line_boxes += [boxes[id(ln)] for b in out for ln in b]
    return out


def line_numbers_apart(blocks: list[list[list[RawWord]]]) -> tuple[list[list[list[RawWord]]], list[list[list[RawWord]]]]:
    """The page's blocks without the line numbers down its margin (a transcript's, pleading
    paper's), and those apart, top to bottom: left among the text they made a column of their own
    that took the footer with it and was read before the page's last lines."""
    # only a one-line block of a bare number can be one (margin_line_numbers reads no other line),
    # and fewer than LINE_NUMBERS_MIN of them are none: most pages stop here, before any box is read
    numbered = [(i, b[0], t) for i, b in enumerate(blocks) if len(b) == 1
                and _LINE_NO.match(t := " ".join([w[4] for w in b[0]]))]
    if len(numbered) < LINE_NUMBERS_MIN:
        return blocks, []
    lines = [(i, *(_line_box(ln)[0::2]), ln[0][1], t) for i, ln, t in numbered]
    lefts = sorted([_bbox(b)[0] for b in blocks if _has_letter(b)])
    if len(lefts) < LINE_NUMBERS_MIN:
        return blocks, []
    numbers = margin_line_numbers([(i, x0, x1, y0, t) for i, x0, x1, y0, t in lines], lefts[len(lefts) // 10])
    if not numbers:
        return blocks, []
    return ([b for i, b in enumerate(blocks) if i not in numbers],
            sorted((b for i, b in enumerate(blocks) if i in numbers), key=lambda b: b[0][0][1]))


ICON_MIN_LINES = 3  # lines of running text a block needs before a line beside them can be an icon
ICON_SMALL, ICON_LARGE = 0.7, 1.4  # an icon's label is far smaller than the text, its glyph far larger


def margin_icons_apart(block: list[list[RawWord]], line_boxes: dict[int, LineBox] | None = None
                       ) -> list[list[list[RawWord]]]:
    """The block, or [its margin icons, the rest]: an icon set beside a paragraph (the IRS's "!" in
    large type over "CAUTION" in tiny type, left of the text) shares the paragraph's block, and read
    by height its lines cut the sentences beside them ("Nonresident aliens who make ! this election
    may forfeit the right … otherwise CAUTION available …"). An icon line stands beside a line of
    the text (at its height, left or right of it), in type far smaller than the text (a label) or,
    with no letter, far larger (a glyph); icon lines are read before the paragraph, as a block of
    their own. A bullet is set in the text's size and stays where it is. line_boxes: each line's
    box by id(line), where page_blocks has them."""
    if len(block) < ICON_MIN_LINES + 1 or all(len(ln) > 2 for ln in block):
        return [block]  # an icon line has one or two words
    boxes = [line_boxes[id(ln)] for ln in block] if line_boxes is not None else [_line_box(ln) for ln in block]
    height = _median([b[3] - b[1] for b in boxes])

    def icon(ln: list[RawWord], b: tuple[float, float, float, float]) -> bool:
        h = b[3] - b[1]
        if len(ln) > 2 or not (h < ICON_SMALL * height or (h > ICON_LARGE * height and not _has_letter([ln]))):
            return False  # letters read last: most lines are ruled out by their words or height
        beside = [o for o in boxes if o is not b and min(o[3], b[3]) > max(o[1], b[1])
                  and ICON_SMALL * height <= o[3] - o[1] <= ICON_LARGE * height]
        return bool(beside) and all(b[2] < o[0] or b[0] > o[2] for o in beside)

    marks = [icon(ln, b) for ln, b in zip(block, boxes, strict=True)]
    if not any(marks) or sum(not m for m in marks) < ICON_MIN_LINES:
        return [block]
    return [[ln for ln, m in zip(block, marks, strict=True) if m], [ln for ln, m in zip(block, marks, strict=True) if not m]]


def _median(values: list[float]) -> float:
    """The median as numpy's (the middle value, or the mean of the two middle ones), without
    numpy's per-call overhead on a list of a few dozen heights."""
    v = sorted(values)
    mid = len(v) // 2
    return v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2


def _line_box(words: Iterable[RawWord]) -> tuple[float, float, float, float]:
    """The words' bounding box. One explicit pass instead of four min/max generators (a third of
    page_blocks' time went there); the comparisons are min's and max's own (`<`, `>`, first kept
    on a tie), so the box is the same to the bit."""
    it = iter(words)
    w = next(it)
    x0, y0, x1, y1 = w[0], w[1], w[2], w[3]
    for w in it:
        if w[0] < x0:
            x0 = w[0]
        if w[1] < y0:
            y0 = w[1]
        if w[2] > x1:
            x1 = w[2]
        if w[3] > y1:
            y1 = w[3]
    return x0, y0, x1, y1


def _bbox(block: list[list[RawWord]]) -> tuple[float, float, float, float]:
    """The block's bounding box: its words' in reading order."""
    return _line_box(chain.from_iterable(block))


def _block_box(block: list[list[RawWord]], line_boxes: dict[int, LineBox]) -> LineBox:
    """_bbox(block) from its lines' boxes: the first least (greatest) value of the first least
    (greatest) values of the lines is the first least (greatest) of the words, ties included.
    Only a NaN at the start of a line after the first makes that line's box NaN where the scan
    over the words skips it (a NaN never compares less): then the words are read."""
    boxes = [line_boxes[id(ln)] for ln in block]
    if any(v != v for b in boxes[1:] for v in b):
        return _bbox(block)
    return _line_box(boxes)


def _has_letter(block: list[list[RawWord]]) -> bool:
    """Whether any character of the block is a letter (str.isalpha): a word that is all letters
    answers at once, the others are read character by character."""
    for ln in block:
        for w in ln:
            t = w[4]
            if t.isalpha() or any(map(str.isalpha, t)):
                return True
    return False


GUTTER_MIN_WIDTH = 8.0  # points: narrower white space is a word gap or a table's cell padding
GUTTER_MIN_LINES = 6  # lines on each side of a gutter, and at least SIDE_SHARE of the page's lines
SIDE_SHARE = 0.15


def gutters(boxes: list[tuple[float, float, float, float]]) -> list[tuple[float, float]]:
    """Vertical strips of white space that run down the page between columns of text: x ranges
    no line crosses (2 % may: a title over the columns), with many lines on either side."""
    if len(boxes) < 2 * GUTTER_MIN_LINES:
        return []
    lo, hi = int(min(b[0] for b in boxes)), int(max(b[2] for b in boxes)) + 1
    steps = np.zeros(hi - lo + 2, dtype=np.int32)  # +1 where a line starts, -1 after it ends
    np.add.at(steps, [int(b[0]) - lo for b in boxes], 1)
    np.add.at(steps, [min(hi, int(b[2])) - lo + 1 for b in boxes], -1)
    cover = np.cumsum(steps)[:-1].tolist()
    allowed = max(1, int(0.02 * len(boxes)))
    need = max(GUTTER_MIN_LINES, SIDE_SHARE * len(boxes))
    out: list[tuple[float, float]] = []
    x = 0
    while x < len(cover):
        if cover[x] > allowed:
            x += 1
            continue
        start = x
        while x < len(cover) and cover[x] <= allowed:
            x += 1
        a, b = lo + start, lo + x - 1
        if b - a >= GUTTER_MIN_WIDTH and sum(bx[2] <= a + 1 for bx in boxes) >= need \
                and sum(bx[0] >= b - 1 for bx in boxes) >= need:
            out.append((float(a), float(b)))
    return out


def _shares_a_height(block: list[list[RawWord]]) -> bool:
    """Whether two lines of a block overlap by more than half a line's height (side by side),
    read from each line's first word, next lines only (cheap: most pages stop here; a PDF that
    draws columns row by row puts a row's lines one after the other)."""
    prev = None
    for ln in block:
        y0, y1 = ln[0][1], ln[0][3]
        if prev is not None and min(y1, prev[1]) - max(y0, prev[0]) > 0.5 * min(y1 - y0, prev[1] - prev[0]):
            return True
        prev = (y0, y1)
    return False


PROSE_WIDTH = 0.2  # of the page: a column of running text, not a table's or a contents page's numbers
PROSE_WORDS = 4  # median words a line


def split_straddling(blocks: list[list[list[RawWord]]], page_width: float
                     ) -> tuple[list[list[list[RawWord]]], list[float]]:
    """Blocks whose lines sit side by side in two or more columns, re-blocked column by column.

    Some PDFs (IRS instructions) draw a three-column page row by row, and the text layer's
    blocks then hold one line of each column in turn: read as they are, sentences of different
    columns interleave. The lines of such blocks are given to the column between the page's
    gutters that holds them and regrouped there into paragraphs by vertical spacing. Only
    columns of running text count (lines of some width and words): a contents page's titles
    and page numbers, or the two sides of a signature block, keep their row order. Blocks
    within one column are left as they are. Also returned: the x positions of the gutters
    between those columns ([] when nothing was split), for order_blocks."""
    if not any(_shares_a_height(b) for b in blocks):
        return blocks, []  # the common page: every block's lines lie one under the other
    boxes = [[_line_box(ln) for ln in b] for b in blocks]
    cuts = [(a + b) / 2 for a, b in gutters([bx for bs in boxes for bx in bs])]
    if not cuts:
        return blocks, []

    def column(box: tuple[float, float, float, float]) -> int | None:
        x0, _, x1, _ = box
        if any(x0 < c < x1 for c in cuts):
            return None  # crosses a gutter: a title over the columns
        return sum(c <= x0 for c in cuts)

    def prose(lines: list[tuple[tuple[float, float, float, float], list[RawWord]]]) -> bool:
        widths = sorted(bx[2] - bx[0] for bx, _ln in lines)
        words = sorted(len(ln) for _bx, ln in lines)
        return widths[len(widths) // 2] >= PROSE_WIDTH * page_width and words[len(words) // 2] >= PROSE_WORDS

    out: list[list[list[RawWord]]] = []
    loose: dict[int | None, list[tuple[tuple[float, float, float, float], list[RawWord]]]] = {}
    for b, bs in zip(blocks, boxes, strict=True):
        cols: dict[int | None, list] = {}
        for ln, bx in zip(b, bs, strict=True):
            cols.setdefault(column(bx), []).append((bx, ln))
        if sum(prose(v) for k, v in cols.items() if k is not None) < 2:
            out.append(b)
            continue
        for k, v in cols.items():
            loose.setdefault(k, []).extend(v)
    if not loose:
        return blocks, []
    for col, lines in loose.items():
        lines.sort(key=lambda t: (t[0][1], t[0][0]))
        if col is None:  # each line over the columns a block of its own
            out += [[ln] for _bx, ln in lines]
            continue
        heights = sorted(bx[3] - bx[1] for bx, _ln in lines)
        gap = 0.25 * heights[len(heights) // 2]  # more space above a line than this starts a paragraph
        cur: list[list[RawWord]] = []
        bottom = 0.0
        for bx, ln in lines:
            if cur and bx[1] - bottom > gap:
                out.append(cur)
                cur = []
            bottom = max(bottom, bx[3]) if cur else bx[3]
            cur.append(ln)
        out.append(cur)
    return out, cuts


COLUMN_MIN_LINES = 3  # lines a paragraph needs to tell where its column ends


def _column_gaps(blocks: list[list[list[RawWord]]], boxes: list[tuple[float, float, float, float]],
                 page_width: float) -> list[tuple[float, float]]:
    """The white space between paragraphs of running text that stand side by side (they share a
    height, and neither reaches into the other's width): a narrower block across it, like a
    paper's address centred over both columns, is a band, not part of either column. A table's
    cells are no paragraphs here: their order is the table's."""
    paras = []
    for i, b in enumerate(blocks):
        words = sorted(len(ln) for ln in b)
        if (len(b) >= COLUMN_MIN_LINES and words[len(words) // 2] >= PROSE_WORDS
                and boxes[i][2] - boxes[i][0] >= PROSE_WIDTH * page_width):
            paras.append(boxes[i])
    out = set()
    for a in paras:
        for b in paras:
            if a[2] < b[0] and min(a[3], b[3]) > max(a[1], b[1]):
                out.add((a[2], b[0]))
    return sorted(out)


def order_blocks(blocks: list[list[list[RawWord]]], page_width: float, cuts: Sequence[float] = (),
                 line_boxes: dict[int, LineBox] | None = None) -> list[list[list[RawWord]]]:
    """Reading order that keeps multi-column pages sane.

    Blocks wider than half the page (titles, running headers, single-column paragraphs) are
    bands, and so are blocks across one of `cuts` (the gutters split_straddling found between
    columns of running text: a footer under two of three columns would otherwise join them into
    one); between two bands, narrower blocks are grouped into columns (connected by horizontal
    overlap) and read column by column, left to right, each top to bottom. line_boxes: each
    line's box by id(line), where page_blocks has them (a block's box is then read from them)."""
    if len(blocks) < 2:
        return blocks
    boxes = [_block_box(b, line_boxes) for b in blocks] if line_boxes is not None else [_bbox(b) for b in blocks]
    idx = sorted(range(len(blocks)), key=lambda i: (boxes[i][1], boxes[i][0]))
    wide = 0.5 * page_width
    gaps = _column_gaps(blocks, boxes, page_width)
    out: list[int] = []
    group: list[int] = []

    def flush() -> None:
        if not group:
            return
        cols: list[list[int]] = []
        spans: list[list[float]] = []
        for i in sorted(group, key=lambda i: boxes[i][0]):
            x0, _, x1, _ = boxes[i]
            for c, sp in enumerate(spans):
                overlap = min(x1, sp[1]) - max(x0, sp[0])
                if overlap > 0.3 * min(x1 - x0, sp[1] - sp[0]):
                    cols[c].append(i)
                    sp[0], sp[1] = min(sp[0], x0), max(sp[1], x1)
                    break
            else:
                cols.append([i])
                spans.append([x0, x1])
        # Clusters stacked one above the other (no vertical overlap) are not side-by-side
        # columns: a centred heading over an indented paragraph, a page number below the text.
        merged = True
        while merged and len(cols) > 1:
            merged = False
            ys = [(min(boxes[i][1] for i in c), max(boxes[i][3] for i in c)) for c in cols]
            for a in range(len(cols)):
                for b in range(a + 1, len(cols)):
                    if min(ys[a][1], ys[b][1]) - max(ys[a][0], ys[b][0]) <= 0:
                        cols[a] += cols.pop(b)
                        spans[a] = [min(spans[a][0], spans[b][0]), max(spans[a][1], spans[b][1])]
                        spans.pop(b)
                        merged = True
                        break
                if merged:
                    break
        for c in sorted(range(len(cols)), key=lambda c: spans[c][0]):
            out.extend(sorted(cols[c], key=lambda i: (boxes[i][1], boxes[i][0])))
        group.clear()

    for i in idx:
        x0, _, x1, _ = boxes[i]
        if x1 - x0 > wide or (cuts and any(x0 < c < x1 for c in cuts)) or any(x0 < a and x1 > b for a, b in gaps):
            flush()
            out.append(i)
        else:
            group.append(i)
    flush()
    return [blocks[i] for i in out]
