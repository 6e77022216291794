"""The library's vectors in PostgreSQL with pgvector: the same object as `FaissLibrary` (put,
remove, entry, search by inner product), so every app instance and worker on any machine shares
one library through one database instead of a folder.

- `<table>` holds (document_id, chunk, embedding vector(384)); `<table>_documents` holds
  {"chunks", "text_sha256"} per document (a document without text has a row there and none in
  `<table>`); `<table>_generation` is one counter, bumped by every write, so a reader reloads its
  copy of the document list only when it changed.
- Writers hold the counter's row lock for their transaction (`writing()`): changes from several
  processes are serialised, and a reader sees a document's vectors all or not at all.
- Search is exact (a sequential scan ordered by the inner product, `-(a <#> b)` in pgvector's
  terms), the ranking FAISS's IndexFlatIP gives: a question ranks every chunk of its documents (rank fusion
  needs the full list), which no approximate index (HNSW, IVFFlat) would speed up.

Vectors travel as query parameters in pgvector's binary format, never inside SQL text; table names
come from Settings (validated identifiers) and are quoted by psycopg.sql."""

from __future__ import annotations

import os
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from workbench.errors import ConfigError
from workbench.index.embed import DIM
from workbench.redact import redact, redact_url

INSTALL_HINT = (
    "install pgvector into the PostgreSQL server (PostgreSQL's apt repository: postgresql-15-pgvector; "
    "or `make pgvector`, which builds ../shared/third_party/pgvector-0.8.6.tar.gz) or set "
    "WORKBENCH_VECTOR_STORE__KIND=faiss"
)


def psycopg_url(url: str) -> str:
    """A libpq URL from a SQLAlchemy one (postgresql+psycopg:// → postgresql://)."""
    scheme, sep, rest = url.partition("://")
    if not sep or not scheme.startswith(("postgresql", "postgres")):
        raise ConfigError(f"the pgvector store needs a PostgreSQL URL, not {redact_url(url)!r}")
    return f"postgresql://{rest}"


def vector_bytes(v: np.ndarray) -> bytes:
    """pgvector's binary wire format: dimensions (int16), unused (int16), float4s, big-endian."""
    v = np.asarray(v, dtype=np.float32).reshape(-1)
    return struct.pack(">HH", len(v), 0) + v.astype(">f4").tobytes()


