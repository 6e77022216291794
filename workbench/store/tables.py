"""The store's tables. Runs keep their full JSON (the audit record); the columns beside it are
what the store queries. Review events are append-only: rows are inserted, never updated."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class DocumentRow(Base):
    """A PDF, content-addressed: the primary key is the SHA-256 of `pdf`."""

    __tablename__ = "documents"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    filename: Mapped[str] = mapped_column(String(512))
    source_type: Mapped[str] = mapped_column(String(16))
    meta: Mapped[str] = mapped_column(Text)  # models.Document as JSON
    size_bytes: Mapped[int] = mapped_column(Integer)
    pdf: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class EvidenceIdRow(Base):
    """The registry that keeps evidence IDs stable: one ID per (document, start, end), across runs
    and questions. No foreign key to documents: IDs may be named before the PDF is stored."""

    __tablename__ = "evidence_ids"
    requirement_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    document_id: Mapped[str] = mapped_column(String(64))
    start_offset: Mapped[int] = mapped_column(Integer)
    end_offset: Mapped[int] = mapped_column(Integer)
    prefix: Mapped[str] = mapped_column(String(4))
    seq: Mapped[int] = mapped_column(Integer)
    source_type: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    __table_args__ = (
        UniqueConstraint("document_id", "start_offset", "end_offset", name="uq_evidence_span"),
        UniqueConstraint("prefix", "seq", name="uq_evidence_seq"),
    )


class RunRow(Base):
    __tablename__ = "runs"
    run_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    question: Mapped[str] = mapped_column(Text)
    backend: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    payload: Mapped[str] = mapped_column(Text)  # models.Run as JSON
    payload_hmac: Mapped[str | None] = mapped_column(String(64), nullable=True)  # store/signing.py


class RunEvidenceRow(Base):
    """One evidence item of a run with the verifier's verdict, for validation and metrics."""

    __tablename__ = "run_evidence"
    run_id: Mapped[str] = mapped_column(String(64), ForeignKey("runs.run_id", ondelete="CASCADE"), primary_key=True)
    requirement_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    document_id: Mapped[str] = mapped_column(String(64))
    start_offset: Mapped[int | None] = mapped_column(Integer, nullable=True)
    end_offset: Mapped[int | None] = mapped_column(Integer, nullable=True)
    text_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    verified: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    rejection_reason: Mapped[str | None] = mapped_column(String(64), nullable=True)


LABELS = ("supported", "unsupported", "contradicted", "reset")  # models.LABELS


class ReviewEventRow(Base):
    """A human decision. Never updated or deleted (database triggers refuse it)."""

    __tablename__ = "review_events"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(String(64), ForeignKey("runs.run_id"))
    requirement_id: Mapped[str] = mapped_column(String(32))
    label: Mapped[str] = mapped_column(String(16))
    reviewer: Mapped[str] = mapped_column(String(200))
    note: Mapped[str] = mapped_column(Text)
    timestamp: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    previous_label: Mapped[str | None] = mapped_column(String(16), nullable=True)
    verifier_verdict: Mapped[str | None] = mapped_column(String(16), nullable=True)
    kind: Mapped[str] = mapped_column(String(16), server_default="label")  # label | added | adjudication
    evidence: Mapped[str | None] = mapped_column(Text, nullable=True)  # models.Evidence JSON when kind is added
    value: Mapped[str | None] = mapped_column(Text, nullable=True)  # kind correction: the reviewer's answer
    # HMAC over this event's fields and the previous event's chain_hash of the same run
    chain_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    __table_args__ = (
        CheckConstraint("label IN ('supported', 'unsupported', 'contradicted', 'reset')", name="ck_review_label"),
        Index("ix_review_events_run_req", "run_id", "requirement_id", "id"),
    )


metadata = Base.metadata


class UserRow(Base):
    """A local account for sign-in (an offline team): the password only as an scrypt hash with
    its salt and cost (workbench.auth); OIDC users may have a row without one, for their role."""

    __tablename__ = "users"
    __table_args__ = (CheckConstraint("role IN ('reviewer', 'adjudicator', 'admin')", name="users_role"),)

    name: Mapped[str] = mapped_column(String(200), primary_key=True)
    role: Mapped[str] = mapped_column(String(16), nullable=False)
    password_hash: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    disabled: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default="0")
    # Bumped by every change of password, role or disabled: open sessions carry the version they
    # signed in at (workbench.auth.session_proof) and end when it moves.
    session_version: Mapped[int] = mapped_column(Integer, nullable=False, server_default="0")


class SecurityEventRow(Base):
    """The security log (workbench.security_log): failed and throttled sign-ins, account and role
    changes, refused actions, refused jobs, record problems. Read by admins only."""

    __tablename__ = "security_events"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    kind: Mapped[str] = mapped_column(String(40))
    who: Mapped[str | None] = mapped_column(String(200), nullable=True)
    client: Mapped[str | None] = mapped_column(String(200), nullable=True)
    detail: Mapped[str] = mapped_column(Text)
    __table_args__ = (Index("ix_security_events_kind_who_at", "kind", "who", "at"),
                      Index("ix_security_events_kind_client_at", "kind", "client", "at"))


class WorkspaceFlagRow(Base):
    """Facts about the workspace every client must obey, whatever its own settings say: e.g.
    "sign_in_required" once a process with sign-in on has used the store."""

    __tablename__ = "workspace_flags"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
    set_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ReviewTableRow(Base):
    """A review table (models.ReviewTable): its rows and columns as JSON. Its cells are runs,
    named in table_cells."""

    __tablename__ = "review_tables"
    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    spec: Mapped[str] = mapped_column(Text)  # models.ReviewTable as JSON
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class TableCellRow(Base):
    """A run asked for a table cell (models.TableCellRecord). Append-only: a rerun adds a row, the
    newest per (table, row, column) is the cell's. No foreign key to runs: a cell is named before
    its job has stored the run."""

    __tablename__ = "table_cells"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("review_tables.table_id"))
    row_key: Mapped[str] = mapped_column(String(512))
    column_key: Mapped[str] = mapped_column(String(200))
    document_id: Mapped[str] = mapped_column(String(64))
    question: Mapped[str] = mapped_column(Text)
    run_id: Mapped[str] = mapped_column(String(64))
    job_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    engine_version: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    requested_by: Mapped[str | None] = mapped_column(String(200), nullable=True)
    __table_args__ = (Index("ix_table_cells_table", "table_id", "row_key", "column_key", "id"),)
