"""ParsedDocument: one PDF's text with character offsets, word boxes, segments, and quote
anchoring (quote → character span → one box per line per page). Picklable: the service caches
it on disk by SHA-256."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NamedTuple

from workbench.config import Settings
from workbench.models import ClosestMatch, Document, PageRect, Span, sha256_text
from workbench.pdf import anchor, segment
from workbench.pdf.extract import BLOCK_SEP, LINE_SEP, page_blocks
from workbench.pdf.furniture import furniture_lines
from workbench.pdf.opening import open_bytes, pdf_date, read_source

PAGE_SEP = "\n\n"


class Word(NamedTuple):
    page: int  # 1-based
    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    start: int  # offsets into ParsedDocument.text
    end: int
    block: int  # index in reading order on its page
    line: int  # index within the block


@dataclass(frozen=True, slots=True)
class PageText:
    number: int  # 1-based
    start: int
    end: int
    width: float
    height: float
    has_text: bool


@dataclass(frozen=True, slots=True)
class Line:
    """A text line: words [first_word, last_word) of ParsedDocument.words."""

    page: int
    block: int
    start: int
    end: int
    first_word: int
    last_word: int
    y0: float
    y1: float


@dataclass(frozen=True, slots=True)
class Segment:
    start: int
    end: int
    page: int
    text: str
    heading: str | None
    kind: Literal["sentence", "heading"]


class ParsedDocument:
    """Everything the layers above need from a PDF; all offsets index self.text."""

    def __init__(self, document: Document, pdf_bytes: bytes, text: str, pages: list[PageText],
                 words: list[Word], lines: list[Line]):
        self.document = document
        self.pdf_bytes = pdf_bytes
        self.text = text
        self.pages = pages
        self.words = words
        self.lines = lines
        self._word_starts = [w.start for w in words]
        self._page_starts = [p.start for p in pages]
        self._furniture: set[int] | None = None  # line indexes
        self._matcher: anchor.Matcher | None = None
        self._segments: list[Segment] | None = None

    # --- positions -----------------------------------------------------------------------
    def page_at(self, offset: int) -> int:
        """1-based page holding a character offset (separators belong to the page before)."""
        i = bisect.bisect_right(self._page_starts, offset) - 1
        return self.pages[max(i, 0)].number

    def words_in(self, start: int, end: int) -> range:
        """Indexes of the words overlapping text[start:end]."""
        lo = bisect.bisect_right(self._word_starts, start) - 1
        if lo < 0 or self.words[lo].end <= start:
            lo += 1
        hi = bisect.bisect_left(self._word_starts, end)
        return range(max(lo, 0), hi)

    @property
    def furniture(self) -> set[int]:
        """Line indexes of running headers, footers and page numbers."""
        if self._furniture is None:
            per_page: list[list[tuple[int, float, float, str]]] = [[] for _ in self.pages]
            for i, ln in enumerate(self.lines):
                per_page[ln.page - 1].append((i, ln.y0, ln.y1, self.text[ln.start:ln.end]))
            self._furniture = furniture_lines(per_page)
        return self._furniture

    # --- segments and headings -------------------------------------------------------------
    def segments(self) -> list[Segment]:
        """Sentences/clauses and headings in reading order; a heading is never glued to the
        sentence after it."""
        if self._segments is None:
            self._segments = segment.segment(self)
        return self._segments

    def headings(self) -> list[Segment]:
        return [s for s in self.segments() if s.kind == "heading"]

    def heading_at(self, offset: int) -> str | None:
        """The nearest heading starting at or before offset."""
        hs = self.headings()
        i = bisect.bisect_right([h.start for h in hs], offset) - 1
        return hs[i].text if i >= 0 else None

    # --- spans and anchoring ----------------------------------------------------------------
    def span(self, start: int, end: int, *, skip_lines: set[int] | None = None) -> Span:
        """The Span for text[start:end]: one box per line per page hugging the words in it."""
        if not (0 <= start < end <= len(self.text)):
            raise ValueError(f"span [{start}, {end}) outside the text (0..{len(self.text)})")
        rects: list[PageRect] = []
        pages: list[int] = []
        cur: tuple[int, int, int] | None = None
        box: list[float] = []
        for wi in self.words_in(start, end):
            w = self.words[wi]
            if skip_lines and self._line_of(wi) in skip_lines:
                continue
            k = (w.page, w.block, w.line)
            if k != cur:
                if cur is not None:
                    rects.append((cur[0], *box))
                cur, box = k, [w.x0, w.y0, w.x1, w.y1]
                if w.page not in pages:
                    pages.append(w.page)
            else:
                box = [min(box[0], w.x0), min(box[1], w.y0), max(box[2], w.x1), max(box[3], w.y1)]
        if cur is not None:
            rects.append((cur[0], *box))
        if not pages:
            pages = [self.page_at(start)]
        text = self.text[start:end]
        rects = [(p, round(a, 2), round(b, 2), round(c, 2), round(d, 2)) for p, a, b, c, d in rects]
        return Span(document_id=self.document.id, page=pages[0], pages=pages, start=start, end=end,
                    text=text, text_sha256=sha256_text(text), rects=rects)

    def _line_of(self, word_index: int) -> int:
        return self._line_index[word_index]

    @property
    def _line_index(self) -> list[int]:
        li = self.__dict__.get("_li")
        if li is None:
            li = [0] * len(self.words)
            for i, ln in enumerate(self.lines):
                for wi in range(ln.first_word, ln.last_word):
                    li[wi] = i
            self.__dict__["_li"] = li
        return li

    @property
    def matcher(self) -> anchor.Matcher:
        if self._matcher is None:
            self._matcher = anchor.Matcher(self)
        return self._matcher

    def locate(self, quote: str) -> Span | None:
        """The quote's exact (normalised) occurrence, or None. Never a fuzzy guess."""
        return self.matcher.locate(quote)

    def closest(self, quote: str) -> ClosestMatch | None:
        """The best fuzzy candidate, flagged with its similarity (0..1); not an anchor."""
        return self.matcher.closest(quote)


