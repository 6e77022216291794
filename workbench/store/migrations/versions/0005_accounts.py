"""accounts: disabled flag and session version on users, identity-provider accounts namespaced
'oidc:<email>', a security event log, and workspace flags ("sign-in required")

Revision ID: 0005_accounts
Revises: 0004
Create Date: 2026-11-24

Before this, an identity provider's account was a row named by its bare e-mail without a password,
where a local account of the same name could collide; such rows are renamed 'oidc:<name>'.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_accounts"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("disabled", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("session_version", sa.Integer(), nullable=False, server_default="0"))
    op.execute("UPDATE users SET name = 'oidc:' || name WHERE password_hash IS NULL AND name NOT LIKE 'oidc:%'")
    op.create_table(
        "security_events",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("who", sa.String(200), nullable=True),
        sa.Column("client", sa.String(200), nullable=True),
        sa.Column("detail", sa.Text(), nullable=False),
    )
    op.create_index("ix_security_events_kind_who_at", "security_events", ["kind", "who", "at"])
    op.create_index("ix_security_events_kind_client_at", "security_events", ["kind", "client", "at"])
    op.create_table(
        "workspace_flags",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("set_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("workspace_flags")
    op.drop_index("ix_security_events_kind_client_at", "security_events")
    op.drop_index("ix_security_events_kind_who_at", "security_events")
    op.drop_table("security_events")
    op.execute("UPDATE users SET name = substr(name, 6) WHERE name LIKE 'oidc:%'")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("session_version")
        batch.drop_column("disabled")
