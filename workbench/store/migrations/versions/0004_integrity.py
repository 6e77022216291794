"""integrity: run-record signatures, a hash chain over review events, no REPLACE/TRUNCATE

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23

SQLite's INSERT OR REPLACE deletes the old row without firing DELETE triggers (recursive_triggers
is off), and PostgreSQL's TRUNCATE fires no row trigger: both rewrote history. A BEFORE INSERT
trigger refuses an id that exists; a BEFORE TRUNCATE trigger refuses TRUNCATE. (Upserts go through
the UPDATE path, which 0001's triggers already refuse.)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_NO_CHANGE = "review events are append-only: add a new event instead"


def upgrade() -> None:
    op.add_column("runs", sa.Column("payload_hmac", sa.String(64), nullable=True))
    op.add_column("review_events", sa.Column("chain_hash", sa.String(64), nullable=True))
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute(
            "CREATE TRIGGER review_events_no_replace BEFORE INSERT ON review_events "
            "WHEN NEW.id IS NOT NULL AND EXISTS (SELECT 1 FROM review_events WHERE id = NEW.id) "
            f"BEGIN SELECT RAISE(ABORT, '{_NO_CHANGE}'); END"
        )
    elif dialect == "postgresql":
        op.execute(
            "CREATE TRIGGER review_events_no_truncate BEFORE TRUNCATE ON review_events "
            "FOR EACH STATEMENT EXECUTE FUNCTION review_events_append_only()"
        )
        # Roles granted through PUBLIC never need to change history. (The owner keeps its rights;
        # README/design notes: run the app as a role with only SELECT, INSERT on review_events.)
        op.execute("REVOKE UPDATE, DELETE, TRUNCATE ON review_events FROM PUBLIC")


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS review_events_no_replace")
    elif dialect == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS review_events_no_truncate ON review_events")
    # Plain ALTER TABLE (SQLite ≥ 3.35): a batch copy of review_events would drop 0001's triggers.
    op.execute("ALTER TABLE review_events DROP COLUMN chain_hash")
    op.execute("ALTER TABLE runs DROP COLUMN payload_hmac")
