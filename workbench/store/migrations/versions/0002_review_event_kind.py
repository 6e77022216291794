"""review events carry a kind (label, added evidence, adjudication) and, for added evidence,
the item itself: reviewer-added evidence is an append-only event like any other decision

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_NO_CHANGE = "review events are append-only: add a new event instead"


def upgrade() -> None:
    op.add_column("review_events", sa.Column("kind", sa.String(16), nullable=False, server_default="label"))
    op.add_column("review_events", sa.Column("evidence", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("review_events") as batch:
        batch.drop_column("evidence")
        batch.drop_column("kind")
    if op.get_bind().dialect.name == "sqlite":  # batch mode rebuilt the table without its triggers
        for verb in ("UPDATE", "DELETE"):
            op.execute(f"DROP TRIGGER IF EXISTS review_events_no_{verb.lower()}")
            op.execute(f"CREATE TRIGGER review_events_no_{verb.lower()} BEFORE {verb} ON review_events "
                       f"BEGIN SELECT RAISE(ABORT, '{_NO_CHANGE}'); END")