class PgVectorLibrary:
    """Every indexed document's chunk vectors in PostgreSQL, with {"chunks", "text_sha256"} per
    document. The interface of FaissLibrary (workbench/index/faiss_store.py)."""

    def __init__(self, url: str, table: str = "workbench_vectors"):
        self.url = psycopg_url(url)
        self.table = table
        self.lock = threading.RLock()
        self._conn = None
        self._pid = 0
        self._docs: dict[str, dict] = {}
        self._generation = -1
        self._writing = False
        with self.lock:
            self._connect()
        self.refresh()

    # --- connection and schema --------------------------------------------------------------
    def _names(self):
        from psycopg import sql

        return (sql.Identifier(self.table), sql.Identifier(f"{self.table}_documents"),
                sql.Identifier(f"{self.table}_generation"))

    def _connect(self):
        """The connection of this process (a forked worker opens its own), made on first use."""
        if self._conn is not None and not self._conn.closed and self._pid == os.getpid():
            return self._conn
        import psycopg
        from psycopg.adapt import Dumper
        from psycopg.pq import Format

        try:
            conn = psycopg.connect(self.url, autocommit=True, connect_timeout=10)
        except psycopg.Error as exc:
            raise ConfigError(f"cannot reach the pgvector store at {redact_url(self.url)} "
                              f"({type(exc).__name__}: {redact(str(exc).strip(), self.url)})") from None
        self._ensure_schema(conn)
        # A question's scan covers a few thousand rows: a parallel worker's start costs more than it
        # saves on a busy machine (BENCHMARKS.md, "Retrieval: FAISS vs pgvector"), as FAISS's
        # OpenMP threads did (faiss_store.py searches with one thread).
        conn.execute("SET max_parallel_workers_per_gather = 0")
        oid = conn.execute("SELECT 'vector'::regtype::oid").fetchone()[0]

        class VectorDumper(Dumper):
            format = Format.BINARY

            def dump(self, obj):
                return vector_bytes(obj)

        VectorDumper.oid = oid
        conn.adapters.register_dumper(np.ndarray, VectorDumper)
        self._conn, self._pid, self._generation = conn, os.getpid(), -1
        return conn

    def _ensure_schema(self, conn) -> None:
        import psycopg
        from psycopg import sql

        vectors, documents, generation = self._names()
        names = [self.table, f"{self.table}_documents", f"{self.table}_generation"]
        ready = conn.execute("SELECT (SELECT count(*) FROM pg_extension WHERE extname = 'vector') "
                             "+ (SELECT count(to_regclass(n)) FROM unnest(%s::text[]) n)", (names,)).fetchone()[0]
        if ready == 4:  # made before (perhaps by the database's owner: an app role may not CREATE)
            return
        try:
            with conn.transaction():
                # One creator at a time: concurrent CREATE ... IF NOT EXISTS can still collide.
                conn.execute("SELECT pg_advisory_xact_lock(hashtext('workbench.pgvector_store'))")
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                conn.execute(sql.SQL(
                    "CREATE TABLE IF NOT EXISTS {} (document_id text PRIMARY KEY, chunks integer NOT NULL, "
                    "text_sha256 text)").format(documents))
                conn.execute(sql.SQL(
                    "CREATE TABLE IF NOT EXISTS {} (document_id text NOT NULL, chunk integer NOT NULL, "
                    "embedding vector({}) NOT NULL, PRIMARY KEY (document_id, chunk))").format(vectors, sql.Literal(DIM)))
                conn.execute(sql.SQL(
                    "CREATE TABLE IF NOT EXISTS {} (id integer PRIMARY KEY CHECK (id = 1), n bigint NOT NULL)"
                ).format(generation))
                conn.execute(sql.SQL("INSERT INTO {} VALUES (1, 0) ON CONFLICT DO NOTHING").format(generation))
        except psycopg.Error as exc:
            conn.close()
            msg = redact(str(exc).strip(), self.url)
            if "vector" in msg and ("extension" in msg or "control file" in msg):
                raise ConfigError(f"the PostgreSQL server at {redact_url(self.url)} has no pgvector extension "
                                  f"({msg}): {INSTALL_HINT}") from None
            raise ConfigError(f"cannot prepare the pgvector tables at {redact_url(self.url)} "
                              f"({type(exc).__name__}: {msg})") from None

    def close(self) -> None:
        with self.lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    def drop(self) -> None:
        """Drop this library's tables (tests and benches; a workspace never calls it)."""
        from psycopg import sql

        with self.lock:
            conn = self._connect()
            conn.execute(sql.SQL("DROP TABLE IF EXISTS {}, {}, {}").format(*self._names()))
            self._docs, self._generation = {}, -1

    # --- refresh and writing ---------------------------------------------------------------
    def refresh(self) -> bool:
        """Reload the document list when another process (or store object) changed the library.
        True if reloaded."""
        from psycopg import sql

        with self.lock:
            if self._writing:
                return False
            conn = self._connect()
            _, documents, generation = self._names()
            # One round trip when nothing changed (callers check documents one by one); the list
            # and its generation come from one statement, so they are from the same snapshot.
            gen = conn.execute(sql.SQL("SELECT n FROM {} WHERE id = 1").format(generation)).fetchone()[0]
            if gen == self._generation:
                return False
            rows = conn.execute(sql.SQL("SELECT g.n, d.document_id, d.chunks, d.text_sha256 FROM {} g "
                                        "LEFT JOIN {} d ON true WHERE g.id = 1").format(generation, documents)).fetchall()
            self._docs = {d: {"chunks": n, "text_sha256": sha} for _, d, n, sha in rows if d is not None}
            self._generation = rows[0][0]
            return True

    @contextmanager
    def writing(self) -> Iterator[None]:
        """One transaction, exclusive across processes (the counter's row lock); commits and bumps
        the generation on success, rolls back on an exception."""
        from psycopg import sql

        with self.lock:
            conn = self._connect()
            _, documents, generation = self._names()
            with conn.transaction():
                gen = conn.execute(sql.SQL("UPDATE {} SET n = n + 1 WHERE id = 1 RETURNING n").format(generation)).fetchone()[0]
                rows = conn.execute(sql.SQL("SELECT document_id, chunks, text_sha256 FROM {}").format(documents)).fetchall()
                before = self._docs
                self._docs = {d: {"chunks": n, "text_sha256": sha} for d, n, sha in rows}
                self._writing = True
                try:
                    yield
                except BaseException:
                    self._docs, self._generation = before, -1
                    raise
                finally:
                    self._writing = False
            self._generation = gen

    # --- what is in it ----------------------------------------------------------------------
    def entry(self, document_id: str) -> dict | None:
        """{"chunks", "text_sha256"} of an indexed document, or None."""
        self.refresh()
        return self._docs.get(document_id)

    def document_ids(self) -> list[str]:
        self.refresh()
        return list(self._docs)

    @property
    def ntotal(self) -> int:
        from psycopg import sql

        with self.lock:
            return int(self._connect().execute(sql.SQL("SELECT count(*) FROM {}").format(self._names()[0])).fetchone()[0])

    @property
    def index(self):
        """The psycopg connection (a llama-index store's `client`)."""
        with self.lock:
            return self._connect()

    # --- changes (callers hold `writing()`) -------------------------------------------------
    def put(self, document_id: str, chunk_numbers: list[int], vectors: np.ndarray, text_sha256: str | None) -> None:
        """A document's vectors, replacing any it had before (re-extracted text)."""
        from psycopg import sql

        assert self._writing, "put() runs inside writing()"
        self.remove(document_id)
        vecs = np.asarray(vectors, dtype=np.float32).reshape(-1, DIM)
        vectors_t, documents, _ = self._names()
        conn = self._conn
        if len(vecs):
            with conn.cursor() as cur:
                cur.executemany(sql.SQL("INSERT INTO {} (document_id, chunk, embedding) VALUES (%s, %s, %s)").format(vectors_t),
                                [(document_id, int(n), v) for n, v in zip(chunk_numbers, vecs, strict=True)])
        conn.execute(sql.SQL("INSERT INTO {} (document_id, chunks, text_sha256) VALUES (%s, %s, %s)").format(documents),
                     (document_id, len(vecs), text_sha256))
        self._docs[document_id] = {"chunks": len(vecs), "text_sha256": text_sha256}

    def remove(self, document_id: str) -> None:
        from psycopg import sql

        assert self._writing, "remove() runs inside writing()"
        vectors_t, documents, _ = self._names()
        self._conn.execute(sql.SQL("DELETE FROM {} WHERE document_id = %s").format(vectors_t), (document_id,))
        self._conn.execute(sql.SQL("DELETE FROM {} WHERE document_id = %s").format(documents), (document_id,))
        self._docs.pop(document_id, None)

    # --- search ---------------------------------------------------------------------------
    def search(self, qvec: np.ndarray, k: int, document_ids: list[str] | None = None
               ) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Top k by inner product (cosine: unit vectors) among `document_ids` (None: all):
        each hit's document id, chunk number and similarity."""
        from psycopg import sql

        k = int(k)
        empty = ([], np.zeros(0, np.int64), np.zeros(0, np.float32))
        if k <= 0 or (document_ids is not None and not document_ids):
            return empty
        q = np.asarray(qvec, dtype=np.float32).reshape(-1)
        where = sql.SQL("WHERE document_id = ANY(%(docs)s) " if document_ids is not None else "")
        query = sql.SQL("SELECT document_id, chunk, -(embedding <#> %(q)s) AS sim FROM {} {}"
                        "ORDER BY sim DESC LIMIT %(k)s").format(self._names()[0], where)
        params = {"q": q, "k": k, "docs": list(document_ids) if document_ids is not None else None}
        with self.lock:
            rows = self._connect().execute(query, params).fetchall()
        if not rows:
            return empty
        docs, chunks, sims = zip(*rows, strict=True)
        return list(docs), np.asarray(chunks, np.int64), np.asarray(sims, np.float32)
