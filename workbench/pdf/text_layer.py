"""An invisible text layer of OCR'd words on a scanned page (issue 42), so that an exported copy of
a scan can be searched and its text selected and copied in any PDF reader, as OCRmyPDF's output
can: each word is written in PDF text render mode 3 (neither filled nor stroked) over the box OCR
found it in, so a search hit or a selection lands on the word the page image shows.

Why one word at a time rather than whole lines: OCR gives a box per word, and the scan's spacing
is not a font's; a word stretched to its own box keeps every hit on its word. Its font size comes
from its line (a line's words share one size and baseline, so readers extract them as one line),
and it is stretched sideways to the word's width. The font is the Helvetica MuPDF carries (Nimbus
Sans: Latin, Greek and Cyrillic), embedded once per document as a Unicode font, so curly quotes,
dashes and umlauts copy out as read. Words come in the unrotated page space every word box uses;
on a rotated page they are written turned with the page, so they run as the reader sees them."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING

from workbench.pdf.mupdf import mupdf

if TYPE_CHECKING:
    import pymupdf

# (x0, y0, x1, y1, text, block, line): a word as OCR read it, in the unrotated page space.
LayerWord = tuple[float, float, float, float, str, int, int]

FONT_NAME = "WbOcrText"
RENDER_INVISIBLE = 3  # PDF text render mode 3: no fill, no stroke (searchable, not seen)


@lru_cache(maxsize=1)
def _font() -> pymupdf.Font:
    return mupdf().Font("helv")


def add_text_layer(page: pymupdf.Page, words: Sequence[LayerWord]) -> int:
    """Write `words` on `page` as invisible text, each over its box; the number written (words
    without a box or without text are left out)."""
    pymupdf = mupdf()
    font = _font()
    shown = page.rotation_matrix
    back = page.derotation_matrix
    rotation = page.rotation
    grouped: dict[tuple[int, int], list[tuple[pymupdf.Rect, str]]] = {}
    for x0, y0, x1, y1, text, block, line in words:
        box = pymupdf.Rect(x0, y0, x1, y1) * shown  # as the reader sees it: the word runs left to right
        if text.strip() and not box.is_empty:
            grouped.setdefault((block, line), []).append((box, text))
    boxes: list[tuple[pymupdf.Rect, str, tuple[int, ...]]] = []
    lines: dict[tuple[int, ...], pymupdf.Rect] = {}
    for key, ws in grouped.items():
        if all(b.x0 >= a.x1 - 1 for (a, _), (b, _) in pairwise(ws)):  # a line, left to right
            lines[key] = pymupdf.Rect(ws[0][0])
            for box, _ in ws[1:]:
                lines[key] |= box
            boxes += [(box, text, key) for box, text in ws]
        else:  # words OCR stacked or overlapped (text set sideways in a margin): each its own line
            for i, (box, text) in enumerate(ws):
                lines[(*key, i)] = box
                boxes.append((box, text, (*key, i)))
    if not boxes:
        return 0
    page.insert_font(fontname=FONT_NAME, fontbuffer=font.buffer)  # the document keeps one copy
    height = font.ascender - font.descender  # of a line of text, in font sizes
    shape = page.new_shape()

    def put(x0: float, x1: float, text: str, line: pymupdf.Rect, then: str = "") -> None:
        """`text` from x0 to x1 on `line`, and `then` after it at the same stretch."""
        size = max(1.0, line.height / height)  # the line's box is the text's box, ascender to descender
        origin = pymupdf.Point(x0, line.y1 + font.descender * size) * back
        width = font.text_length(text, fontsize=size)
        stretch = max(x1 - x0, 0.01) / width if width > 0 else 1.0
        scale = pymupdf.Matrix(stretch, 1) if rotation in (0, 180) else pymupdf.Matrix(1, stretch)
        shape.insert_text(origin, text + then, fontname=FONT_NAME, fontsize=size, render_mode=RENDER_INVISIBLE,
                          rotate=rotation, morph=(origin, scale))

    for i, (box, text, key) in enumerate(boxes):
        after = boxes[i + 1] if i + 1 < len(boxes) else None
        if after is not None and after[2] == key and after[0].x0 > box.x1:
            put(box.x0, box.x1, text, lines[key])
            put(box.x1, after[0].x0, " ", lines[key])  # the gap holds a space: "the Two-place", not "theTwo-place"
        else:  # last on its line, or overlapped by the next word: a space of its own ends it
            put(box.x0, box.x1, text, lines[key], then=" ")
    shape.commit()
    return len(boxes)