def open_pdf(source: str | Path | bytes, *, password: str | None = None, filename: str | None = None,
             settings: Settings | None = None) -> ParsedDocument:
    """Open a PDF from a path or bytes. Raises workbench.errors.PdfError subclasses for bad input;
    scanned pages and repaired files open with warnings."""
    data, name = read_source(source, filename)
    opened = open_bytes(data, name, password=password, settings=settings)
    doc = opened.doc
    warnings = list(opened.warnings)
    parts: list[str] = []
    pos = 0
    pages: list[PageText] = []
    words: list[Word] = []
    lines: list[Line] = []
    failed: list[int] = []
    try:
        for pno in range(doc.page_count):
            page = doc[pno]
            number = pno + 1
            if pno:
                parts.append(PAGE_SEP)
                pos += len(PAGE_SEP)
            page_start = pos
            try:
                blocks = page_blocks(page)
            except Exception:  # a page MuPDF cannot interpret: keep the rest of the document
                blocks = []
                failed.append(number)
            for bi, block in enumerate(blocks):
                if bi:
                    parts.append(BLOCK_SEP)
                    pos += len(BLOCK_SEP)
                for li, line in enumerate(block):
                    if li:
                        parts.append(LINE_SEP)
                        pos += len(LINE_SEP)
                    first = len(words)
                    line_start = pos
                    for wi, rw in enumerate(line):
                        if wi:
                            parts.append(" ")
                            pos += 1
                        parts.append(rw.text)
                        words.append(Word(number, rw.x0, rw.y0, rw.x1, rw.y1, rw.text, pos, pos + len(rw.text), bi, li))
                        pos += len(rw.text)
                    lines.append(Line(number, bi, line_start, pos, first, len(words),
                                      min(w.y0 for w in line), max(w.y1 for w in line)))
            rect = page.rect
            pages.append(PageText(number, page_start, pos, rect.width, rect.height, bool(blocks)))
        meta = doc.metadata or {}
    finally:
        doc.close()
    text = "".join(parts)
    no_text = [p.number for p in pages if not p.has_text]
    if failed:
        warnings.append(f"pages {_ranges(failed)} could not be read (damaged content): they are left empty")
    if no_text and len(no_text) == len(pages):
        warnings.append(f"no page has a text layer (scanned?): pages {_ranges(no_text)}; quotes cannot be "
                        "located until the PDF is OCRed")
    elif no_text:
        warnings.append(f"pages {_ranges(no_text)} have no text layer (scanned?): quotes there cannot be located")
    document = Document(
        id=opened.sha256, filename=name, title=(meta.get("title") or "").strip() or None,
        author=(meta.get("author") or "").strip() or None, created=pdf_date(meta.get("creationDate")),
        modified=pdf_date(meta.get("modDate")), pages=len(pages), has_text_layer=len(no_text) < len(pages),
        pages_without_text=no_text, warnings=warnings, size_bytes=len(data), encrypted=opened.encrypted,
    )
    return ParsedDocument(document, data, text, pages, words, lines)


def _ranges(nums: list[int]) -> str:
    """[1, 2, 3, 7] -> '1-3, 7'."""
    out: list[str] = []
    start = prev = nums[0]
    for n in nums[1:] + [None]:  # type: ignore[list-item]
        if n is not None and n == prev + 1:
            prev = n
            continue
        out.append(f"{start}-{prev}" if prev != start else f"{start}")
        if n is not None:
            start = prev = n
    return ", ".join(out)
