"""Database fixtures shared by the store and service tests: every test that takes `db_url` runs
on SQLite and on the PostgreSQL server at 127.0.0.1:5432 (user postgres, database `test`),
in a schema of its own for the test session so parallel runs never collide."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

PG_BASE = os.environ.get("WORKBENCH_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
IN_CI = os.environ.get("CI", "").lower() == "true"
TABLES = ("documents", "evidence_ids", "runs", "run_evidence", "review_events", "users", "security_events",
          "workspace_flags", "review_tables", "table_cells")


def _pg_connect():
    import psycopg

    return psycopg.connect(PG_BASE, connect_timeout=3, autocommit=True)


@pytest.fixture(scope="session")
def pg_schema_url() -> Iterator[str]:
    """A fresh schema for this session; the SQLAlchemy URL puts it first on the search_path."""
    try:
        conn = _pg_connect()
    except Exception as exc:  # noqa: BLE001 - any connection failure means "no server here"
        msg = f"PostgreSQL at {PG_BASE} is unreachable ({type(exc).__name__}): PostgreSQL store tests skipped"
        if IN_CI:
            pytest.fail(msg.replace("skipped", "must run under CI=true"))
        pytest.skip(msg)
    schema = f"wb_test_{uuid.uuid4().hex[:10]}"
    conn.execute(f'CREATE SCHEMA "{schema}"')
    url = PG_BASE.replace("postgresql://", "postgresql+psycopg://", 1)
    yield f"{url}?options=-csearch_path%3D{schema}"
    conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
    conn.close()


def _truncate(url: str) -> None:
    """Empty every store table between tests (the session schema is reused). The store refuses
    TRUNCATE of review events (a trigger); the test superuser switches triggers off for this one
    transaction, as any superuser could (docs/design-notes.md, "Integrity")."""
    from sqlalchemy import create_engine, inspect, text

    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            present = [t for t in TABLES if inspect(conn).has_table(t)]
            if "review_events" in present:
                conn.execute(text("SET LOCAL session_replication_role = replica"))
                conn.execute(text(f"TRUNCATE {', '.join(present)} RESTART IDENTITY CASCADE"))
    finally:
        engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.sqlite3'}"
    url = request.getfixturevalue("pg_schema_url")
    _truncate(url)
    return url
