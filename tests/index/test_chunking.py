"""Chunks follow segment boundaries and keep exact offsets into the document text."""

from __future__ import annotations

import re

from tests.index.fakes import FakeDoc
from workbench.index.chunking import chunk_document, segment_pieces


def _doc() -> FakeDoc:
    body = " ".join(f"Sentence number {i} says the party shall do thing {i}." for i in range(40))
    return FakeDoc([["# Scope", body], ["# Security", body, "# Records", "Records must be kept for seven years."]])


def test_chunk_offsets_index_the_document_text_exactly():
    doc = _doc()
    chunks = chunk_document(doc, chunk_words=50)
    assert len(chunks) > 4
    for c in chunks:
        assert doc.text[c.start : c.end] == c.text
        assert c.document_id == doc.document.id


def test_chunks_start_and_end_on_segment_boundaries():
    doc = _doc()
    starts = {s.start for s in doc.segments()}
    ends = {s.end for s in doc.segments()}
    for c in chunk_document(doc, chunk_words=50):
        assert c.start in starts and c.end in ends


def test_chunks_are_about_chunk_words_long_and_cover_every_segment():
    doc = _doc()
    chunks = chunk_document(doc, chunk_words=50)
    assert all(len(c.text.split()) <= 50 * 1.25 + 10 for c in chunks)
    covered = "".join(c.text for c in chunks)
    for s in doc.segments():
        assert s.text in covered


def test_chunk_ids_number_chunks_within_the_document():
    doc = _doc()
    ids = [c.chunk_id for c in chunk_document(doc, chunk_words=50)]
    assert ids[0] == f"{doc.document.id[:8]}-c0000"
    assert all(re.fullmatch(rf"{doc.document.id[:8]}-c\d{{4}}", i) for i in ids)
    assert len(set(ids)) == len(ids)


def test_a_heading_starts_a_new_chunk_and_names_it():
    doc = _doc()
    chunks = chunk_document(doc, chunk_words=400)
    records = [c for c in chunks if "seven years" in c.text]
    assert len(records) == 1
    assert records[0].text.startswith("Records") and records[0].section_heading == "Records"
    assert records[0].page == 2


def test_a_segment_longer_than_a_chunk_is_split_at_whitespace():
    long = " ".join(f"w{i}" for i in range(500))
    doc = FakeDoc([[long]])
    chunks = chunk_document(doc, chunk_words=100)
    assert len(chunks) == 5
    assert " ".join(c.text for c in chunks) == long
    for c in chunks:
        assert doc.text[c.start : c.end] == c.text


def test_segment_windows_join_neighbours_on_the_same_page_only():
    doc = FakeDoc([["One is here. Two is here."], ["Three is on page two."]])
    pieces = segment_pieces(doc, window=2)
    spans = {doc.text[p.start : p.end] for p in pieces}
    assert {"One is here.", "Two is here.", "Three is on page two.", "One is here. Two is here."} == spans
