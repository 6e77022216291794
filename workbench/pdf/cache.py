"""Parsed documents kept by the workspace: a small LRU in memory and a pickle on disk, keyed by
the parser version and the PDF's SHA-256, so a file written by another parser is never read.

The PDF bytes are not in the cache (the store keeps them content-addressed; a rebuild reads
them from there), and an unreadable file is logged and rebuilt, never silently skipped."""

from __future__ import annotations

import logging
import os
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from workbench.pdf.document import ParsedDocument

log = logging.getLogger(__name__)

# Bump when ParsedDocument's fields or the text extraction change: files of other versions are
# then ignored (and replaced on the next parse).
PARSER_VERSION = 21  # 21: a transcript's margin line numbers are furniture, read after the page; 20: a block centred over two columns of running text is a band, not part of either; "1" / "Background" one heading; 19: a page whose glyphs mostly map to no character is read as having no text, an outline entry named after a file is no section; 18: margin icons ("!" over "CAUTION") read apart from the paragraph beside them; 17: a numbered line among numbered sentences is a list item, not a heading; 16: an inset page number ('-5-') is furniture anywhere on a page; 15: a run-in title with its paragraph's first words is no heading line; 14: a table of contents names no section; 13: a long numbered title in capitals is a heading; 12: a short numbered sentence is no run-in heading; 11: an ellipsis may open a sentence; 10: a rule drawn in text between the halves of a sentence; 9: clauses in capitals are body, addenda end numbered sections, legal-citation abbreviations; 8: a heading-like line whose sentence goes on in lower case is body; 7: furniture by rows


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
        return self.folder / f"{document_id}.v{PARSER_VERSION}.pkl"

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

    def put(self, parsed: ParsedDocument) -> None:
        """Keep a freshly parsed document, in memory and on disk (atomically: a reader never
        sees half a file). Its PDF bytes are dropped from memory too: the store has them. What
        is read from the bytes beside the text (the outline's section headings, the page labels)
        is read first, so a cached document says what a fresh parse says."""
        parsed.segments()
        _ = parsed.page_labels
        parsed.pdf_bytes = None
        self._remember(parsed)
        path = self.path(parsed.document.id)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        with tmp.open("wb") as fh:
            pickle.dump((PARSER_VERSION, parsed.document.id, parsed), fh, protocol=pickle.HIGHEST_PROTOCOL)
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
            with path.open("rb") as fh:
                version, sha, parsed = pickle.load(fh)
        except FileNotFoundError:
            return None
        except Exception as exc:  # noqa: BLE001 - truncated, corrupt or from an older layout
            log.warning("parsed-document cache %s is unreadable (%s: %s); rebuilding it from the stored PDF",
                        path, type(exc).__name__, exc)
            return None
        if version != PARSER_VERSION or sha != document_id or not isinstance(parsed, ParsedDocument) \
                or parsed.document.id != document_id:
            log.warning("parsed-document cache %s holds another document or parser version; rebuilding it", path)
            return None
        return parsed
