"""Engines for SQLite (embedded default) and PostgreSQL (teams).

SQLite: WAL (readers never block the writer), foreign keys on, a busy timeout so concurrent
processes wait instead of failing, synchronous=FULL so a committed review survives a crash, and
transactions we begin ourselves so writers can take the write lock up front (BEGIN IMMEDIATE)
instead of failing on a read-to-write lock upgrade."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

from workbench.datadir import private_dir, private_file

BUSY_TIMEOUT_MS = 30_000
IMMEDIATE = "workbench_sqlite_immediate"  # execution option: BEGIN IMMEDIATE on SQLite


def normalise_url(url: str) -> str:
    """postgres:// and postgresql:// (no driver) mean psycopg 3, the driver we ship."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://"):]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://"):]
    return url


def make_engine(url: str) -> Engine:
    url = normalise_url(url)
    u = make_url(url)
    if u.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True, connect_args={"connect_timeout": 10})
    if u.database and u.database != ":memory:":
        _private_database(Path(u.database).expanduser())
    engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record) -> None:  # noqa: ANN001 - DBAPI objects
        dbapi_conn.isolation_level = None  # we emit BEGIN ourselves (see _on_begin)
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA journal_mode = WAL")
        cur.execute("PRAGMA synchronous = FULL")
        cur.execute("PRAGMA foreign_keys = ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn) -> None:  # noqa: ANN001
        immediate = conn.get_execution_options().get(IMMEDIATE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def _private_database(path: Path) -> None:
    """The SQLite file (password hashes, every PDF) 0600 before SQLite opens it: its -wal and -shm
    files take the database's mode. A folder made for it is 0700; an existing one is left as it is."""
    if not path.parent.exists():
        private_dir(path.parent)
    private_file(path)
    for extra in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        if extra.exists():
            private_file(extra)


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"
