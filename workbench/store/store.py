"""The store: documents (content-addressed, bytes kept), stable evidence IDs, runs and
append-only review events, on SQLite (default) or PostgreSQL (settings.database_url).

Every write is one short transaction. Review events are written under a lock on their run
(SQLite: BEGIN IMMEDIATE; PostgreSQL: SELECT … FOR UPDATE on the run row), so the label an event
replaces (`previous_label`) is computed in the same transaction that appends it: two reviewers
labelling at once both land, in a definite order."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Connection, Engine, delete, func, insert, select, text, update
from sqlalchemy.exc import ArgumentError, IntegrityError, OperationalError

from workbench.config import Settings
from workbench.errors import ConfigError, HashMismatchError, NotFoundError, RecordProblemError, WorkbenchError
from workbench.models import ID_PREFIX, Document, Evidence, ReviewEvent, ReviewTable, Run, TableCellRecord, utcnow
from workbench.redact import redact, redact_url
from workbench.store import migrate
from workbench.store.chain import HEADS_DIR, ChainHeads, Head, Walk, walk
from workbench.store.engine import IMMEDIATE, is_sqlite, make_engine
from workbench.store.signing import Signer
from workbench.store.tables import (
    DocumentRow,
    EvidenceIdRow,
    ReviewEventRow,
    ReviewTableRow,
    RunEvidenceRow,
    RunRow,
    SecurityEventRow,
    TableCellRow,
    UserRow,
    WorkspaceFlagRow,
)
from workbench.text.citations import SENTENCE_ID

__all__ = ["SENTENCE_ID", "Store"]  # SENTENCE_ID: the service parses SENT-n through the store
_RETRIES = 20

_D, _E, _R, _RE, _EV = (t.__table__ for t in (DocumentRow, EvidenceIdRow, RunRow, RunEvidenceRow, ReviewEventRow))
_U, _SEC, _FLAG = UserRow.__table__, SecurityEventRow.__table__, WorkspaceFlagRow.__table__
_TBL, _CELL = ReviewTableRow.__table__, TableCellRow.__table__
_USER_COLUMNS = (_U.c.name, _U.c.role, _U.c.password_hash, _U.c.disabled, _U.c.session_version)


def _utc(dt: datetime) -> datetime:
    """Everything is stored in UTC; SQLite hands datetimes back naive, so they are read as UTC."""
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def verdict_of(verified: bool | None) -> str | None:
    return None if verified is None else ("supported" if verified else "unsupported")


class Store:
    """One database. Cheap to construct; connects and migrates (`alembic upgrade head`) on first use."""

    def __init__(self, settings: Settings, *, url: str | None = None):
        self.settings = settings
        self.url = url or self.settings.db_url
        self._engine: Engine | None = None
        self._lock = threading.Lock()
        self.signer = Signer(self.settings)
        self.heads = ChainHeads(self.settings.record_heads_dir or Path(self.settings.data_dir) / HEADS_DIR, self.signer)

    # --- plumbing ----------------------------------------------------------------------------
    @property
    def engine(self) -> Engine:
        if self._engine is None:
            with self._lock:
                if self._engine is None:
                    if self.url.startswith("sqlite") and self.settings.database_url is None:
                        self.settings.ensure_dirs()
                    try:
                        engine = make_engine(self.url)
                    except (ArgumentError, ImportError, ValueError) as exc:  # ValueError: a malformed port
                        raise ConfigError(
                            f"the database URL {redact_url(self.url)!r} cannot be used ({type(exc).__name__}: "
                            f"{redact(str(exc), self.url)}); set WORKBENCH_DATABASE_URL to sqlite:///PATH or "
                            "postgresql+psycopg://USER@HOST:PORT/DB"
                        ) from None
                    try:
                        migrate.ensure_current(engine)
                    except OperationalError as exc:
                        engine.dispose()
                        raise WorkbenchError(
                            f"cannot open the store at {redact_url(self.url)}: "
                            f"{redact(str(exc.orig).strip(), self.url)}; check WORKBENCH_DATABASE_URL / "
                            "WORKBENCH_DATA_DIR"
                        ) from None
                    if not self.heads.adopted:
                        self._adopt(engine)
                    self._engine = engine
        return self._engine

    def dispose(self) -> None:
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect() as conn, conn.begin():
            yield conn

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """A write transaction that holds the write lock from its first statement (SQLite)."""
        with self.engine.connect() as conn:
            if is_sqlite(self.engine):
                conn.execution_options(**{IMMEDIATE: True})
            with conn.begin():
                yield conn

    # --- documents ---------------------------------------------------------------------------
    def put_document(self, doc: Document, pdf_bytes: bytes) -> None:
        """Keep a PDF and its metadata. Idempotent: the same bytes are one document; storing it
        again only refreshes filename/source type/metadata, never the bytes."""
        sha = hashlib.sha256(pdf_bytes).hexdigest()
        if sha != doc.id:
            raise HashMismatchError(f"document id {doc.id[:12]}… is not the SHA-256 of its bytes ({sha[:12]}…)")
        values = dict(filename=doc.filename, source_type=doc.source_type, meta=doc.model_dump_json(),
                      size_bytes=len(pdf_bytes))
        for _ in range(_RETRIES):
            try:
                with self._write() as conn:
                    if conn.execute(select(_D.c.id).where(_D.c.id == doc.id)).first():
                        conn.execute(update(_D).where(_D.c.id == doc.id).values(**values))
                    else:
                        conn.execute(insert(_D).values(id=doc.id, pdf=pdf_bytes, created_at=utcnow(), **values))
                return
            except IntegrityError:
                continue  # another process stored it between our check and insert: update next time
        raise WorkbenchError(f"could not store document {doc.id[:12]}… (too much contention); try again")

    def has_document(self, document_id: str) -> bool:
        with self._read() as conn:
            return conn.execute(select(_D.c.id).where(_D.c.id == document_id)).first() is not None

    def get_document(self, document_id: str) -> Document:
        with self._read() as conn:
            meta = conn.execute(select(_D.c.meta).where(_D.c.id == document_id)).scalar()
        if meta is None:
            raise NotFoundError(f"no document {document_id} in the store: ingest the PDF first")
        return Document.model_validate_json(meta)

    def list_documents(self) -> list[Document]:
        with self._read() as conn:
            rows = conn.execute(select(_D.c.meta).order_by(_D.c.created_at, _D.c.id)).scalars().all()
        return [Document.model_validate_json(m) for m in rows]

    def pdf_bytes(self, document_id: str) -> bytes:
        with self._read() as conn:
            data = conn.execute(select(_D.c.pdf).where(_D.c.id == document_id)).scalar()
        if data is None:
            raise NotFoundError(f"no document {document_id} in the store: ingest the PDF first")
        return bytes(data)

    # --- evidence IDs ------------------------------------------------------------------------
    def assign_evidence_id(self, document_id: str, start: int, end: int, source_type: str = "other") -> str:
        """The stable ID of a span: the same (document, start, end) keeps its ID across runs and
        questions; a new span continues its prefix's sequence (REQ-S001, REQ-S002, …)."""
        return self.assign_evidence_ids([(document_id, start, end, source_type)])[0]

    def assign_evidence_ids(self, spans: list[tuple[str, int, int, str]]) -> list[str]:
        """Batch form of assign_evidence_id, one transaction (concurrency-safe: unique
        constraints plus retry)."""
        if not spans:
            return []
        for _ in range(_RETRIES):
            try:
                with self._write() as conn:
                    return [self._assign(conn, *s) for s in spans]
            except IntegrityError:
                continue  # a concurrent writer took the same number or span: look again
        raise WorkbenchError("could not assign evidence IDs (too much contention); try again")

    @staticmethod
    def _assign(conn: Connection, document_id: str, start: int, end: int, source_type: str) -> str:
        found = conn.execute(
            select(_E.c.requirement_id).where(
                _E.c.document_id == document_id, _E.c.start_offset == start, _E.c.end_offset == end
            )
        ).scalar()
        if found:
            return found
        prefix = ID_PREFIX.get(source_type, ID_PREFIX["other"])
        seq = conn.execute(select(func.coalesce(func.max(_E.c.seq), 0)).where(_E.c.prefix == prefix)).scalar() + 1
        rid = f"REQ-{prefix}{seq:03d}"
        conn.execute(insert(_E).values(requirement_id=rid, document_id=document_id, start_offset=start,
                                       end_offset=end, prefix=prefix, seq=seq, source_type=source_type,
                                       created_at=utcnow()))
        return rid

    def evidence_id_for(self, document_id: str, start: int, end: int) -> str | None:
        with self._read() as conn:
            return conn.execute(
                select(_E.c.requirement_id).where(
                    _E.c.document_id == document_id, _E.c.start_offset == start, _E.c.end_offset == end
                )
            ).scalar()

    # --- accounts (sign-in) ----------------------------------------------------------------
    def add_user(self, name: str, role: str, password_hash: str | None) -> bool:
        """Create an account; False (nothing changed) when the name is taken."""
        try:
            with self._write() as conn:
                if conn.execute(select(_U.c.name).where(_U.c.name == name)).first():
                    return False
                conn.execute(insert(_U).values(name=name, role=role, password_hash=password_hash, created_at=utcnow(),
                                               disabled=False, session_version=0))
            return True
        except IntegrityError:
            return False

    def update_user(self, name: str, *, new_session: bool = True, **values) -> bool:
        """Change an account's role, password_hash or disabled; `new_session` ends its open
        sessions (session_version + 1). False when there is no such account."""
        if new_session:
            values["session_version"] = _U.c.session_version + 1
        with self._write() as conn:
            return conn.execute(update(_U).where(_U.c.name == name).values(**values)).rowcount == 1

    def get_user(self, name: str) -> dict | None:
        """{"name", "role", "password_hash", "disabled", "session_version"} or None."""
        with self._read() as conn:
            row = conn.execute(select(*_USER_COLUMNS).where(_U.c.name == name)).first()
        return dict(row._mapping) if row else None

    def list_users(self) -> list[dict]:
        with self._read() as conn:
            return [dict(r._mapping) for r in conn.execute(select(_U.c.name, _U.c.role, _U.c.disabled)
                                                           .order_by(_U.c.name))]

    def count_users(self, *, role: str | None = None, enabled_only: bool = False) -> int:
        q = select(func.count()).select_from(_U)
        if role is not None:
            q = q.where(_U.c.role == role)
        if enabled_only:
            q = q.where(_U.c.disabled.is_(False))
        with self._read() as conn:
            return conn.execute(q).scalar() or 0

    # --- workspace flags and the security log ------------------------------------------------
    def set_flag(self, key: str, value: str = "true") -> None:
        try:
            with self._write() as conn:
                if conn.execute(select(_FLAG.c.key).where(_FLAG.c.key == key)).first() is None:
                    conn.execute(insert(_FLAG).values(key=key, value=value, set_at=utcnow()))
        except IntegrityError:
            pass  # set by another process meanwhile

    def flag(self, key: str) -> str | None:
        with self._read() as conn:
            return conn.execute(select(_FLAG.c.value).where(_FLAG.c.key == key)).scalar()

    def add_security_event(self, kind: str, detail: str, who: str | None = None, client: str | None = None,
                           at: datetime | None = None) -> None:
        with self._write() as conn:
            conn.execute(insert(_SEC).values(at=at or utcnow(), kind=kind[:40], who=who and who[:200],
                                             client=client and client[:200], detail=detail))

    def security_events(self, *, since: datetime | None = None, kinds: tuple[str, ...] | None = None,
                        who: str | None = None, client: str | None = None, limit: int | None = None) -> list[dict]:
        """Security events, oldest first (the newest `limit` when given)."""
        q = select(_SEC)
        if since is not None:
            q = q.where(_SEC.c.at >= since)
        if kinds:
            q = q.where(_SEC.c.kind.in_(kinds))
        if who is not None:
            q = q.where(_SEC.c.who == who)
        if client is not None:
            q = q.where(_SEC.c.client == client)
        q = q.order_by(_SEC.c.id.desc())
        if limit is not None:
            q = q.limit(limit)
        with self._read() as conn:
            rows = [dict(r) for r in conn.execute(q).mappings()]
        return [{**r, "at": _utc(r["at"])} for r in reversed(rows)]

    # --- runs --------------------------------------------------------------------------------
    def save_run(self, run: Run) -> None:
        """Store (or replace) a run: its full JSON plus one row per evidence item."""
        payload = run.model_dump_json()
        ev_rows = []
        for ev in run.evidence:
            v = run.verification_for(ev.requirement_id)
            s = ev.span
            ev_rows.append(dict(run_id=run.run_id, requirement_id=ev.requirement_id, document_id=ev.document_id,
                                start_offset=s.start if s else None, end_offset=s.end if s else None,
                                text_sha256=s.text_sha256 if s else None,
                                verified=v.verified if v else None, rejection_reason=v.rejection_reason if v else None))
        values = dict(question=run.question, backend=run.backend, created_at=_utc(run.created_at), payload=payload,
                      payload_hmac=self.signer.sign("run", run.run_id, payload))
        for _ in range(_RETRIES):
            try:
                with self._write() as conn:
                    if conn.execute(select(_R.c.run_id).where(_R.c.run_id == run.run_id)).first():
                        conn.execute(update(_R).where(_R.c.run_id == run.run_id).values(**values))
                        conn.execute(delete(_RE).where(_RE.c.run_id == run.run_id))
                    else:
                        conn.execute(insert(_R).values(run_id=run.run_id, **values))
                    if ev_rows:
                        conn.execute(insert(_RE), ev_rows)
                return
            except IntegrityError:
                continue
        raise WorkbenchError(f"could not store run {run.run_id} (too much contention); try again")

    def has_run(self, run_id: str) -> bool:
        with self._read() as conn:
            return conn.execute(select(_R.c.run_id).where(_R.c.run_id == run_id)).first() is not None

    def get_run(self, run_id: str) -> Run:
        with self._read() as conn:
            payload = conn.execute(select(_R.c.payload).where(_R.c.run_id == run_id)).scalar()
        if payload is None:
            raise NotFoundError(f"no run {run_id!r} in the store: `workbench runs` lists the stored runs")
        return Run.model_validate_json(payload)

    def list_runs(self) -> list[Run]:
        """All runs, newest first."""
        with self._read() as conn:
            rows = conn.execute(select(_R.c.payload).order_by(_R.c.created_at.desc(), _R.c.run_id.desc())).scalars()
            return [Run.model_validate_json(p) for p in rows]

    # --- review events -----------------------------------------------------------------------
    def add_review(self, event: ReviewEvent) -> ReviewEvent:
        """Append a review event; durable once this returns. Fills id, timestamp (the moment it was
        recorded, so time order is commit order), previous_label (the human label current just
        before, read in the same transaction) and verifier_verdict (from the stored run, unless
        given)."""
        for attempt in range(_RETRIES):
            try:
                return self._add_review(event)
            except OperationalError as exc:  # SQLite busy beyond the timeout
                if "locked" not in str(exc).lower() or attempt == _RETRIES - 1:
                    raise WorkbenchError(f"the store is busy, the review was not saved: {exc.orig}; try again") from exc
        raise AssertionError("unreachable")

    def _add_review(self, event: ReviewEvent) -> ReviewEvent:
        """Under the run's head lock: check the record against its head (an erased record takes no
        more events: they would hide the erasure), append linked to the last proven event, and
        move the head (pending first, so a crash between commit and head leaves no false alarm)."""
        with self.heads.lock(event.run_id):
            new_id, ts, previous, verdict, base, w, chain = self._append(event)
            self.heads.write(base.model_copy(update=dict(chain=chain, events=w.chained + 1, pending=None)))
        return event.model_copy(update=dict(id=new_id, timestamp=ts, previous_label=previous, verifier_verdict=verdict))

    def _append(self, event: ReviewEvent) -> tuple:
        """The append's transaction (its caller holds the run's head lock)."""
        with self._write() as conn:
            q = select(_R.c.run_id).where(_R.c.run_id == event.run_id)
            if self.engine.dialect.name == "postgresql":
                q = q.with_for_update()  # serialise reviews of one run
            if conn.execute(q).first() is None:
                raise NotFoundError(f"no run {event.run_id!r} in the store: `workbench runs` lists the stored runs")
            head = self.heads.read(event.run_id)
            w = self._walk(conn, event.run_id, head)
            if w.erased:
                raise RecordProblemError(f"the review was not saved: the review record of run {event.run_id} cannot "
                                         f"be trusted ({'; '.join(w.erased)}). An admin restores the database from a "
                                         "backup (docs/security/record.md)", w.erased)
            last = next((r["label"] for r in reversed(w.accepted) if r["requirement_id"] == event.requirement_id), None)
            previous = None if last in (None, "reset") else last
            verdict = event.verifier_verdict or self._stored_verdict(conn, event.run_id, event.requirement_id)
            ts = utcnow()
            values = dict(run_id=event.run_id, requirement_id=event.requirement_id, label=event.label,
                          reviewer=event.reviewer, note=event.note, timestamp=ts, previous_label=previous,
                          verifier_verdict=verdict, kind=event.kind,
                          evidence=event.evidence.model_dump_json() if event.evidence is not None else None,
                          value=event.value)
            values["chain_hash"] = self._chain(w.end, values)
            base = head or Head(run_id=event.run_id)
            self.heads.write(base.model_copy(update=dict(chain=w.end, events=w.chained, pending=values["chain_hash"])))
            new_id = conn.execute(insert(_EV).values(**values)).inserted_primary_key[0]
        return new_id, ts, previous, verdict, base, w, values["chain_hash"]

    @staticmethod
    def _stored_verdict(conn: Connection, run_id: str, requirement_id: str) -> str | None:
        m = SENTENCE_ID.match(requirement_id)
        if m:
            payload = conn.execute(select(_R.c.payload).where(_R.c.run_id == run_id)).scalar()
            sentences = json.loads(payload).get("answer", {}).get("sentences", []) if payload else []
            n = int(m.group(1))
            return verdict_of(sentences[n - 1].get("supported")) if 1 <= n <= len(sentences) else None
        verified = conn.execute(
            select(_RE.c.verified).where(_RE.c.run_id == run_id, _RE.c.requirement_id == requirement_id)
        ).scalar()
        return verdict_of(verified)

    def history(self, run_id: str | None, requirement_id: str | None = None) -> list[ReviewEvent]:
        """Review events in the order they were recorded; run_id None: all runs. Only the events the
        hash chain proves: rows inserted without the record key are set aside (record_problems)."""
        q = select(_EV).order_by(_EV.c.id)
        if run_id is not None:
            q = q.where(_EV.c.run_id == run_id)
        with self._read() as conn:
            rows = conn.execute(q).mappings().all()
        by_run: dict[str, list] = {}
        for r in rows:
            by_run.setdefault(r["run_id"], []).append(r)
        proven = {id(r) for rid, rs in by_run.items() for r in self._walk_rows(rid, rs, self.heads.read(rid)).accepted}
        return [ReviewEvent(**{**r, "timestamp": _utc(r["timestamp"]), "kind": r["kind"] or "label",
                               "evidence": Evidence.model_validate_json(r["evidence"]) if r["evidence"] else None})
                for r in rows if id(r) in proven and (requirement_id is None or r["requirement_id"] == requirement_id)]

    def event_count(self, run_id: str) -> int:
        """How many review events a run has: with the run ID, the key of its reviewed state."""
        with self._read() as conn:
            return conn.execute(select(func.count()).select_from(_EV).where(_EV.c.run_id == run_id)).scalar() or 0

    # --- review tables (models.ReviewTable; cells are runs, named append-only in table_cells) ---
    def put_table(self, table: ReviewTable) -> None:
        """Store a table's rows and columns (new, or grown: rows and columns are only added)."""
        values = dict(name=table.name, spec=table.model_dump_json(), created_at=_utc(table.created_at),
                      updated_at=_utc(table.updated_at))
        with self._write() as conn:
            if conn.execute(select(_TBL.c.table_id).where(_TBL.c.table_id == table.table_id)).first():
                conn.execute(update(_TBL).where(_TBL.c.table_id == table.table_id).values(**values))
            else:
                conn.execute(insert(_TBL).values(table_id=table.table_id, **values))

    def get_table(self, table_id: str) -> ReviewTable:
        with self._read() as conn:
            spec = conn.execute(select(_TBL.c.spec).where(_TBL.c.table_id == table_id)).scalar()
        if spec is None:
            raise NotFoundError(f"no table {table_id!r} in the store: `workbench table list` lists them")
        return ReviewTable.model_validate_json(spec)

    def list_tables(self) -> list[ReviewTable]:
        """All tables, newest first."""
        with self._read() as conn:
            rows = conn.execute(select(_TBL.c.spec).order_by(_TBL.c.created_at.desc())).scalars()
            return [ReviewTable.model_validate_json(s) for s in rows]

    def add_cells(self, cells: list[TableCellRecord]) -> list[TableCellRecord]:
        """Append cell records (one transaction); returns them with their ids."""
        out = []
        with self._write() as conn:
            for c in cells:
                values = c.model_dump(exclude={"id"})
                values["created_at"] = _utc(c.created_at)
                new_id = conn.execute(insert(_CELL).values(**values)).inserted_primary_key[0]
                out.append(c.model_copy(update={"id": new_id}))
        return out

    def cell_records(self, table_id: str) -> list[TableCellRecord]:
        """Every cell record of a table, oldest first (the newest per row and column is the cell's)."""
        with self._read() as conn:
            rows = conn.execute(select(_CELL).where(_CELL.c.table_id == table_id).order_by(_CELL.c.id)).mappings().all()
        return [TableCellRecord(**{**r, "created_at": _utc(r["created_at"])}) for r in rows]

    # --- integrity ---------------------------------------------------------------------------
    @staticmethod
    def _fields(e) -> tuple:  # noqa: ANN001 - a row mapping or the values dict
        fields = (e["run_id"], e["requirement_id"], e["label"], e["reviewer"], e["note"],
                  _utc(e["timestamp"]).isoformat(), e["previous_label"], e["verifier_verdict"], e["kind"] or "label",
                  e["evidence"])
        # a cell correction's answer is chained too; events without one keep the hashes they had
        return fields if e.get("value") is None else (*fields, e["value"])

    def _chain(self, prev: str | None, e) -> str:  # noqa: ANN001 - a row mapping or the values dict
        return self.signer.sign("event", prev, *self._fields(e))

    def _legacy_mac(self, e) -> str:  # noqa: ANN001 - a row mapping
        return self.signer.sign("legacy-event", str(e["id"]), *self._fields(e))

    def _walk_rows(self, run_id: str, rows, head: Head | None, *, adopting: bool = False) -> Walk:  # noqa: ANN001
        """A run's rows (id order) along its chain, checked against its head (chain.walk)."""
        def legacy_ok(r, mac: str | None) -> bool:  # noqa: ANN001
            return self.signer.check(mac, "legacy-event", str(r["id"]), *self._fields(r))

        return walk(rows, head, self._chain, legacy_ok, where=str(self.heads.path(run_id)), adopting=adopting)

    def _walk(self, conn: Connection, run_id: str, head: Head | None) -> Walk:
        rows = conn.execute(select(_EV).where(_EV.c.run_id == run_id).order_by(_EV.c.id)).mappings().all()
        return self._walk_rows(run_id, rows, head)

    def _adopt(self, engine: Engine) -> None:
        """Take the database's review record as it stands, once per head folder: write a head for
        every run with events (keeping heads already there) and list its pre-chain events."""
        try:
            with self.heads.lock("ADOPTED"):
                if self.heads.adopted:
                    return
                with engine.connect() as conn, conn.begin():
                    rows = conn.execute(select(_EV).order_by(_EV.c.id)).mappings().all()
                by_run: dict[str, list] = {}
                for r in rows:
                    by_run.setdefault(r["run_id"], []).append(r)
                for run_id, rs in by_run.items():
                    if self.heads.path(run_id).exists():
                        continue
                    w = self._walk_rows(run_id, rs, None, adopting=True)
                    legacy = {str(r["id"]): self._legacy_mac(r) for r in w.accepted if r["chain_hash"] is None}
                    self.heads.write(Head(run_id=run_id, chain=w.end, events=w.chained, legacy=legacy))
                self.heads.mark_adopted()
        except OSError as exc:
            raise ConfigError(f"cannot write the review record's chain heads in {self.heads.folder} ({exc.strerror}); "
                              "set WORKBENCH_RECORD_HEADS_DIR to a folder this process may write") from exc

    def record_problems(self, run_id: str) -> list[str]:
        """Why the stored record of this run cannot be trusted ([] when it can): run_problems, then
        event_problems. What this cannot see: docs/security/record.md."""
        return self.run_problems(run_id) + self.event_problems(run_id)

    def run_problems(self, run_id: str) -> list[str]:
        """The run's JSON no longer carries the signature it was saved with (edited, or written
        outside the workbench), or its per-item verdict rows disagree with the JSON."""
        with self._read() as conn:
            row = conn.execute(select(_R.c.payload, _R.c.payload_hmac).where(_R.c.run_id == run_id)).first()
            if row is None:
                raise NotFoundError(f"no run {run_id!r} in the store: `workbench runs` lists the stored runs")
            items = conn.execute(select(_RE.c.requirement_id, _RE.c.verified, _RE.c.text_sha256)
                                 .where(_RE.c.run_id == run_id)).all()
        problems = []
        if not self.signer.check(row.payload_hmac, "run", run_id, row.payload):
            problems.append("the run record does not match its signature (edited outside the workbench, or signed "
                            "with another integrity key)")
        else:
            run = Run.model_validate_json(row.payload)
            want = {ev.requirement_id: ((run.verification_for(ev.requirement_id) or None),
                                        ev.span.text_sha256 if ev.span else None) for ev in run.evidence}
            for rid, verified, sha in items:
                v, want_sha = want.get(rid, (None, None))
                if rid not in want or (v.verified if v else None) != verified or want_sha != sha:
                    problems.append(f"the stored verdict row of {rid} disagrees with the signed run record")
        return problems

    def event_problems(self, run_id: str) -> list[str]:
        """Review events that are not part of the signed chain (inserted, copied, altered: set
        aside, never deciding a status), and events missing from it (deleted or rolled back:
        the chain does not reach the head kept outside the database)."""
        with self._read() as conn:
            if conn.execute(select(_R.c.run_id).where(_R.c.run_id == run_id)).first() is None:
                raise NotFoundError(f"no run {run_id!r} in the store: `workbench runs` lists the stored runs")
            w = self._walk(conn, run_id, self.heads.read(run_id))
        if w.erased:  # an append may have moved the head between our two reads: look again, alone
            with self.heads.lock(run_id), self._read() as conn:
                w = self._walk(conn, run_id, self.heads.read(run_id))
        return w.problems

    def current_labels(self, run_id: str | None = None) -> dict[tuple[str, str], ReviewEvent]:
        """(run_id, requirement_id) → the event that set the current human label; a reset (or no
        event) means no human label, so the key is absent."""
        current: dict[tuple[str, str], ReviewEvent] = {}
        for ev in self.history(run_id):
            key = (ev.run_id, ev.requirement_id)
            if ev.label == "reset":
                current.pop(key, None)
            else:
                current[key] = ev
        return current

    def integrity_check(self) -> str:
        """'ok' when the database is sound (SQLite: PRAGMA integrity_check)."""
        if not is_sqlite(self.engine):
            with self._read() as conn:
                conn.execute(text("SELECT 1"))
            return "ok"
        with self.engine.connect() as conn:
            rows = conn.exec_driver_sql("PRAGMA integrity_check").scalars().all()
        return "\n".join(str(r) for r in rows)
