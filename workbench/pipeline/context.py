"""What extract may read besides the chunks: the parsed documents' sentences and headings
(implements backends.base.ExtractContext over ParsedDocuments)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any


class DocsContext:
    """Sentences (never headings) overlapping a range, found by bisection on the documents'
    segments, which are computed once per document."""

    def __init__(self, docs: list[Any]):
        self._docs = {d.document.id: d for d in docs}
        self._segs: dict[str, tuple[list[int], list[int], list[Any]]] = {}

    def doc(self, document_id: str) -> Any:
        return self._docs[document_id]

    def _segments(self, document_id: str) -> tuple[list[int], list[int], list[Any]]:
        if document_id not in self._segs:
            segs = sorted((s for s in self._docs[document_id].segments() if s.kind == "sentence"),
                          key=lambda s: (s.start, s.end))
            ends = [s.end for s in segs]
            # segments do not nest, so ends rise with starts; keep a running max to be safe
            for i in range(1, len(ends)):
                ends[i] = max(ends[i], ends[i - 1])
            self._segs[document_id] = ([s.start for s in segs], ends, segs)
        return self._segs[document_id]

    def sentences(self, document_id: str, start: int, end: int) -> list[tuple[int, int, str]]:
        if document_id not in self._docs:
            return []
        starts, ends, segs = self._segments(document_id)
        lo = bisect_right(ends, start)  # first segment ending after start
        hi = bisect_left(starts, end)  # segments starting before end
        return [(s.start, s.end, s.text) for s in segs[lo:hi] if s.end > start]

    def heading_at(self, document_id: str, offset: int) -> str | None:
        doc = self._docs.get(document_id)
        return doc.heading_at(offset) if doc is not None else None
