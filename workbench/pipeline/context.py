"""What extract may read besides the chunks: the parsed documents' sentences and headings
(implements backends.base.ExtractContext over ParsedDocuments)."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from typing import Any

from workbench.models import DocSegment, ParsedDoc
from workbench.text import weights

_SENTENCE_END = re.compile(r"[.;:!?][\"')\u201d\u2019]*\s*$")


def reads_as_sentence(text: str) -> bool:
    """A 'heading' segment that is really a statement: standards put requirements in run-in
    numbered lines ("3.1.12 Monitor and control remote access sessions.") that a layout
    segmenter calls headings. Those end with a full stop and have a few words."""
    return len(text.split()) >= 4 and bool(_SENTENCE_END.search(text))


class DocsContext:
    """Sentences overlapping a range, found by bisection on the documents' segments (computed
    once per document). Headings that read as sentences count as sentences; the others are
    section headings."""

    def __init__(self, docs: list[ParsedDoc], retriever: Any = None):
        self._docs = {d.document.id: d for d in docs}
        self.retriever = retriever  # segment search (search_segments), shared with claim checking
        self._segs: dict[str, tuple[list[int], list[int], list[DocSegment]]] = {}
        self._all: dict[str, tuple[list[int], list[DocSegment]]] = {}  # headings too, by end

    def doc(self, document_id: str) -> ParsedDoc:
        return self._docs[document_id]

    def documents(self) -> list[ParsedDoc]:
        return list(self._docs.values())

    def _segments(self, document_id: str) -> tuple[list[int], list[int], list[DocSegment]]:
        if document_id not in self._segs:
            all_segs = sorted(self._docs[document_id].segments(), key=lambda s: (s.start, s.end))
            segs = [s for s in all_segs if s.kind == "sentence" or reads_as_sentence(s.text)]
            ends = [s.end for s in segs]
            for i in range(1, len(ends)):  # segments do not nest; a running max keeps bisection sound
                ends[i] = max(ends[i], ends[i - 1])
            self._segs[document_id] = ([s.start for s in segs], ends, segs)
            by_end = sorted(all_segs, key=lambda s: s.end)
            self._all[document_id] = ([s.end for s in by_end], by_end)
            w = weights.remember(document_id, lambda: [s.text for s in all_segs])
            # the user may change a document's source type between runs: kept current, not cached
            w.source_type = self._docs[document_id].document.source_type
        return self._segs[document_id]

    def sentences(self, document_id: str, start: int, end: int) -> list[tuple[int, int, str]]:
        if document_id not in self._docs:
            return []
        starts, ends, segs = self._segments(document_id)
        lo = bisect_right(ends, start)  # first segment ending after start
        hi = bisect_left(starts, end)  # segments starting before end
        return [(s.start, s.end, s.text) for s in segs[lo:hi] if s.end > start]

    def sentence_before(self, document_id: str, start: int) -> tuple[int, int, str] | None:
        """The sentence that ends right before `start` with nothing but space between them (no
        heading, no page furniture, no table): what a sentence opening "Such …" or
        "Consequently, …" reads on from. None otherwise."""
        if document_id not in self._docs:
            return None
        self._segments(document_id)
        ends, by_end = self._all[document_id]
        i = bisect_right(ends, start) - 1
        if i < 0:
            return None
        prev = by_end[i]
        text = self._docs[document_id].text
        if prev.start >= start or text[prev.end:start].strip() or not (
                prev.kind == "sentence" or reads_as_sentence(prev.text)):
            return None
        return prev.start, prev.end, prev.text

    def heading_at(self, document_id: str, offset: int) -> str | None:
        """The section heading in force at offset (see workbench.pdf.segment)."""
        if document_id not in self._docs:
            return None
        return self._docs[document_id].heading_at(offset)
