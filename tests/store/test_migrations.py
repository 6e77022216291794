from __future__ import annotations

import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text

from workbench.config import Settings
from workbench.store import Store, migrate
from workbench.store.engine import make_engine
from workbench.store.tables import metadata


@pytest.fixture
def empty_url(db_url: str) -> Iterator[str]:
    """A database with nothing in it (PostgreSQL: a brand-new schema of its own)."""
    if not db_url.startswith("postgresql"):
        yield db_url
        return
    schema = f"wb_mig_{uuid.uuid4().hex[:10]}"
    base = db_url.split("?")[0]
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield f"{base}?options=-csearch_path%3D{schema}"
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def test_upgrade_head_on_an_empty_database_matches_the_models(empty_url):
    engine = make_engine(empty_url)
    try:
        assert inspect(engine).get_table_names() == []
        migrate.upgrade(engine)
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), metadata)
        assert diff == []
        assert migrate.current_revision(engine) == migrate.head_revision()
    finally:
        engine.dispose()


def test_migrations_downgrade_to_nothing_and_upgrade_again(empty_url):
    engine = make_engine(empty_url)
    try:
        migrate.upgrade(engine)
        cfg = migrate.alembic_config()
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, "base")
        assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
        migrate.upgrade(engine)
        assert {"documents", "runs", "review_events"} <= set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_processes_opening_a_new_store_together_migrate_it_once(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    stores = [Store(Settings(data_dir=tmp_path / str(i)), url=url) for i in range(4)]
    try:
        with ThreadPoolExecutor(4) as pool:
            assert list(pool.map(lambda s: s.list_runs(), stores)) == [[]] * 4
        with stores[0].engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM alembic_version")).scalar() == 1
    finally:
        for s in stores:
            s.dispose()


def test_sqlite_store_runs_in_wal_mode_with_foreign_keys_and_a_busy_timeout(tmp_path: Path):
    store = Store(Settings(data_dir=tmp_path))
    try:
        assert store.url == f"sqlite:///{tmp_path / 'workbench.sqlite3'}"
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 5000
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
        assert store.integrity_check() == "ok"
    finally:
        store.dispose()


def test_the_head_the_store_checks_against_is_alembics_head():
    assert migrate.head_revision() == migrate.HEAD


def test_a_database_at_head_is_opened_without_running_alembic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    url = f"sqlite:///{tmp_path / 'w.sqlite3'}"
    first = Store(Settings(data_dir=tmp_path), url=url)
    first.list_runs()  # creates and migrates
    first.dispose()
    calls = []
    monkeypatch.setattr(migrate, "upgrade", lambda engine, revision="head": calls.append(engine))
    again = Store(Settings(data_dir=tmp_path), url=url)
    assert again.list_runs() == []
    again.dispose()
    assert calls == []


def test_0007_lets_a_label_say_contradicted_and_keeps_older_events_and_the_append_only_triggers(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    engine = make_engine(url)
    insert = ("INSERT INTO review_events (run_id, requirement_id, label, reviewer, note, timestamp, chain_hash) "
              "VALUES ('r', 'REQ-C001', :label, 'ann', '', '2026-01-01', :chain)")
    try:
        migrate.upgrade(engine, "0006_review_tables")
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO runs (run_id, question, backend, created_at, payload) "
                              "VALUES ('r', 'q', 'rules', '2026-01-01', '{}')"))
            conn.execute(text(insert), {"label": "unsupported", "chain": "c" * 64})
        with pytest.raises(Exception, match="ck_review_label|CHECK"), engine.begin() as conn:
            conn.execute(text(insert), {"label": "contradicted", "chain": None})
        migrate.upgrade(engine)
        with engine.begin() as conn:
            conn.execute(text(insert), {"label": "contradicted", "chain": None})
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT id, label, chain_hash FROM review_events ORDER BY id")).all()
        assert [tuple(r) for r in rows] == [(1, "unsupported", "c" * 64), (2, "contradicted", None)]
        for sql in ("UPDATE review_events SET note = 'x'", "DELETE FROM review_events",
                    "INSERT INTO review_events (id, run_id, requirement_id, label, reviewer, note, timestamp) "
                    "VALUES (1, 'r', 'REQ-C001', 'reset', 'eve', '', '2026-01-02')"):
            with pytest.raises(Exception, match="append-only"), engine.begin() as conn:
                conn.execute(text(sql))
        with pytest.raises(Exception, match="ck_review_label|CHECK"), engine.begin() as conn:
            conn.execute(text(insert), {"label": "maybe", "chain": None})
    finally:
        engine.dispose()
