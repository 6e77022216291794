"""ParsedDocument: one PDF's text with character offsets, word boxes, segments, and quote
anchoring (quote → character span → one box per line per page). The workspace caches it on disk
as plain data (workbench.pdf.cache.CachedDocument), never as a pickle."""

from __future__ import annotations

import bisect
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from workbench.config import Settings, defaults
from workbench.errors import TooMuchTextError
from workbench.models import ClosestMatch, Document, OcrPage, PageRect, Span, sha256_text
from workbench.pdf import active, anchor, labels, ocr, segment, structure
from workbench.pdf.extract import BLOCK_SEP, LINE_SEP, RawWord, UnmappedText, _line_box, page_blocks
from workbench.pdf.furniture import (
    _LINE_NO,
    LINE_NUMBERS_MIN,
    furniture_lines,
    margin_line_numbers,
    numbers_beside_words,
)
from workbench.pdf.limits import shown_glyphs_floor
from workbench.pdf.mupdf import mupdf
from workbench.pdf.ocr import PageOcr
from workbench.pdf.opening import open_bytes, pdf_date, read_source
from workbench.pdf.segment import Segment
from workbench.text.ranges import page_ranges

if TYPE_CHECKING:
    import pymupdf

PAGE_SEP = "\n\n"
_new_word = tuple.__new__  # builds a Word without NamedTuple's Python-level __new__ (ingest speed)


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


T = TypeVar("T")


@contextmanager
def collector_paused() -> Iterator[bool]:
    """Pause the cyclic garbage collector while a document's pages are read, its words and lines
    built, and its segments and sections found; yields whether it was on, so that a step inside
    (OCR) can run with it as the caller had it. Each Word is a tuple subclass, which the collector
    tracks for good (plain tuples of numbers and strings it stops tracking), so every full
    collection walks all the words made so far and frees none of them; reading the pages makes each
    page's raw words, lines and blocks, all kept until the build, and segmenting makes segments, all
    kept: collections there walked them again and again and freed nothing (on the 40 typeset
    contracts of bench_ingest, about a tenth of open_pdf + sections()). No cycle is made there
    (a located document's matcher refers back to it weakly), so pausing holds no garbage back; the
    collector is on again (if it was) when the step ends or raises (a page over a cap).

    What the step made is then moved to the oldest generation (gc.freeze, then gc.unfreeze: two
    splices of the collector's lists), not left young: the first young collection after the pause
    walked every word and segment made (a tenth of a millisecond per thousand) and freed none of
    them, and the next middle one walked them again. What was young before the step is collected
    first (gc.collect(1), as the collector's own next young pass would), so only what was made while
    it was paused skips the young passes: the step makes no cycle, and garbage another thread made
    meanwhile is freed by the next full collection instead (those run as before: the moved objects
    are not counted towards one, so they come no later). A caller that froze objects itself
    (gc.get_freeze_count()) is left as it was: nothing is moved then."""
    was = gc.isenabled()
    promote = was and gc.get_freeze_count() == 0
    if promote:
        gc.collect(1)
    gc.disable()
    try:
        yield was
    finally:
        if was:
            if promote and gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


