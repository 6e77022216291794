"""Alembic, run programmatically: the migrations ship inside the package, no alembic.ini."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text

from workbench.store.engine import IMMEDIATE, is_sqlite

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
_PG_LOCK_KEY = 0x5EED_0005  # advisory lock: one migrator at a time per database


def alembic_config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """`alembic upgrade head` under a lock, so processes starting together migrate once."""
    cfg = alembic_config()
    with engine.connect() as conn:
        if is_sqlite(engine):
            conn.execution_options(**{IMMEDIATE: True})
        with conn.begin():
            if engine.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK_KEY})
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, revision)
