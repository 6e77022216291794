"""review labels may say "contradicted": the documents say otherwise (issue 40), besides supported,
unsupported and reset

Revision ID: 0007_contradicted_label
Revises: 0006_review_tables
Create Date: 2026-11-27

Only the CHECK constraint on review_events.label changes; stored events keep their labels (and so
their hash chain). SQLite cannot alter a constraint: the table is copied row for row into one with
the new constraint, and the append-only triggers of 0001 and 0004, which the copy cannot carry,
are created again on it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_contradicted_label"
down_revision = "0006_review_tables"
branch_labels = None
depends_on = None

_NO_CHANGE = "review events are append-only: add a new event instead"
_NEW = "label IN ('supported', 'unsupported', 'contradicted', 'reset')"
_OLD = "label IN ('supported', 'unsupported', 'reset')"


def _sqlite_triggers() -> None:
    for verb in ("UPDATE", "DELETE"):
        op.execute(f"DROP TRIGGER IF EXISTS review_events_no_{verb.lower()}")
        op.execute(f"CREATE TRIGGER review_events_no_{verb.lower()} BEFORE {verb} ON review_events "
                   f"BEGIN SELECT RAISE(ABORT, '{_NO_CHANGE}'); END")
    op.execute("DROP TRIGGER IF EXISTS review_events_no_replace")
    op.execute("CREATE TRIGGER review_events_no_replace BEFORE INSERT ON review_events "
               "WHEN NEW.id IS NOT NULL AND EXISTS (SELECT 1 FROM review_events WHERE id = NEW.id) "
               f"BEGIN SELECT RAISE(ABORT, '{_NO_CHANGE}'); END")


def _check(constraint: str) -> None:
    if op.get_bind().dialect.name == "sqlite":
        # the copy must not fire the append-only triggers of the table it replaces
        for name in ("no_update", "no_delete", "no_replace"):
            op.execute(f"DROP TRIGGER IF EXISTS review_events_{name}")
        with op.batch_alter_table("review_events", recreate="always") as batch:
            batch.drop_constraint("ck_review_label", type_="check")
            batch.create_check_constraint("ck_review_label", sa.text(constraint))
        _sqlite_triggers()
    else:
        op.drop_constraint("ck_review_label", "review_events", type_="check")
        op.create_check_constraint("ck_review_label", "review_events", constraint)


def upgrade() -> None:
    _check(_NEW)


def downgrade() -> None:
    n = op.get_bind().execute(sa.text("SELECT count(*) FROM review_events WHERE label = 'contradicted' "
                                      "OR previous_label = 'contradicted'")).scalar()
    if n:
        raise RuntimeError(f"{n} review event(s) say 'contradicted': an append-only record cannot be downgraded "
                           "below 0007 without losing them")
    _check(_OLD)
