"""Alembic environment: uses the connection the store hands over (migrate.upgrade); with the
`alembic` command line, pass the URL as `-x url=...`."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from workbench.store.tables import metadata

config = context.config


def run() -> None:
    conn = config.attributes.get("connection")
    if conn is not None:
        context.configure(connection=conn, target_metadata=metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    engine = create_engine(url)
    with engine.begin() as c:
        context.configure(connection=c, target_metadata=metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()


run()
