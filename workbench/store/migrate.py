"""Alembic, run programmatically: the migrations ship inside the package, no alembic.ini."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError

from workbench.store.engine import IMMEDIATE, is_sqlite

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# The newest revision in migrations/versions; a test keeps it equal to Alembic's head. Knowing it
# lets an up-to-date database open without importing Alembic (≈0.7 s of every CLI call).
HEAD = "0007_contradicted_label"
_PG_LOCK_KEY = 0x5EED_0005  # advisory lock: one migrator at a time per database


def alembic_config() -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def head_revision() -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def is_current(engine: Engine) -> bool:
    """True when the database is already at HEAD (one cheap query, no Alembic import)."""
    try:
        with engine.connect() as conn:
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [HEAD]
    except DBAPIError:  # no version table yet
        return False


def ensure_current(engine: Engine) -> None:
    if not is_current(engine):
        upgrade(engine)


def upgrade(engine: Engine, revision: str = "head") -> None:
    """`alembic upgrade head` under a lock, so processes starting together migrate once."""
    from alembic import command

    cfg = alembic_config()
    with engine.connect() as conn:
        if is_sqlite(engine):
            conn.execution_options(**{IMMEDIATE: True})
        with conn.begin():
            if engine.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK_KEY})
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, revision)
