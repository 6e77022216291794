"""The library's vectors in PostgreSQL (pgvector) behave as the FAISS library does: the same top k
by the same inner product, the per-document filter, replace and delete, and a second process (or a
re-opened store) sees what the first wrote. Runs on the server at 127.0.0.1:5432 (user postgres,
database `test`) in tables named for this test session, dropped at its end; skips where the server
or its `vector` extension is missing (`make pgvector` builds it), except under CI=true."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.index.fakes import FakeDoc
from workbench.config import Settings, VectorStoreSettings
from workbench.errors import ConfigError
from workbench.index.embed import DIM, Embedder
from workbench.index.faiss_store import FaissLibrary
from workbench.index.pgvector_store import PgVectorLibrary
from workbench.index.retrieve import Retriever

PG_URL = os.environ.get("WORKBENCH_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
IN_CI = os.environ.get("CI", "").lower() == "true"
pytestmark = pytest.mark.postgres


def _skip(msg: str) -> None:
    if IN_CI:
        pytest.fail(msg.replace("skipped", "must run under CI=true"))
    pytest.skip(msg)


@pytest.fixture(scope="session")
def pg_tables() -> Iterator[Callable[[], str]]:
    """new_table() -> a table name unique to this session; every one is dropped at the end."""
    import psycopg

    prefix = f"wb_vec_{uuid.uuid4().hex[:8]}"
    try:
        conn = psycopg.connect(PG_URL, connect_timeout=3, autocommit=True)
    except Exception as exc:  # noqa: BLE001 - any connection failure means "no server here"
        _skip(f"PostgreSQL at {PG_URL} is unreachable ({type(exc).__name__}): pgvector tests skipped")
    if conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone() is None:
        conn.close()
        _skip("the PostgreSQL server has no pgvector extension (`make pgvector` builds it): pgvector tests skipped")
    made: list[str] = []

    def new_table() -> str:
        made.append(f"{prefix}_{len(made)}")
        return made[-1]

    yield new_table
    for t in made:
        conn.execute(f'DROP TABLE IF EXISTS "{t}", "{t}_documents", "{t}_generation"')
    conn.close()


def unit_rows(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def same_ranking(a: tuple, b: tuple, tie: float = 1e-5) -> None:
    """Same hits in the same order, where hits whose similarities differ by less than `tie` may
    come in either order (FAISS and PostgreSQL sum the 384 products in different orders)."""
    (docs_a, chunks_a, sims_a), (docs_b, chunks_b, sims_b) = a, b
    assert len(docs_a) == len(docs_b)
    np.testing.assert_allclose(sims_a, sims_b, atol=tie)
    hits_a, hits_b = list(zip(docs_a, chunks_a.tolist(), strict=True)), list(zip(docs_b, chunks_b.tolist(), strict=True))
    i = 0
    while i < len(hits_a):
        j = i + 1
        while j < len(hits_a) and abs(float(sims_a[j]) - float(sims_a[i])) < tie:
            j += 1
        assert sorted(hits_a[i:j]) == sorted(hits_b[i:j]), f"rank {i}: {hits_a[i:j]} != {hits_b[i:j]}"
        i = j


def fill(*libraries, docs: dict[str, np.ndarray]) -> None:
    for lib in libraries:
        with lib.writing():
            for d, vecs in docs.items():
                lib.put(d, list(range(len(vecs))), vecs, f"sha-{d}")


@pytest.fixture
def pair(tmp_path: Path, pg_tables) -> tuple[FaissLibrary, PgVectorLibrary, dict[str, np.ndarray]]:
    """A FAISS library and a pgvector library holding the same vectors: three documents, one of
    which repeats another's first vector (an exact tie)."""
    rng = np.random.default_rng(43)
    docs = {"doc-a": unit_rows(rng, 40), "doc-b": unit_rows(rng, 25), "doc-c": unit_rows(rng, 60)}
    docs["doc-c"][7] = docs["doc-a"][0]
    faiss_lib, pg_lib = FaissLibrary(tmp_path / "library"), PgVectorLibrary(PG_URL, pg_tables())
    fill(faiss_lib, pg_lib, docs=docs)
    yield faiss_lib, pg_lib, docs
    pg_lib.close()


def test_pgvector_ranks_the_top_k_as_faiss_does_on_the_same_vectors(pair):
    faiss_lib, pg_lib, docs = pair
    rng = np.random.default_rng(7)
    queries = list(unit_rows(rng, 6)) + [docs["doc-a"][0], docs["doc-b"][3]]
    for q in queries:
        for k in (1, 8, 125, 500):
            same_ranking(pg_lib.search(q, k), faiss_lib.search(q, k))
    docs_hit, chunks, sims = pg_lib.search(docs["doc-a"][0], 2)
    assert sorted(zip(docs_hit, chunks.tolist(), strict=True)) == [("doc-a", 0), ("doc-c", 7)]  # the tie, both
    assert sims[0] == pytest.approx(1.0, abs=1e-5) and sims[1] == pytest.approx(1.0, abs=1e-5)
    assert pg_lib.ntotal == faiss_lib.ntotal == 125


def test_a_search_over_some_documents_returns_only_theirs_ranked_as_faiss_does(pair):
    faiss_lib, pg_lib, docs = pair
    q = unit_rows(np.random.default_rng(8), 1)[0]
    for subset in (["doc-b"], ["doc-a", "doc-c"], ["doc-c", "not-indexed"]):
        hits = pg_lib.search(q, 100, subset)
        assert set(hits[0]) == set(subset) & set(docs)
        same_ranking(hits, faiss_lib.search(q, 100, subset))
    assert pg_lib.search(q, 5, [])[0] == [] and pg_lib.search(q, 5, ["not-indexed"])[0] == []


