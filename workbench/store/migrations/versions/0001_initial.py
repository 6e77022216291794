"""initial: documents, evidence ID registry, runs, run evidence, append-only review events

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_NO_CHANGE = "review events are append-only: add a new event instead"


def upgrade() -> None:
    op.create_table(
        "documents",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("filename", sa.String(512), nullable=False),
        sa.Column("source_type", sa.String(16), nullable=False),
        sa.Column("meta", sa.Text(), nullable=False),
        sa.Column("size_bytes", sa.Integer(), nullable=False),
        sa.Column("pdf", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "evidence_ids",
        sa.Column("requirement_id", sa.String(32), primary_key=True),
        sa.Column("document_id", sa.String(64), nullable=False),
        sa.Column("start_offset", sa.Integer(), nullable=False),
        sa.Column("end_offset", sa.Integer(), nullable=False),
        sa.Column("prefix", sa.String(4), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("source_type", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("document_id", "start_offset", "end_offset", name="uq_evidence_span"),
        sa.UniqueConstraint("prefix", "seq", name="uq_evidence_seq"),
    )
    op.create_table(
        "runs",
        sa.Column("run_id", sa.String(64), primary_key=True),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("backend", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
    )
    op.create_index("ix_runs_created_at", "runs", ["created_at"])
    op.create_table(
        "run_evidence",
        sa.Column("run_id", sa.String(64), sa.ForeignKey("runs.run_id", ondelete="CASCADE"), primary_key=True),
        sa.Column("requirement_id", sa.String(32), primary_key=True),
        sa.Column("document_id", sa.String(64), nullable=False),
        sa.Column("start_offset", sa.Integer(), nullable=True),
        sa.Column("end_offset", sa.Integer(), nullable=True),
        sa.Column("text_sha256", sa.String(64), nullable=True),
        sa.Column("verified", sa.Boolean(), nullable=True),
        sa.Column("rejection_reason", sa.String(64), nullable=True),
    )
    op.create_table(
        "review_events",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.String(64), sa.ForeignKey("runs.run_id"), nullable=False),
        sa.Column("requirement_id", sa.String(32), nullable=False),
        sa.Column("label", sa.String(16), nullable=False),
        sa.Column("reviewer", sa.String(200), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("timestamp", sa.DateTime(timezone=True), nullable=False),
        sa.Column("previous_label", sa.String(16), nullable=True),
        sa.Column("verifier_verdict", sa.String(16), nullable=True),
        sa.CheckConstraint("label IN ('supported', 'unsupported', 'reset')", name="ck_review_label"),
    )
    op.create_index("ix_review_events_run_req", "review_events", ["run_id", "requirement_id", "id"])

    # Append-only, enforced by the database itself.
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for verb in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER review_events_no_{verb.lower()} BEFORE {verb} ON review_events "
                f"BEGIN SELECT RAISE(ABORT, '{_NO_CHANGE}'); END"
            )
    elif dialect == "postgresql":
        op.execute(
            "CREATE FUNCTION review_events_append_only() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN RAISE EXCEPTION '{_NO_CHANGE}'; END $$"
        )
        op.execute(
            "CREATE TRIGGER review_events_append_only BEFORE UPDATE OR DELETE ON review_events "
            "FOR EACH ROW EXECUTE FUNCTION review_events_append_only()"
        )


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS review_events_append_only ON review_events")
        op.execute("DROP FUNCTION IF EXISTS review_events_append_only()")
    op.drop_index("ix_review_events_run_req", table_name="review_events")
    op.drop_table("review_events")
    op.drop_table("run_evidence")
    op.drop_index("ix_runs_created_at", table_name="runs")
    op.drop_table("runs")
    op.drop_table("evidence_ids")
    op.drop_table("documents")
