"""Words and text from one page, in reading order, built so that text offsets and word boxes
always agree: the text IS the words joined (space within a line, newline between lines, blank
line between blocks). Words come from get_text("words") with the default flags, so they are the
same words a reader of the page gets back (ligatures kept, no dehyphenation)."""

from __future__ import annotations

import pymupdf

WORD_FLAGS = pymupdf.TEXTFLAGS_WORDS
LINE_SEP = "\n"
BLOCK_SEP = "\n\n"


# A raw word as get_text("words") gives it: (x0, y0, x1, y1, text, block, line, word_no).
RawWord = tuple[float, float, float, float, str, int, int, int]


def page_blocks(page: pymupdf.Page) -> list[list[list[RawWord]]]:
    """Blocks → lines → words, blocks in reading order (see order_blocks)."""
    raw = page.get_text("words", flags=WORD_FLAGS, sort=False)
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
    ordered = [list(lines.values()) for lines in blocks.values()]
    return order_blocks(ordered, page.rect.width)


def _bbox(block: list[list[RawWord]]) -> tuple[float, float, float, float]:
    ws = [w for line in block for w in line]
    return min(w[0] for w in ws), min(w[1] for w in ws), max(w[2] for w in ws), max(w[3] for w in ws)


def order_blocks(blocks: list[list[list[RawWord]]], page_width: float) -> list[list[list[RawWord]]]:
    """Reading order that keeps multi-column pages sane.

    Blocks wider than half the page (titles, running headers, single-column paragraphs) are
    bands; between two bands, narrower blocks are grouped into columns (connected by horizontal
    overlap) and read column by column, left to right, each top to bottom."""
    if len(blocks) < 2:
        return blocks
    boxes = [_bbox(b) for b in blocks]
    idx = sorted(range(len(blocks)), key=lambda i: (boxes[i][1], boxes[i][0]))
    wide = 0.5 * page_width
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
        if x1 - x0 > wide:
            flush()
            out.append(i)
        else:
            group.append(i)
    flush()
    return [blocks[i] for i in out]