def test_a_document_is_replaced_and_removed_without_touching_the_others(pair):
    faiss_lib, pg_lib, docs = pair
    fewer = unit_rows(np.random.default_rng(9), 3)
    for lib in (faiss_lib, pg_lib):
        with lib.writing():
            lib.put("doc-a", [0, 1, 2], fewer, "sha-new")
    assert pg_lib.entry("doc-a") == {"chunks": 3, "text_sha256": "sha-new"}
    assert pg_lib.ntotal == faiss_lib.ntotal == 3 + 25 + 60
    same_ranking(pg_lib.search(fewer[1], 200), faiss_lib.search(fewer[1], 200))
    for lib in (faiss_lib, pg_lib):
        with lib.writing():
            lib.remove("doc-b")
    assert pg_lib.entry("doc-b") is None and sorted(pg_lib.document_ids()) == ["doc-a", "doc-c"]
    assert "doc-b" not in pg_lib.search(docs["doc-b"][0], 200)[0]
    same_ranking(pg_lib.search(docs["doc-b"][0], 200), faiss_lib.search(docs["doc-b"][0], 200))


def test_a_reopened_store_and_another_process_see_what_was_written(pair):
    _, pg_lib, docs = pair
    other = PgVectorLibrary(PG_URL, pg_lib.table)  # a second process on the same table
    try:
        q = docs["doc-b"][3]
        assert sorted(other.document_ids()) == ["doc-a", "doc-b", "doc-c"]
        same_ranking(other.search(q, 20), pg_lib.search(q, 20))
        with other.writing():
            other.put("doc-d", [0], q.reshape(1, DIM), "sha-d")
        assert pg_lib.entry("doc-d") == {"chunks": 1, "text_sha256": "sha-d"}  # reloaded: the generation moved
        assert pg_lib.refresh() is False  # nothing changed since
    finally:
        other.close()
    pg_lib.close()
    reopened = PgVectorLibrary(PG_URL, pg_lib.table)
    assert reopened.entry("doc-d") is not None and reopened.ntotal == 126
    reopened.close()


def test_a_failed_write_changes_nothing(pair):
    _, pg_lib, docs = pair
    with pytest.raises(RuntimeError), pg_lib.writing():
        pg_lib.remove("doc-a")
        raise RuntimeError("crash half way")
    assert pg_lib.entry("doc-a") == {"chunks": 40, "text_sha256": "sha-doc-a"} and pg_lib.ntotal == 125


def test_document_ids_and_vectors_are_data_never_sql(pg_tables):
    lib = PgVectorLibrary(PG_URL, pg_tables())
    hostile = "x'); DROP TABLE pg_class; --"
    v = unit_rows(np.random.default_rng(1), 2)
    with lib.writing():
        lib.put(hostile, [0, 1], v, None)
        lib.put("empty", [], np.zeros((0,), np.float32), "sha-empty")
    docs, chunks, _ = lib.search(v[1], 5, [hostile])
    assert docs == [hostile, hostile] and chunks.tolist() == [1, 0]
    assert lib.entry("empty") == {"chunks": 0, "text_sha256": "sha-empty"} and lib.search(v[0], 5, ["empty"])[0] == []
    lib.close()


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder(threads=1, batch_size=8)


def test_the_retriever_on_pgvector_answers_as_on_faiss(tmp_path: Path, pg_tables, embedder):
    """Chosen through Settings.vector_store; the rest of retrieval (BM25, rank fusion) unchanged."""
    docs = [
        FakeDoc([["# Access control", "Passwords shall contain at least twelve characters and be changed every ninety days."],
                 ["# Travel", "Employees must book flights through the travel desk at least two weeks ahead."]]),
        FakeDoc([["# Term", "This agreement runs for three years and renews for one year unless either party objects."],
                 ["# Law", "The laws of the State of New York govern this agreement."]]),
    ]
    on_faiss = Retriever(Settings(data_dir=tmp_path / "f", chunk_words=12, embed_threads=1), embedder)
    pg_settings = Settings(data_dir=tmp_path / "p", chunk_words=12, embed_threads=1,
                           vector_store=VectorStoreSettings(kind="pgvector", url=PG_URL, table=pg_tables()))
    on_pg = Retriever(pg_settings, embedder)
    for q in ("How long must a password be?", "Which law governs?", "When does the agreement renew?"):
        for subset in (docs, docs[1:]):
            want = [(c.chunk_id, round(c.score, 9)) for c in on_faiss.retrieve(q, subset, top_k=3)]
            assert [(c.chunk_id, round(c.score, 9)) for c in on_pg.retrieve(q, subset, top_k=3)] == want
    assert type(on_pg.store.vectors).__name__ == "PgVectorLibrary"
    assert sorted(on_pg.store.library.document_ids()) == sorted(d.document.id for d in docs)
    on_pg.store.remove(docs[0].document.id)
    assert on_pg.store.vectors.document_ids() == [docs[1].document.id]
    on_pg.store.vectors.close()


def test_pgvector_without_a_postgresql_url_is_a_config_error(tmp_path: Path):
    with pytest.raises(ConfigError, match="needs a PostgreSQL URL"):
        Retriever(Settings(data_dir=tmp_path, vector_store=VectorStoreSettings(kind="pgvector"))).store.vectors  # noqa: B018
    assert Settings(data_dir=tmp_path).vector_store.kind == "faiss"  # the offline default
    with pytest.raises(ValueError, match="table"):
        VectorStoreSettings(kind="pgvector", table='x"; DROP')
