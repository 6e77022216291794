"""Chunks and segment units cut from a parsed document along its segment boundaries, so every
piece keeps exact character offsets into `doc.text` (the anchor the evidence spans rely on).

Works on anything shaped like models.ParsedDoc (the PDF area's ParsedDocument): `.text`,
`.segments()` (models.DocSegment) and `.document.id`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from workbench.models import Chunk, DocSegment, ParsedDoc

_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Piece:
    """A span of doc.text to index: a chunk, a segment, or a window of adjacent segments."""

    start: int
    end: int
    page: int
    heading: str | None
    first: int  # index of the first segment it covers
    last: int  # index of the last segment it covers (inclusive)
    kind: str = "sentence"  # the segment's kind for one segment; "window" or "chunk" otherwise


def _words(text: str) -> int:
    return len(_WORD.findall(text))


def _split_long(doc_text: str, seg: DocSegment, idx: int, max_words: int) -> list[Piece]:
    """A segment longer than a chunk is cut at whitespace into pieces of max_words words."""
    spans = [(m.start() + seg.start, m.end() + seg.start) for m in _WORD.finditer(doc_text[seg.start : seg.end])]
    out = []
    for i in range(0, len(spans), max_words):
        part = spans[i : i + max_words]
        out.append(Piece(part[0][0], part[-1][1], seg.page, seg.heading, idx, idx, seg.kind))
    return out


def chunk_pieces(doc: ParsedDoc, chunk_words: int) -> list[Piece]:
    """Greedy packing of whole segments into pieces of about chunk_words words; a heading starts
    a new chunk when the current one is already a third full."""
    text = doc.text
    segs = [s for s in doc.segments() if s.end > s.start and text[s.start : s.end].strip()]
    pieces: list[Piece] = []
    cur: list[tuple[int, DocSegment]] = []
    cur_words = 0

    def flush() -> None:
        nonlocal cur, cur_words
        if cur:
            (i0, s0), (i1, s1) = cur[0], cur[-1]
            heading = s0.heading if s0.kind != "heading" else s0.text.strip() or s0.heading
            pieces.append(Piece(s0.start, s1.end, s0.page, heading, i0, i1, "chunk"))
        cur, cur_words = [], 0

    for i, seg in enumerate(segs):
        n = _words(text[seg.start : seg.end])
        if n > chunk_words * 1.5:
            flush()
            pieces.extend(_split_long(text, seg, i, chunk_words))
            continue
        if cur and (
            cur_words + n > chunk_words * 1.25
            or (seg.kind == "heading" and cur_words >= chunk_words / 3)
        ):
            flush()
        cur.append((i, seg))
        cur_words += n
        if cur_words >= chunk_words:
            flush()
    flush()
    return pieces


def segment_pieces(doc: ParsedDoc, window: int = 1, max_words: int = 120) -> list[Piece]:
    """Every segment, plus (window ≥ 2) every run of `window` adjacent segments on the same
    page, so a claim answered by a sentence and its neighbour still has one unit matching it."""
    text = doc.text
    segs = [s for s in doc.segments() if s.end > s.start and text[s.start : s.end].strip()]
    out: list[Piece] = []
    for i, seg in enumerate(segs):
        if _words(text[seg.start : seg.end]) > max_words * 1.5:
            out.extend(_split_long(text, seg, i, max_words))
        else:
            out.append(Piece(seg.start, seg.end, seg.page, seg.heading, i, i, seg.kind))
    for w in range(2, window + 1):
        for i in range(len(segs) - w + 1):
            run = segs[i : i + w]
            if run[0].page != run[-1].page:
                continue
            if _words(text[run[0].start : run[-1].end]) > max_words:
                continue
            out.append(Piece(run[0].start, run[-1].end, run[0].page, run[0].heading, i, i + w - 1, "window"))
    return out


def chunk_id(document_id: str, n: int) -> str:
    return f"{document_id[:8]}-c{n:04d}"


def to_chunks(doc: ParsedDoc, pieces: list[Piece]) -> list[Chunk]:
    doc_id = doc.document.id
    return [
        Chunk(
            chunk_id=chunk_id(doc_id, n),
            document_id=doc_id,
            start=p.start,
            end=p.end,
            text=doc.text[p.start : p.end],
            page=p.page,
            section_heading=p.heading,
        )
        for n, p in enumerate(pieces)
    ]


def chunk_document(doc: ParsedDoc, chunk_words: int = 160) -> list[Chunk]:
    """Chunks of about chunk_words words, aligned to segment boundaries, offsets into doc.text."""
    return to_chunks(doc, chunk_pieces(doc, chunk_words))
