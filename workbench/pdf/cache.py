"""Parsed documents kept by the workspace: a small LRU in memory and a JSON file on disk, keyed
by the parser version and the PDF's SHA-256, so a file written by another parser is never read.

The file is data, never code (issue 37): whoever can write the data folder could otherwise run
code in every process that opens a document. It is read through a pydantic model that accepts
only the fields below; anything else (a pickle, a truncated or edited file, another document's)
is logged and the document parsed again from the stored PDF, never silently skipped. The PDF
bytes are not in the cache either: the store keeps them content-addressed."""

from __future__ import annotations

import json
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from workbench.datadir import private_dir
from workbench.models import Document
from workbench.pdf.document import Line, PageText, ParsedDocument, Segment, Word
from workbench.pdf.ocr import PageOcr
from workbench.pdf.structure import Section

log = logging.getLogger(__name__)

# Bump when ParsedDocument's fields or the text extraction change: files of other versions are
# then ignored (and replaced on the next parse).
PARSER_VERSION = 43  # 43: a clause number typed against its title ("4.3Fixtures and Tooling"); 42: in a document whose top sections print no heading ("3.4 …" then "4.1 Charges"), a first child heading on its own line opens one of the next top numbers; 41: a contents title after a page's running header on its line ("Execution version TABLE OF CONTENTS: CLAUSE PAGE"); 40: "ARTICLE I." is a number, not an initial (a sentence may end there: "… as follows:\nARTICLE I. SCOPE …"); 39: a heading on its own line that drops or adds its siblings' stop and goes on from them is theirs ("3. DELIVERY …", "4 FEES."), a labelled roman article with a run-in title inside running text ("ARTICLE I. SCOPE OF STRATEGIC ALLIANCE. A. …"); 38: a first child run in after its parent's title opens too ("9. CONFIDENTIAL INFORMATION 9.1 Confidential Information. 9.1.1 …"), a lettered heading from "C." on inside a numbered section is its item though "A." and "B." were run into lines; 37: a numbered line whose title's stop is followed by a word a sentence opens with ("12. Sale … Prohibited. No Joint") is no heading line; 36: … also where the sentence ends at that number ("5. Term 5.1."); 35: a title ends where its first child's number begins ("5. Payment 5.1 FEES …"), a one-word title in capitals of four letters or more run in ("7.2 NON-EXCLUSIVITY Subject …"); 34: "ARTICLE II - AUTHORITY …" titled after the dash (roman numbers too); 33: "2. DEFINITIONS 2.1 …" (a bare number's title in capitals run into its first clause), a "Table of Contents" link atop most pages no contents; 32: "ARTICLE 2 - ENTERPRISE NAME 2.1 The …" (a heading in capitals run into its first clause) opens its article even inside a line and after a missed one, a table of contents runs to where the body begins (entries run together on page numbers, a notice between them); 31: a typed underline after a heading's title is no part of it, "ARTICLE 2 - PROGRAM" titled after the dash, "1 EXHIBIT 10.17" no section, "IN WITNESS WHEREOF" inside a line ends the last section, "14.." a number with a slipped stop, an untitled clause's next sibling a clause whatever its verb, "Amendments"/"Exhibits"/"Schedules" headings divisions; 30: a numbered clause opening a sentence inside a line opens a section where it is the very next number; 29: a bare number beside words that do not repeat from page to page numbers a section (no page furniture), run-in titles with ";" "/" and initialisms, "I." and "II." one numbering, "A." "B." inside a numbered section its items, a table of contents over several pages; 28: a one-letter OCR word's sliver of a box (1–2 pt at the letter's right edge) grows to a letter's width, leftward first, never over a neighbour; 27: a sentence goes on past a closing bracket only into a lower-case line of running text (5+ words: "twenty (20)" | "days after notice ..."), "2.0 Definitions" is section 2 (N.0 numbering), "o " opens a bulleted item; 26: an OCR word's box spans its line's ascender-to-descender band at the word (hOCR baselines), as a text layer's word box spans its font's height; 25: segments end at structure-node boundaries (an inline list after its lead-in read as items, a lettered heading its own segment, an item's marker never ends the item before it); 24: numbered sections as a tree (CachedDocument.sections), a quote's heading the innermost titled section holding it, section numbers in the margin are no furniture; 23: pages without usable text are read by OCR, their words' confidences kept (CachedDocument.ocr); 22: the cache is JSON (CachedDocument), no longer a pickle; 21: a transcript's margin line numbers are furniture, read after the page; 20: a block centred over two columns of running text is a band, not part of either; "1" / "Background" one heading; 19: a page whose glyphs mostly map to no character is read as having no text, an outline entry named after a file is no section; 18: margin icons ("!" over "CAUTION") read apart from the paragraph beside them; 17: a numbered line among numbered sentences is a list item, not a heading; 16: an inset page number ('-5-') is furniture anywhere on a page; 15: a run-in title with its paragraph's first words is no heading line; 14: a table of contents names no section; 13: a long numbered title in capitals is a heading; 12: a short numbered sentence is no run-in heading; 11: an ellipsis may open a sentence; 10: a rule drawn in text between the halves of a sentence; 9: clauses in capitals are body, addenda end numbered sections, legal-citation abbreviations; 8: a heading-like line whose sentence goes on in lower case is body; 7: furniture by rows
FORMAT = "workbench-parsed-document"


