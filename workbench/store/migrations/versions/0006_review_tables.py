"""review tables: documents x questions, each cell a run; cell corrections as review events

Revision ID: 0006_review_tables
Revises: 0005_accounts
Create Date: 2026-11-25

A cell correction is a review event (kind "correction") on the cell's run whose `value` is the
reviewer's answer: append-only and hash-chained like every other human decision.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_review_tables"
down_revision = "0005_accounts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN (no batch copy on SQLite: that would drop the append-only triggers).
    op.add_column("review_events", sa.Column("value", sa.Text(), nullable=True))
    op.create_table(
        "review_tables",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("spec", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "table_cells",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("review_tables.table_id"), nullable=False),
        sa.Column("row_key", sa.String(512), nullable=False),
        sa.Column("column_key", sa.String(200), nullable=False),
        sa.Column("document_id", sa.String(64), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("run_id", sa.String(64), nullable=False),
        sa.Column("job_id", sa.String(64), nullable=True),
        sa.Column("engine_version", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("requested_by", sa.String(200), nullable=True),
    )
    op.create_index("ix_table_cells_table", "table_cells", ["table_id", "row_key", "column_key", "id"])


def downgrade() -> None:
    op.drop_index("ix_table_cells_table", "table_cells")
    op.drop_table("table_cells")
    op.drop_table("review_tables")
    op.execute("ALTER TABLE review_events DROP COLUMN value")