class ParsedDocument:
    """Everything the layers above need from a PDF (models.ParsedDoc); all offsets index self.text."""

    def __init__(self, document: Document, pdf_bytes: bytes | None, text: str, pages: list[PageText],
                 words: list[Word], lines: list[Line], pdf_labels: list[str] | None = None):
        self.document = document
        self.pdf_labels = pdf_labels  # the PDF's /PageLabels ([] when it has none)
        self.pdf_bytes = pdf_bytes  # None once cached (workbench.pdf.cache): the store keeps the bytes
        self.text = text
        self.pages = pages
        self.words = words
        self.lines = lines
        self._word_starts = [w.start for w in words]
        self._page_starts = [p.start for p in pages]
        self._furniture: set[int] | None = None  # line indexes
        self._matcher: anchor.Matcher | None = None
        self._segments: list[Segment] | None = None
        self._derived: dict[str, object] = {}
        self.ocr: dict[int, PageOcr] = {}  # pages read by OCR: engine, languages, word confidences
        # True where open_pdf saw that the PDF has no outline (segment._outline then does not open
        # the bytes again to read none); False when it has one or that is not known
        self.no_outline = False

    def __getstate__(self) -> dict:
        """Pickled without the PDF bytes (the store keeps them) and without derived values
        (other layers' types, rebuilt on demand) or the matcher (it refers to the document weakly;
        rebuilt on first use)."""
        return {**self.__dict__, "pdf_bytes": None, "_derived": {}, "_matcher": None}

    def derived(self, key: str, build: Callable[[], T]) -> T:
        """A value computed once from this document by a layer above (its vocabulary, term
        statistics) and kept with it, so it is bounded and dropped with the document by the
        workspace's cache instead of living in a module-level dict."""
        if key not in self._derived:
            self._derived[key] = build()
        return self._derived[key]  # type: ignore[return-value]

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

    def line_x(self) -> list[tuple[float, float]]:
        """Each line's left and right edge (its words' least x0 and greatest x1), computed once:
        the furniture and the segmenter both read them, and a pass over every word is not free."""
        return self.derived("line_x", self._line_x)

    def _line_x(self) -> list[tuple[float, float]]:
        out: list[tuple[float, float]] = []
        words = self.words
        for ln in self.lines:
            first = words[ln.first_word]
            x0, x1 = first[1], first[3]  # Word fields 1 and 3: x0, x1
            for k in range(ln.first_word + 1, ln.last_word):
                w = words[k]
                if w[1] < x0:
                    x0 = w[1]
                if w[3] > x1:
                    x1 = w[3]
            out.append((x0, x1))
        return out

    @property
    def furniture(self) -> set[int]:
        """Line indexes of running headers, footers and page numbers."""
        if self._furniture is None:
            per_page: list[list[tuple[int, float, float, str]]] = [[] for _ in self.pages]
            margins: list[list[int]] = [[] for _ in self.pages]
            boxes: list[list[tuple[int, float, float, float, str]]] = [[] for _ in self.pages]
            line_x = self.line_x()
            text, widths = self.text, [p.width for p in self.pages]
            for i, ln in enumerate(self.lines):  # names bound locally: a pass over every line
                p = ln.page - 1
                line_text = text[ln.start:ln.end]
                per_page[p].append((i, ln.y0, ln.y1, line_text))
                width = widths[p]
                x0, x1 = line_x[i]
                if x1 < 0.1 * width or x0 > 0.9 * width:
                    margins[p].append(i)
                boxes[p].append((i, x0, x1, ln.y0, line_text))
            beside = {k: v for page_lines in boxes for k, v in numbers_beside_words(page_lines).items()}
            furniture = furniture_lines(per_page, margins, beside)
            line_no = _LINE_NO.match
            for page_lines in boxes:
                if sum([1 for b in page_lines if line_no(b[4])]) < LINE_NUMBERS_MIN:
                    continue  # fewer bare numbers than margin_line_numbers needs: it would find none
                lefts = sorted([b[1] for b in page_lines if any(map(str.isalpha, b[4]))])
                if len(lefts) >= LINE_NUMBERS_MIN:
                    furniture |= margin_line_numbers(page_lines, lefts[len(lefts) // 10])
            self._furniture = furniture
        return self._furniture

    @property
    def page_labels(self) -> list[str]:
        """The printed label of each page ("" when unknown); see labels.py."""
        cached = self.__dict__.get("_page_labels")
        if cached is None:
            pdf = self.__dict__.get("pdf_labels")
            if pdf is None and self.pdf_bytes:  # built without labels: read them from the bytes now
                try:
                    with mupdf().open(stream=self.pdf_bytes, filetype="pdf") as doc:
                        pdf = labels.pdf_page_labels(doc) if not doc.needs_pass else []
                except Exception:  # noqa: BLE001 - labels are an extra; the text is what counts
                    pdf = []
            cached = self.__dict__["_page_labels"] = labels.page_labels(self, pdf)
        return cached

    def page_label(self, page: int) -> str | None:
        """The printed label of a 1-based page, or None when unknown."""
        labs = self.page_labels
        return (labs[page - 1] or None) if 1 <= page <= len(labs) else None

    # --- segments and headings -------------------------------------------------------------
    def segments(self) -> list[Segment]:
        """Sentences/clauses and headings in reading order; a heading is never glued to the
        sentence after it."""
        if self._segments is None:
            with collector_paused():  # segments and sections are kept: collections here free nothing
                self._segments, self.__dict__["_sections"] = segment.segment_and_sections(self)
        return self._segments

    def sections(self) -> list[structure.Section]:
        """The numbered sections and clauses, in document order, each with its number, title, level
        and span (workbench.pdf.structure); [] where the PDF's outline names the sections."""
        if "_sections" not in self.__dict__:
            self._segments = None
            self.segments()
        return self.__dict__["_sections"]

    def headings(self) -> list[Segment]:
        return [s for s in self.segments() if s.kind == "heading"]

    def heading_at(self, offset: int) -> str | None:
        """The section heading in force at offset (the PDF outline's, else the numbered one)."""
        cached = self.__dict__.get("_heading_index")
        if cached is None:
            segs = self.segments()
            cached = self.__dict__["_heading_index"] = (segs, [s.start for s in segs])
        segs, starts = cached
        i = bisect.bisect_right(starts, offset) - 1
        return segs[i].heading if i >= 0 else None

    # --- spans and anchoring ----------------------------------------------------------------
    def span(self, start: int, end: int, *, parts: list[tuple[int, int]] | None = None) -> Span:
        """The Span for text[start:end]: one box per line per page hugging the words in it.

        parts (anchoring only): the sub-ranges that hold the quote when the span also covers
        text that is not part of it (a running footer, a margin label); only their words get
        boxes. A box is split where a word outside the span would fall inside it (a
        superscript between two quoted words)."""
        if not (0 <= start < end <= len(self.text)):
            raise ValueError(f"span [{start}, {end}) outside the text (0..{len(self.text)})")
        ranges = parts or [(start, end)]
        chosen: list[int] = sorted({wi for a, b in ranges for wi in self.words_in(a, b)})
        groups: dict[tuple[int, int, int], list[Word]] = {}
        for wi in chosen:
            w = self.words[wi]
            groups.setdefault((w.page, w.block, w.line), []).append(w)
        chosen_set = set(chosen)
        rects: list[PageRect] = []
        pages: list[int] = []
        for (page, _, _), ws in groups.items():
            if page not in pages:
                pages.append(page)
            for run in self._split_runs(page, ws, chosen_set):
                rects.append((page, round(min(w.x0 for w in run), 2), round(min(w.y0 for w in run), 2),
                              round(max(w.x1 for w in run), 2), round(max(w.y1 for w in run), 2)))
        if not pages:
            pages = [self.page_at(start)]
        text = self.text[start:end]
        confs = self.ocr_confidences(chosen) if self.ocr else []
        return Span(document_id=self.document.id, page=pages[0], pages=pages, start=start, end=end,
                    text=text, text_sha256=sha256_text(text), rects=rects, page_label=self.page_label(pages[0]),
                    ocr_confidence=round(sum(confs) / len(confs), 4) if confs else None,
                    ocr_min_confidence=round(min(confs), 4) if confs else None)

    # --- OCR ----------------------------------------------------------------------------------
    def ocr_confidences(self, word_indexes: list[int]) -> list[float]:
        """The OCR confidence (0..1) of each of these words that OCR read (others have none)."""
        out = []
        for wi in word_indexes:
            read = self.ocr.get(self.words[wi].page)
            if read is not None:
                lo = self._page_words[read.page - 1][0]
                if 0 <= wi - lo < len(read.confidences):
                    out.append(read.confidences[wi - lo])
        return out

    def page_ocr_confidences(self, page: int) -> list[float] | None:
        """Per word of words_on(page), in its order, OCR's confidence (0..1); None where the page
        was not read by OCR. What the viewer's OCR text layer marks as uncertain."""
        read = self.ocr.get(page)
        if read is None:
            return None
        lo, hi = self._page_words[page - 1]
        return [read.confidences[wi - lo] if wi - lo < len(read.confidences) else 0.0
                for wi in range(lo, hi) if self.words[wi].page == page]

    def ocr_doubts(self, start: int, end: int, below: float) -> list[tuple[str, float]]:
        """The words of text[start:end] that OCR read with confidence below `below`, each with
        it, in reading order: the words a reviewer checks against the page image first."""
        out = []
        for wi in self.words_in(start, end):
            conf = self.ocr_confidences([wi])
            if conf and conf[0] < below:
                out.append((self.words[wi].text, conf[0]))
        return out

    def ocr_reads(self) -> dict[int, tuple[list[list[list[RawWord]]], PageOcr]]:
        """The pages OCR read, as open_pdf takes them back (ocr_known): blocks → lines → words and
        the PageOcr, so opening the same file again does not read them again."""
        out: dict[int, tuple[list[list[list[RawWord]]], PageOcr]] = {}
        for number, read in self.ocr.items():
            blocks: dict[int, dict[int, list[RawWord]]] = {}
            for w in self.words_on(number):
                blocks.setdefault(w.block, {}).setdefault(w.line, []).append(
                    (w.x0, w.y0, w.x1, w.y1, w.text, w.block, w.line, 0))
            out[number] = ([list(lines.values()) for lines in blocks.values()], read)
        return out

    def ocr_words(self) -> dict[int, list[tuple[float, float, float, float, str, int, int]]]:
        """Per page OCR read, its words (x0, y0, x1, y1, text, block, line) in reading order, in
        the unrotated page space: what an annotated copy writes as its invisible text layer."""
        return {number: [(w.x0, w.y0, w.x1, w.y1, w.text, w.block, w.line) for w in self.words_on(number)]
                for number in self.ocr}

    def without_furniture(self, start: int, end: int) -> list[tuple[int, int]]:
        """text[start:end] as ranges without the running headers, footers and page numbers inside
        it, for a quote the anchor found only with them left out (its boxes then skip them)."""
        bounds = self.__dict__.get("_furniture_bounds")
        if bounds is None:  # sorted (start, end) of the furniture lines, once
            bounds = self.__dict__["_furniture_bounds"] = sorted((self.lines[i].start, self.lines[i].end)
                                                                 for i in self.furniture)
        if not bounds:
            return [(start, end)]
        lo = max(0, bisect.bisect_left(bounds, (start, start)) - 1)
        hi = bisect.bisect_left(bounds, (end, end))
        cuts = [(a, b) for a, b in bounds[lo:hi] if b > start and a < end]
        parts: list[tuple[int, int]] = []
        pos = start
        for a, b in cuts:
            if a > pos:
                parts.append((pos, a))
            pos = max(pos, b)
        if pos < end:
            parts.append((pos, end))
        return parts or [(start, end)]

    def _split_runs(self, page: int, ws: list[Word], chosen: set[int]) -> list[list[Word]]:
        """Runs of a line's words whose common box holds no other word's centre."""
        x0, y0 = min(w.x0 for w in ws), min(w.y0 for w in ws)
        x1, y1 = max(w.x1 for w in ws), max(w.y1 for w in ws)
        lo, hi = self._page_words[page - 1]
        intruders = [
            (self.words[i].x0 + self.words[i].x1) / 2
            for i in range(lo, hi)
            if i not in chosen
            and x0 - 1 <= (self.words[i].x0 + self.words[i].x1) / 2 <= x1 + 1
            and y0 - 1 <= (self.words[i].y0 + self.words[i].y1) / 2 <= y1 + 1
        ]
        if not intruders:
            return [ws]
        runs: list[list[Word]] = [[]]
        for w in sorted(ws, key=lambda w: w.x0):
            if runs[-1] and any(runs[-1][-1].x1 - 1 <= cx <= w.x0 + 1 for cx in intruders):
                runs.append([])
            runs[-1].append(w)
        return runs

    def words_on(self, page: int) -> list[Word]:
        """The words of a 1-based page in reading order."""
        lo, hi = self._page_words[page - 1]
        return [w for w in self.words[lo:hi] if w.page == page]

    @property
    def _page_words(self) -> list[tuple[int, int]]:
        """Per page, the [first, last) word indexes."""
        pw = self.__dict__.get("_pw")
        if pw is None:
            pw = []
            for p in self.pages:
                lo = bisect.bisect_left(self._word_starts, p.start)
                hi = bisect.bisect_left(self._word_starts, p.end + 1)
                pw.append((lo, hi))
            self.__dict__["_pw"] = pw
        return pw

    @property
    def matcher(self) -> anchor.Matcher:
        if self._matcher is None:
            self._matcher = anchor.Matcher(self)
        return self._matcher

    def locate(self, quote: str, *, near: int | None = None) -> Span | None:
        """The quote's exact (normalised) occurrence, or None. Never a fuzzy guess. A quote that
        occurs more than once gives its first occurrence, or with `near` (a text offset, e.g. the
        chunk the quote was drawn from) the occurrence closest to it."""
        return self.matcher.locate(quote, near)

    def closest(self, quote: str) -> ClosestMatch | None:
        """The best fuzzy candidate, flagged with its similarity (0..1); not an anchor."""
        return self.matcher.closest(quote)


OcrReuse = Callable[[str], "dict[int, tuple[list[list[list[RawWord]]], PageOcr]]"]


def open_pdf(source: str | Path | bytes, *, password: str | None = None, filename: str | None = None,
             settings: Settings | None = None, on_ocr: Callable[[int, int], None] | None = None,
             ocr_known: OcrReuse | None = None) -> ParsedDocument:
    """Open a PDF from a path or bytes. Raises workbench.errors.PdfError subclasses for bad input;
    scanned pages and repaired files open with warnings. Text is capped per page and per document
    (Settings.max_page_chars, max_page_words, max_document_chars, max_document_words): a page
    over a cap is refused before it is extracted where its content shows that (limits.py), and
    right after extraction otherwise, so memory stays bounded whatever the file holds.

    Pages without usable text (no text layer, or glyphs mapping to no characters; every page with
    Settings.ocr="force") are read by OCR where Tesseract is installed (workbench/pdf/ocr.py), and
    their words are the page's words like any text layer's. `on_ocr(done, total)` reports OCR
    progress page by page; `ocr_known(sha256)` gives pages already read for this file (the parse
    cache's), which are reused, not read again, when read by the same engine and languages."""
    settings = settings if settings is not None else defaults()
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
    unmapped: list[int] = []
    per_page: list[list] = []  # blocks → lines → raw words, per page
    per_page_boxes: list[list | None] = []  # each page's line boxes in the order of its lines (page_blocks)
    rects: list[pymupdf.Rect] = []  # each page's rectangle
    ocr_read: dict[int, PageOcr] = {}
    ocr_note: str | None = None
    shown_floor = 0  # glyphs the pages so far show at least (limits.py)
    chars_so_far = words_so_far = 0  # extracted so far, checked page by page so memory stays bounded
    mupdf().TOOLS.reset_mupdf_warnings()
    try:
        # pages read and words built without collections: all kept, nothing to free (collector_paused)
        with collector_paused() as collector_was_on:
            for pno in range(doc.page_count):
                page = doc[pno]
                number = pno + 1
                shown_floor += _refuse_text_before_extracting(doc, page, name, number, shown_floor, settings)
                rect = page.rect  # once: a call into MuPDF, read by page_blocks and kept for the build
                boxes: list = []
                try:
                    blocks = page_blocks(page, boxes, rect.width)
                except UnmappedText:  # symbols, not words: read as a page without text
                    blocks = []
                    unmapped.append(number)
                except Exception:  # a page MuPDF cannot interpret: keep the rest of the document
                    blocks = []
                    failed.append(number)
                chars_so_far, words_so_far = _refuse_text_after_extracting(blocks, name, number, chars_so_far,
                                                                           words_so_far, settings)
                per_page.append(blocks)
                per_page_boxes.append(boxes if blocks else None)
                rects.append(rect)  # kept: loading the page again for its size cost a page load
            no_layer = [i + 1 for i, b in enumerate(per_page) if not b]
            want = list(range(1, doc.page_count + 1)) if settings.ocr == "force" else \
                [n for n in no_layer if n not in failed]
            if want:
                if collector_was_on:  # OCR runs with the collector as the caller had it
                    gc.enable()
                try:
                    ocr_read, ocr_note = _ocr(doc, opened.sha256, want, per_page, settings, on_ocr, ocr_known)
                finally:
                    gc.disable()
                for n in ocr_read:  # its lines are OCR's now: their boxes are taken in the build
                    per_page_boxes[n - 1] = None
            add_word, new_word = words.append, _new_word
            line_x: list[tuple[float, float]] = []  # each line's left and right edge, kept (line_x())
            add_x = line_x.append
            for pno, blocks in enumerate(per_page):
                number = pno + 1
                if pno:
                    parts.append(PAGE_SEP)
                    pos += len(PAGE_SEP)
                page_start = pos
                if number in ocr_read:  # checked like any page's text, now that OCR has read it
                    _refuse_text_after_extracting(blocks, name, number, pos, len(words), settings)
                boxes = per_page_boxes[pno]
                k = 0
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
                        for rw in line:  # the hot loop of ingest: one pass a word, names bound locally
                            t = rw[4]
                            end = pos + len(t)
                            add_word(new_word(Word, (number, rw[0], rw[1], rw[2], rw[3], t, pos, end, bi, li)))
                            pos = end + 1
                        pos -= 1
                        parts.append(" ".join([rw[4] for rw in line]))
                        # the line's box, as page_blocks took it (or one pass here: min's and max's own comparisons)
                        x0, y0, x1, y1 = boxes[k] if boxes is not None else _line_box(line)
                        k += 1
                        lines.append(Line(number, bi, line_start, pos, first, len(words), y0, y1))
                        add_x((x0, x1))
                rect = rects[pno]
                pages.append(PageText(number, page_start, pos, rect.width, rect.height, bool(blocks)))
            per_page_boxes.clear()
            per_page.clear()  # before the collector is on again: its first pass then walks no raw words
        meta = doc.metadata or {}
        pdf_labels = labels.pdf_page_labels(doc)
        no_outline = _no_outline(doc)
        try:
            carries = active.find(doc).warning()
        except Exception:  # noqa: BLE001 - a warning is an extra; never fail ingest over it
            carries = None
        if carries:
            warnings.append(carries)
    finally:
        doc.close()
    text = "".join(parts)
    mupdf_says = " ".join(mupdf().TOOLS.mupdf_warnings().split())
    if "error" in mupdf_says.lower():
        warnings.append(f"some page content is damaged ({mupdf_says[:100]}): text may be incomplete; "
                        "check quotes against the page")
    unread = [n for n in no_layer if n not in ocr_read]  # no usable text and not read by OCR either
    if failed:
        warnings.append(f"{_pages(failed)} could not be read (damaged content): left empty")
    if [n for n in unmapped if n in unread]:
        warnings.append(f"{_pages([n for n in unmapped if n in unread])}: the fonts map their letters to no "
                        "characters, so the text layer reads as symbols; read as pages without a text layer "
                        "(OCR the PDF to quote them)")
    scanned = [n for n in unread if n not in unmapped]
    if scanned and len(scanned) == len(pages):
        warnings.append(f"no text layer on any page (scanned?): {_pages(scanned)}; quotes cannot be "
                        "located until the PDF is OCRed")
    elif scanned:
        warnings.append(f"{_pages(scanned)} {'has' if len(scanned) == 1 else 'have'} no text layer (scanned?): "
                        "quotes there cannot be located")
    read = [n for n in no_layer if n in ocr_read]
    if read:
        first = ocr_read[read[0]]
        mean = sum(sum(ocr_read[n].confidences) for n in read) / max(1, sum(len(ocr_read[n].confidences) for n in read))
        what = "have no usable text layer" if len(read) > 1 else "has no usable text layer"
        warnings.append(f"{_pages(read)} {what}: read by OCR ({first.engine}, {first.languages}), mean "
                        f"confidence {mean:.2f}; quotes there are what OCR read")
    if ocr_note and (unread or read):
        warnings.append(ocr_note)
    document = Document(
        id=opened.sha256, filename=name, title=(meta.get("title") or "").strip() or None,
        author=(meta.get("author") or "").strip() or None, created=pdf_date(meta.get("creationDate")),
        modified=pdf_date(meta.get("modDate")), pages=len(pages), has_text_layer=len(no_layer) < len(pages),
        pages_without_text=no_layer, warnings=warnings, size_bytes=len(data), encrypted=opened.encrypted,
        ocr_pages=[_ocr_page(o, settings) for _n, o in sorted(ocr_read.items())],
    )
    parsed = ParsedDocument(document, data, text, pages, words, lines, pdf_labels)
    parsed.derived("line_x", lambda: line_x)
    parsed.no_outline = no_outline
    parsed.ocr = dict(sorted(ocr_read.items()))
    return parsed


def _no_outline(doc: pymupdf.Document) -> bool:
    """Whether the PDF's catalog has no /Outlines (or a null one): MuPDF reads a PDF's outline from
    there only, so the PDF has none; False where the catalog cannot be read."""
    try:
        return doc.xref_get_key(doc.pdf_catalog(), "Outlines")[0] == "null"
    except Exception:  # noqa: BLE001 - unknown: the outline is read from the bytes as before
        return False


def _ocr(doc: pymupdf.Document, sha256: str, want: list[int], per_page: list[list], settings: Settings,
         on_ocr: Callable[[int, int], None] | None, known: OcrReuse | None) -> tuple[dict[int, PageOcr], str | None]:
    """Read the pages `want` by OCR into per_page (reusing pages `known` read with the same engine
    and languages); the pages read, and a note when OCR could not run as asked."""
    how = ocr.plan(settings)
    if not how.ready:
        return {}, how.warning
    assert how.engine is not None
    reuse = {n: r for n, r in (known(sha256) if known is not None else {}).items()
             if n in want and r[1].engine == how.engine.name and r[1].languages == how.languages}
    todo = [n for n in want if n not in reuse]
    results = {**reuse, **(ocr.read_pages(doc, todo, settings, how, on_ocr) if todo else {})}
    out: dict[int, PageOcr] = {}
    for n in want:
        r = results.get(n)
        if r is None or not r[0]:  # failed, or nothing on the page that OCR could read
            continue
        per_page[n - 1] = r[0]
        out[n] = r[1]
    failed = [n for n in todo if results.get(n) is None]
    blank = [n for n in want if results.get(n) is not None and n not in out]
    notes = [how.warning, f"OCR failed on {_pages(failed)}" if failed else None,
             f"OCR found no words on {_pages(blank)}" if blank else None]
    return out, "; ".join(x for x in notes if x) or None


def _ocr_page(o: PageOcr, settings: Settings) -> OcrPage:
    return OcrPage(page=o.page, engine=o.engine, languages=o.languages, words=len(o.confidences),
                   mean_confidence=round(o.mean_confidence, 4),
                   low_confidence_words=sum(c < settings.ocr_low_confidence for c in o.confidences))


_SPLIT = "split the PDF, or raise the limit if the text is genuine"


def _refuse_text_before_extracting(doc: pymupdf.Document, page: pymupdf.Page, name: str, number: int,
                                   shown_so_far: int, settings: Settings) -> int:
    """Raise TooMuchTextError when the page's content shows more text than the caps allow
    (counted without extracting it); return the glyphs it shows at least."""
    cap = settings.max_page_chars
    try:
        floor = shown_glyphs_floor(doc, page, cap=cap)
    except Exception:  # noqa: BLE001 - unreadable content: extraction reports the page as damaged
        return 0
    if floor > cap:
        raise TooMuchTextError(
            f"{name}: page {number} shows at least {floor:,} characters, over the limit of {cap:,} per "
            f"page (WORKBENCH_MAX_PAGE_CHARS); it was not read: {_SPLIT}")
    if shown_so_far + floor > settings.max_document_chars:
        raise TooMuchTextError(
            f"{name} shows more than {settings.max_document_chars:,} characters by page {number}, over the "
            f"limit per document (WORKBENCH_MAX_DOCUMENT_CHARS): {_SPLIT}")
    return floor


def _refuse_text_after_extracting(blocks: list, name: str, number: int, chars_before: int, words_before: int,
                                  settings: Settings) -> tuple[int, int]:
    """Raise TooMuchTextError when one extracted page, or the document so far, is over a cap;
    else the document's characters and words with this page's."""
    n_words = sum([len(line) for block in blocks for line in block])
    n_chars = sum([len(rw[4]) for block in blocks for line in block for rw in line]) + n_words
    for count, cap, what, env in ((n_chars, settings.max_page_chars, "characters", "MAX_PAGE_CHARS"),
                                  (n_words, settings.max_page_words, "words", "MAX_PAGE_WORDS")):
        if count > cap:
            raise TooMuchTextError(f"{name}: page {number} holds {count:,} {what}, over the limit of {cap:,} "
                                   f"per page (WORKBENCH_{env}): {_SPLIT}")
    for count, cap, what, env in ((chars_before + n_chars, settings.max_document_chars, "characters",
                                   "MAX_DOCUMENT_CHARS"),
                                  (words_before + n_words, settings.max_document_words, "words",
                                   "MAX_DOCUMENT_WORDS")):
        if count > cap:
            raise TooMuchTextError(f"{name} holds more than {cap:,} {what} by page {number}, over the limit "
                                   f"per document (WORKBENCH_{env}): {_SPLIT}")
    return chars_before + n_chars + len(PAGE_SEP), words_before + n_words


def _pages(nums: list[int]) -> str:
    """[4] -> 'page 4'; [1, 2, 3, 7] -> 'pages 1-3, 7' (warnings read as English)."""
    return f"page {nums[0]}" if len(nums) == 1 else f"pages {page_ranges(nums)}"