class CachedDocument(BaseModel):
    """What the cache file holds: a ParsedDocument as plain data. Words carry no text of their
    own (a word is text[start:end]); segments and page labels are kept because they are read
    from the PDF's bytes (outline, /PageLabels), which the cache does not keep."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["workbench-parsed-document"]
    parser_version: int
    document: Document
    pdf_labels: list[str] | None
    text: str
    pages: list[tuple[int, int, int, float, float, bool]]  # PageText fields
    words: list[tuple[int, float, float, float, float, int, int, int, int]]  # Word fields without text
    lines: list[tuple[int, int, int, int, int, int, float, float]]  # Line fields
    segments: list[tuple[int, int, int, str, str | None, Literal["sentence", "heading"]]]  # Segment fields
    page_labels: list[str]
    furniture: list[int]
    # Pages read by OCR: (page, engine, languages, one confidence 0..1 per word of the page, in order).
    # Their words are among `words`: kept here, a page is read once, not again on the next open.
    ocr: list[tuple[int, str, str, list[float]]] = []
    # Numbered sections and clauses (workbench.pdf.structure.Section fields)
    sections: list[tuple[str, tuple[int, ...], str, str, int, int, int, int]] = []

    @classmethod
    def of(cls, parsed: ParsedDocument) -> CachedDocument:
        return cls.model_construct(
            format=FORMAT, parser_version=PARSER_VERSION, document=parsed.document, pdf_labels=parsed.pdf_labels,
            text=parsed.text, pages=[tuple(_fields(p, PageText)) for p in parsed.pages],
            words=[(w.page, w.x0, w.y0, w.x1, w.y1, w.start, w.end, w.block, w.line) for w in parsed.words],
            lines=[tuple(_fields(ln, Line)) for ln in parsed.lines],
            segments=[tuple(_fields(s, Segment)) for s in parsed.segments()],
            page_labels=list(parsed.page_labels), furniture=sorted(parsed.furniture),
            ocr=[(o.page, o.engine, o.languages, list(o.confidences)) for o in parsed.ocr.values()],
            sections=[tuple(_fields(s, Section)) for s in parsed.sections()])

    def parsed(self) -> ParsedDocument:
        """The ParsedDocument again; ValueError when an offset points outside the text."""
        text, n = self.text, len(self.text)
        if any(not 0 <= a <= b <= n for a, b in ((p[1], p[2]) for p in self.pages)) or \
                any(not 0 <= w[5] <= w[6] <= n for w in self.words) or \
                any(not 0 <= ln[2] <= ln[3] <= n for ln in self.lines) or \
                any(not 0 <= s[0] <= s[1] <= n for s in self.segments) or \
                any(not 0 <= i < len(self.lines) for i in self.furniture) or \
                any(not 0 <= s[5] <= s[6] <= n for s in self.sections):
            raise ValueError("an offset points outside the document's text")
        words = [tuple.__new__(Word, (w[0], w[1], w[2], w[3], w[4], text[w[5]:w[6]], w[5], w[6], w[7], w[8]))
                 for w in self.words]
        parsed = ParsedDocument(self.document, None, text, [PageText(*p) for p in self.pages], words,
                                [Line(*ln) for ln in self.lines], self.pdf_labels)
        parsed._segments = [Segment(*s) for s in self.segments]
        parsed.__dict__["_sections"] = [Section(*s) for s in self.sections]
        parsed._furniture = set(self.furniture)
        parsed.__dict__["_page_labels"] = list(self.page_labels)
        for page, engine, languages, confs in self.ocr:
            if not 1 <= page <= len(self.pages) or len(parsed.words_on(page)) != len(confs) or \
                    any(not 0.0 <= c <= 1.0 for c in confs):
                raise ValueError("OCR confidences do not match the page's words")
            parsed.ocr[page] = PageOcr(page, engine, languages, tuple(confs))
        return parsed


def _fields(obj, cls) -> list:
    return [getattr(obj, f) for f in cls.__slots__]


class ParsedCache:
    """Parsed documents by id (= SHA-256 of the PDF bytes). `parse(id)` builds one from the
    store on a miss. Thread-safe: the UI shares one workspace between sessions."""

    def __init__(self, folder: Path, parse: Callable[[str], ParsedDocument], max_docs: int = 8):
        self.folder = folder
        self.parse = parse
        self.max_docs = max_docs
        self._memory: OrderedDict[str, ParsedDocument] = OrderedDict()
        self._lock = threading.Lock()

    def path(self, document_id: str) -> Path:
        return self.folder / f"{document_id}.v{PARSER_VERSION}.json"

    def get(self, document_id: str) -> ParsedDocument:
        with self._lock:
            if document_id in self._memory:
                self._memory.move_to_end(document_id)
                return self._memory[document_id]
        parsed = self._read(document_id)
        if parsed is None:
            parsed = self.parse(document_id)
            self.put(parsed)
        else:
            self._remember(parsed)
        return parsed

    def known(self, document_id: str) -> ParsedDocument | None:
        """The document as cached (memory, then disk), or None; never parses."""
        with self._lock:
            if document_id in self._memory:
                return self._memory[document_id]
        return self._read(document_id)

    def ocr_reads(self, document_id: str) -> dict:
        """Pages of this file already read by OCR (ParsedDocument.ocr_reads), for open_pdf's
        ocr_known: re-ingesting a scan reuses them instead of reading every page again."""
        parsed = self.known(document_id)
        return parsed.ocr_reads() if parsed is not None else {}

    def put(self, parsed: ParsedDocument) -> None:
        """Keep a freshly parsed document, in memory and on disk (atomically: a reader never
        sees half a file). Its PDF bytes are dropped from memory too: the store has them. What
        is read from the bytes beside the text (the outline's section headings, the page labels)
        is read first, so a cached document says what a fresh parse says."""
        data = CachedDocument.of(parsed).model_dump_json().encode()
        parsed.pdf_bytes = None
        self._remember(parsed)
        path = self.path(parsed.document.id)
        private_dir(path.parent)
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)

    def _remember(self, parsed: ParsedDocument) -> None:
        with self._lock:
            self._memory[parsed.document.id] = parsed
            self._memory.move_to_end(parsed.document.id)
            while len(self._memory) > self.max_docs:
                self._memory.popitem(last=False)

    def _read(self, document_id: str) -> ParsedDocument | None:
        path = self.path(document_id)
        try:
            cached = CachedDocument.model_validate_json(path.read_bytes())
            parsed = cached.parsed()
        except FileNotFoundError:
            return None
        except (OSError, ValueError, ValidationError, json.JSONDecodeError) as exc:  # not ours, truncated, edited
            log.warning("parsed-document cache %s is unreadable or not a cache file (%s); ignored, "
                        "rebuilding it from the stored PDF", path, type(exc).__name__)
            return None
        if cached.parser_version != PARSER_VERSION or cached.document.id != document_id:
            log.warning("parsed-document cache %s holds another document or parser version; rebuilding it", path)
            return None
        return parsed
