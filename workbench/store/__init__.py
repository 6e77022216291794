"""The store: SQLAlchemy 2 on SQLite (default, a file in the data directory) or PostgreSQL
(WORKBENCH_DATABASE_URL), migrated by Alembic on first use. Reviews are append-only events."""

from workbench.store.store import Store

__all__ = ["Store"]
