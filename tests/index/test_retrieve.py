"""Hybrid retrieval over persisted per-document indexes: built once, reused, offsets exact."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.index.fakes import FakeDoc
from workbench.config import Settings
from workbench.index.embed import Embedder
from workbench.index.retrieve import Retriever, fuse

FILLER = [
    "# General",
    "This agreement is made between the parties named on the cover page. "
    "It takes effect on the date of the last signature. Notices are sent by registered mail.",
    "# Facilities",
    "Visitors sign in at the front desk and wear a badge at all times. "
    "The cafeteria is open from eight to three on working days.",
]
TARGET = (
    "Passwords shall contain at least twelve characters and must be changed every ninety days. "
    "Reuse of the last five passwords is prohibited."
)


def _doc(extra: str = TARGET) -> FakeDoc:
    return FakeDoc([FILLER, ["# Access control", extra], FILLER[:2]])


@pytest.fixture
def settings(data_dir: Path) -> Settings:
    return Settings(data_dir=data_dir, chunk_words=40, embed_threads=1)


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder(threads=1, batch_size=8)


def test_hybrid_ranks_the_answering_paragraph_first(settings, embedder):
    doc = _doc()
    hits = Retriever(settings, embedder).retrieve("How long must a password be?", [doc], top_k=3)
    assert "twelve characters" in hits[0].text
    assert hits[0].section_heading == "Access control" and hits[0].page == 2
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_returned_chunk_offsets_match_the_document_text(settings, embedder):
    doc = _doc()
    for c in Retriever(settings, embedder).retrieve("badge at the front desk", [doc], top_k=10):
        assert doc.text[c.start : c.end] == c.text


def test_a_second_question_never_re_embeds_the_document(settings, embedder):
    doc = _doc()
    r = Retriever(settings, embedder)
    r.retrieve("password length", [doc], top_k=2)
    before = embedder.texts_embedded
    r.retrieve("visitor badges", [doc], top_k=2)
    assert embedder.texts_embedded == before + 1  # the question only


def test_the_index_persists_and_a_new_process_reloads_it_without_embedding(settings, embedder):
    doc = _doc()
    first = Retriever(settings, embedder).retrieve("password length", [doc], top_k=3)
    index_dir = settings.data_dir / "index" / doc.document.id
    assert (index_dir / "meta.json").is_file() and (settings.data_dir / "index" / "library" / "vectors.faiss").is_file()
    fresh = Embedder(threads=1, batch_size=8)  # as a new process would have
    again = Retriever(settings, fresh).retrieve("password length", [doc], top_k=3)
    assert fresh.texts_embedded == 1
    assert [(c.chunk_id, c.start, c.end) for c in again] == [(c.chunk_id, c.start, c.end) for c in first]
    assert [c.score for c in again] == pytest.approx([c.score for c in first])


def test_changed_document_text_rebuilds_its_index(settings, embedder):
    doc = _doc()
    r = Retriever(settings, embedder)
    r.retrieve("password", [doc], top_k=1)
    changed = _doc("Passwords shall contain at least twenty characters.")
    changed.document.id = doc.document.id  # same PDF bytes, new text extraction
    hits = Retriever(settings, embedder).retrieve("password length", [changed], top_k=1)
    assert "twenty characters" in hits[0].text


def test_the_library_is_a_llama_index_whose_retriever_answers_with_offsets_in_metadata(settings, embedder):
    from workbench.index.library import document_filter

    doc, other = _doc(), FakeDoc([["# Travel", "Employees must book flights through the travel desk."]])
    r = Retriever(settings, embedder)
    r.index(doc)
    r.index(other)
    index = r.store.vector_index()
    nodes = index.as_retriever(similarity_top_k=2).retrieve("How long must a password be?")
    top = nodes[0].node
    assert "twelve characters" in top.get_content()
    start, end = top.metadata["start"], top.metadata["end"]
    assert doc.text[start:end] in top.get_content()
    only_other = index.as_retriever(similarity_top_k=5, filters=document_filter([other.document.id]))
    assert {n.node.metadata["document_id"] for n in only_other.retrieve("password length")} == {other.document.id}


def test_one_library_index_grows_with_each_document_and_shrinks_when_one_is_removed(settings, embedder):
    a, b = _doc(), FakeDoc([["# Travel", "Employees must book flights through the travel desk at least two weeks ahead."]])
    r = Retriever(settings, embedder)
    r.index(a)
    library = r.store.library
    n_a = library.ntotal
    assert library.document_ids() == [a.document.id] and n_a == len(r.chunks(a))
    r.index(b)
    assert sorted(library.document_ids()) == sorted([a.document.id, b.document.id])
    assert library.ntotal == n_a + len(r.chunks(b))
    # a second process sees the same library without embedding anything
    fresh = Embedder(threads=1, batch_size=8)
    other = Retriever(settings, fresh)
    assert other.retrieve("When must flights be booked?", [a, b], top_k=1)[0].document_id == b.document.id
    assert fresh.texts_embedded == 1
    r.store.remove(b.document.id)
    assert library.document_ids() == [a.document.id] and library.ntotal == n_a
    assert other.store.library.document_ids() == [a.document.id]  # reloaded from disk


def test_a_question_over_a_subset_searches_only_those_documents(settings, embedder):
    a, b = _doc(), FakeDoc([["# Travel", "Employees must book flights through the travel desk at least two weeks ahead."]])
    r = Retriever(settings, embedder)
    r.retrieve("anything", [a, b], top_k=1)  # both in the library
    hits = r.retrieve("When must flights be booked?", [a], top_k=50)
    assert hits and {h.document_id for h in hits} == {a.document.id}
    assert len(hits) == len(r.chunks(a))


def test_retrieval_spans_several_documents(settings, embedder):
    a = _doc()
    b = FakeDoc([["# Travel", "Employees must book flights through the travel desk at least two weeks ahead."]])
    r = Retriever(settings, embedder)
    hits = r.retrieve("When must flights be booked?", [a, b], top_k=2)
    assert hits[0].document_id == b.document.id
    assert {h.document_id for h in r.retrieve("password", [a, b], top_k=20)} == {a.document.id, b.document.id}


def test_search_segments_finds_the_sentence_and_keeps_offsets(settings, embedder):
    doc = _doc()
    hits = Retriever(settings, embedder).search_segments("Old passwords cannot be used again.", doc, top_k=3)
    assert len(hits) == 3
    assert any("Reuse of the last five passwords" in seg.text for seg, _ in hits[:2])
    for seg, _score in hits:
        assert doc.text[seg.start : seg.end] == seg.text
    spans = [(s.start, s.end) for s, _ in hits]
    assert all(a[1] <= b[0] or b[1] <= a[0] for i, a in enumerate(spans) for b in spans[i + 1 :])  # no overlap


def test_empty_question_or_no_documents_return_nothing(settings, embedder):
    r = Retriever(settings, embedder)
    assert r.retrieve("   ", [_doc()], top_k=3) == []
    assert r.retrieve("password", [], top_k=3) == []


def test_fusion_weight_one_follows_the_vector_ranking():
    import numpy as np

    vec = np.array([0.1, 0.9, 0.5])
    lex = np.array([3.0, 0.0, 1.0])
    assert list(np.argsort(-fuse(vec, lex, 1.0))) == [1, 2, 0]
    assert list(np.argsort(-fuse(vec, lex, 0.0)))[:2] == [0, 2]


def test_tiktoken_cache_points_at_llama_index_bundle_when_set_to_a_missing_dir(monkeypatch, tmp_path):
    from workbench.index.llama import bundled_tiktoken_cache, ensure_offline_env

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "missing"))
    ensure_offline_env()
    assert os.environ["TIKTOKEN_CACHE_DIR"] == str(bundled_tiktoken_cache())
    assert any(Path(os.environ["TIKTOKEN_CACHE_DIR"]).iterdir())


def test_on_a_made_pdf_the_answering_paragraph_ranks_first_with_exact_offsets(make_pdf, settings, embedder):
    from workbench.pdf import open_pdf

    filler = (
        "The committee meets on the first Monday of each month in the main hall. Minutes are "
        "circulated within a week and approved at the next meeting. "
    ) * 3
    pages = [
        filler,
        "Retention of records\n\nAll audit logs shall be retained for at least three years and reviewed "
        "weekly by the security officer. Deleting logs before the retention period ends is prohibited.",
        filler,
    ]
    doc = open_pdf(make_pdf(pages, name="policy.pdf"))
    r = Retriever(settings, embedder)
    hits = r.retrieve("How long must audit logs be kept?", [doc], top_k=3)
    assert "three years" in hits[0].text and hits[0].page == 2
    for c in hits:
        assert doc.text[c.start : c.end] == c.text
    segs = r.search_segments("Logs have to be kept for three years.", doc, top_k=3)
    assert "three years" in segs[0][0].text
    assert all(doc.text[s.start : s.end] == s.text for s, _ in segs)


def test_search_segments_never_returns_a_bare_heading(settings, embedder):
    doc = FakeDoc([["# Password rules", "Passwords are long.", "# Badges", "Badges are worn."]])
    hits = Retriever(settings, embedder).search_segments("Password rules", doc, top_k=10)
    assert hits and all(seg.kind != "heading" for seg, _ in hits)


def test_embed_texts_reuses_vectors_of_segments_already_indexed(settings):
    doc = _doc()
    counting = Embedder(threads=1, batch_size=8)
    r = Retriever(settings, counting)
    hits = r.search_segments("Old passwords cannot be used again.", doc, top_k=3)
    before = counting.texts_embedded
    texts = [seg.text for seg, _ in hits]
    vecs = r.embed_texts(texts + ["A sentence that is in no document."])
    assert counting.texts_embedded == before + 1
    fresh = Embedder(threads=1, batch_size=8).embed(texts + ["A sentence that is in no document."])
    assert (vecs * fresh).sum(axis=1) == pytest.approx([1.0] * 4, abs=1e-4)


def test_segment_index_is_built_once_and_reloaded_from_disk(settings, embedder):
    doc = _doc()
    first = Retriever(settings, embedder).search_segments("Old passwords cannot be used again.", doc, top_k=3)
    assert (settings.data_dir / "index" / doc.document.id / "segments.npy").is_file()
    fresh = Embedder(threads=1, batch_size=8)
    again = Retriever(settings, fresh).search_segments("Old passwords cannot be used again.", doc, top_k=3)
    assert fresh.texts_embedded == 1
    assert [(s.start, s.end) for s, _ in again] == [(s.start, s.end) for s, _ in first]


def test_a_document_without_text_indexes_to_nothing_without_error(settings, embedder):
    empty = FakeDoc([[], []])
    r = Retriever(settings, embedder)
    assert r.retrieve("anything at all", [empty], top_k=3) == []
    assert r.search_segments("anything at all", empty, top_k=3) == []
    assert r.retrieve("passwords", [empty, _doc()], top_k=1)[0].document_id != empty.document.id


def test_importing_the_index_package_does_not_load_llama_index_or_onnxruntime():
    import subprocess
    import sys

    code = (
        "import sys, workbench.index.retrieve, workbench.index.embed; "
        "print(any(m.startswith(('llama_index', 'onnxruntime', 'faiss')) for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- bounded memory, no global state -------------------------------------------------------------
def _travel(n: int) -> FakeDoc:
    return FakeDoc([["# Travel", f"Employees must book flights number {n} through the travel desk {n} weeks ahead."]])


def test_the_index_store_keeps_only_the_last_documents_used_and_reloads_the_others_from_disk(settings, embedder):
    docs = [_travel(n) for n in range(4)]
    r = Retriever(settings, embedder)
    r.store.max_documents = 2
    for d in docs:
        r.index(d)
    assert [k[0] for k in r.store._cache] == [docs[2].document.id, docs[3].document.id]
    before = embedder.texts_embedded
    hits = r.retrieve("When must flights be booked?", docs, top_k=4)
    assert {h.document_id for h in hits} == {d.document.id for d in docs}
    assert embedder.texts_embedded == before + 1  # the question only: evicted indexes reload from disk
    assert len(r.store._cache) == 2


def test_a_document_index_keeps_no_reference_to_the_parsed_document(settings, embedder):
    import gc
    import weakref

    doc = _doc()
    r = Retriever(settings, embedder)
    r.search_segments("Old passwords cannot be used again.", doc, top_k=3)
    ref = weakref.ref(doc)
    del doc
    gc.collect()
    assert ref() is None, "the retriever keeps parsed documents alive (the parsed-document cache's bound is void)"


def test_remembered_segment_vectors_are_bounded_to_the_last_documents_searched(settings, embedder):
    from workbench.index.retrieve import KNOWN_UNITS

    r = Retriever(settings, embedder)
    docs = [_travel(n) for n in range(KNOWN_UNITS + 2)]
    for d in docs:
        r.search_segments("When must flights be booked?", d, top_k=1)
    assert len(r._known) == KNOWN_UNITS
    first, last = docs[0].text.split("\n")[1], docs[-1].text.split("\n")[1]
    assert r._known_vector(last) is not None and r._known_vector(first) is None


def test_llama_index_global_settings_are_never_touched(settings, embedder):
    from llama_index.core import Settings as LlamaSettings

    before = (LlamaSettings._embed_model, LlamaSettings._llm, LlamaSettings._transformations)
    r = Retriever(settings, embedder)
    r.retrieve("How long must a password be?", [_doc()], top_k=2)
    r.store.vector_index().as_retriever(similarity_top_k=1).retrieve("password length")
    assert (LlamaSettings._embed_model, LlamaSettings._llm, LlamaSettings._transformations) == before


def test_questions_are_answered_by_the_library_index_never_the_per_document_vector_files(settings, embedder):
    doc = _doc()
    first = Retriever(settings, embedder).retrieve("password length", [doc], top_k=3)
    (settings.data_dir / "index" / doc.document.id / "vectors.npy").unlink()
    fresh = Embedder(threads=1, batch_size=8)
    again = Retriever(settings, fresh).retrieve("password length", [doc], top_k=3)
    assert fresh.texts_embedded == 1  # the question; the chunks' vectors came from the library
    assert [c.chunk_id for c in again] == [c.chunk_id for c in first]
    assert [c.score for c in again] == pytest.approx([c.score for c in first])


def test_a_lost_library_is_rebuilt_from_the_document_files_and_lost_files_are_embedded_again(settings, embedder):
    import shutil

    doc = _doc()
    first = Retriever(settings, embedder).retrieve("password length", [doc], top_k=3)
    shutil.rmtree(settings.data_dir / "index" / "library")
    fresh = Embedder(threads=1, batch_size=8)
    again = Retriever(settings, fresh).retrieve("password length", [doc], top_k=3)
    assert fresh.texts_embedded == 1  # rebuilt from vectors.npy, nothing embedded but the question
    assert [c.chunk_id for c in again] == [c.chunk_id for c in first]
    shutil.rmtree(settings.data_dir / "index" / "library")
    (settings.data_dir / "index" / doc.document.id / "vectors.npy").unlink()
    fresh = Embedder(threads=1, batch_size=8)
    assert [c.chunk_id for c in Retriever(settings, fresh).retrieve("password length", [doc], top_k=3)] == \
        [c.chunk_id for c in first]
    assert fresh.texts_embedded > 1  # both copies gone: the chunks were embedded again


def test_a_question_on_a_built_library_reads_faiss_without_importing_llama_index(settings, embedder):
    """llama_index.core costs ~1 s to import: a warm CLI question (a new process on a built data
    dir) reads the same FAISS files directly and ranks as the llama-index store does."""
    import subprocess
    import sys

    from llama_index.core.vector_stores.types import VectorStoreQuery

    doc, other = _doc(), FakeDoc([["# Travel", "Employees must book flights through the travel desk."]])
    r = Retriever(settings, embedder)
    r.index(doc)
    r.index(other)
    qvec = embedder.embed(["How long must a password be?"])[0]
    via_llama = r.store.library.query(VectorStoreQuery(query_embedding=qvec.tolist(), similarity_top_k=3))
    docs, chunks, sims = r.store.vectors.search(qvec, 3)
    assert via_llama.ids == [f"{d}:{c}" for d, c in zip(docs, chunks.tolist(), strict=True)]
    assert via_llama.similarities == sims.tolist()

    child = f"""
import sys
from tests.index.fakes import FakeDoc
from tests.index.test_retrieve import _doc
from workbench.config import Settings
from workbench.index.embed import Embedder
from workbench.index.retrieve import Retriever
r = Retriever(Settings(data_dir={str(settings.data_dir)!r}, chunk_words=40, embed_threads=1), Embedder(threads=1))
hit = r.retrieve("How long must a password be?", [_doc(), FakeDoc({[['# Travel', 'Employees must book flights through the travel desk.']]!r})], top_k=1)[0]
print(hit.document_id, "twelve characters" in hit.text, any(m.startswith("llama_index") for m in sys.modules))
"""
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2], env=dict(os.environ, HF_HUB_OFFLINE="1"))
    assert out.stdout.split() == [doc.document.id, "True", "False"], out.stderr
