"""The review record against those who can write the database without the record key (issue 37,
item 2), on SQLite and on PostgreSQL deployed as docs/security/record.md says: the tables belong
to an owner role, the app connects as a role that may only SELECT and INSERT review events.

Each attack acts with exactly what that party holds: the app role's connection (insert rights),
or the table owner's (who may switch its triggers off). Whatever they write, a forged event never
decides a final status, and every forgery or erasure is a record problem in `history`, the run as
`show` and the Review page read it, and stops every export."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from tests.store.dbs import IN_CI, PG_BASE
from tests.test_service_store import PAGES, make_run
from workbench.config import Settings
from workbench.errors import HashMismatchError
from workbench.models import Run
from workbench.service import Workbench
from workbench.store import Store


@dataclass
class Deployment:
    wb: Workbench  # the app, connected as the app role
    run: Run
    app_sql: Callable[..., None]  # one statement with the app role's rights (insert only on events)
    owner_sql: Callable[..., None]  # one statement as the tables' owner
    dialect: str

    def events(self) -> list[dict]:
        with self.wb.store.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.exec_driver_sql(
                "SELECT * FROM review_events ORDER BY id")]


# --- the deployments --------------------------------------------------------------------------
# What docs/security/record.md grants the app role: everything it needs on the other tables, only
# SELECT and INSERT on review_events, and the sequence that numbers them.
APP_GRANTS = [
    "GRANT USAGE ON SCHEMA {schema} TO {app}",
    "GRANT SELECT ON alembic_version TO {app}",
    "GRANT SELECT, INSERT, UPDATE, DELETE ON documents, evidence_ids, runs, run_evidence, users TO {app}",
    "GRANT SELECT, INSERT ON review_events TO {app}",
    "GRANT USAGE ON SEQUENCE review_events_id_seq TO {app}",
    "GRANT SELECT, INSERT ON security_events, workspace_flags TO {app}",
    "GRANT USAGE ON SEQUENCE security_events_id_seq TO {app}",
    "GRANT SELECT, INSERT, UPDATE ON review_tables TO {app}",
    "GRANT SELECT, INSERT ON table_cells TO {app}",
    "GRANT USAGE ON SEQUENCE table_cells_id_seq TO {app}",
]


def _role_url(role: str, schema: str) -> str:
    url = make_url(PG_BASE.replace("postgresql://", "postgresql+psycopg://", 1)).set(username=role, password=None)
    return f"{url.render_as_string(hide_password=False)}?options=-csearch_path%3D{schema}"


@pytest.fixture
def pg_roles() -> Iterator[tuple[str, str]]:
    """An owner role with a schema of its own and an app role; both dropped afterwards."""
    try:
        import psycopg

        su = psycopg.connect(PG_BASE, connect_timeout=3, autocommit=True)
    except Exception as exc:  # noqa: BLE001 - any connection failure means "no server here"
        msg = f"PostgreSQL at {PG_BASE} is unreachable ({type(exc).__name__}): role tests skipped"
        if IN_CI:
            pytest.fail(msg.replace("skipped", "must run under CI=true"))
        pytest.skip(msg)
    tag = uuid.uuid4().hex[:10]
    owner, app, schema = f"wb_owner_{tag}", f"wb_app_{tag}", f"wb_rec_{tag}"
    su.execute(f"CREATE ROLE {owner} LOGIN")
    su.execute(f"CREATE ROLE {app} LOGIN")
    su.execute(f"CREATE SCHEMA {schema} AUTHORIZATION {owner}")
    try:
        yield owner, app, schema
    finally:
        su.execute(f"DROP SCHEMA {schema} CASCADE")
        for role in (app, owner):
            su.execute(f"DROP OWNED BY {role}")
            su.execute(f"DROP ROLE {role}")
        su.close()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def deployment(request: pytest.FixtureRequest, tmp_path: Path, make_pdf, monkeypatch) -> Iterator[Deployment]:
    data = tmp_path / "data"
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(data))
    if request.param == "sqlite":
        path = tmp_path / "store.sqlite3"
        app_url = f"sqlite:///{path}"

        def app_sql(sql: str, **params) -> None:
            conn = sqlite3.connect(path)
            with conn:
                conn.execute(sql, params)
            conn.close()

        def owner_sql(sql: str, **params) -> None:
            """SQLite has no roles: whoever can write the file can drop its triggers."""
            conn = sqlite3.connect(path)
            with conn:
                ddl = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
                for name, _ in ddl:
                    conn.execute(f"DROP TRIGGER {name}")
                conn.execute(sql, params)
                for _, create in ddl:
                    conn.execute(create)
            conn.close()
    else:
        import psycopg

        owner, app, schema = request.getfixturevalue("pg_roles")
        owner_url, app_url = _role_url(owner, schema), _role_url(app, schema)
        migrator = Store(Settings(data_dir=data, database_url=owner_url))
        migrator.list_runs()  # the owner creates the tables (alembic upgrade head)
        migrator.dispose()

        def _as(role: str) -> Callable[..., None]:
            def run_sql(sql: str, **params) -> None:
                with psycopg.connect(PG_BASE, user=role, autocommit=True, options=f"-csearch_path={schema}") as conn:
                    conn.execute(_pyformat(sql), params)
            return run_sql

        for grant in APP_GRANTS:
            _as(owner)(grant.format(schema=schema, app=app))
        app_sql, owner_sql = _as(app), _as(owner)
    wb = Workbench(Settings(data_dir=data, database_url=app_url))
    run = make_run(wb, make_pdf(PAGES, name="ops.pdf"))
    yield Deployment(wb=wb, run=run, app_sql=app_sql, owner_sql=owner_sql, dialect=request.param)
    wb.store.dispose()


def _pyformat(sql: str) -> str:
    """`:name` parameters (as sqlite3 takes them) in psycopg's `%(name)s` form."""
    import re

    return re.sub(r"(?<![:\w]):(\w+)", r"%(\1)s", sql)


# --- what the attacks insert --------------------------------------------------------------------
COLUMNS = "run_id, requirement_id, label, reviewer, note, timestamp, previous_label, verifier_verdict, kind, chain_hash"
FORGED = ("INSERT INTO review_events (id, run_id, requirement_id, label, reviewer, note, timestamp, kind, chain_hash) "
          "VALUES (:id, :run, :rid, 'unsupported', 'Ada Admin', 'forged', '2026-01-01 00:00:00', "
          "'adjudication', :chain)")


def _copy(d: Deployment, event: dict, new_id: int | None = None, **changes) -> None:
    """Insert a copy of a stored event (with its chain hash), at another id, maybe changed."""
    row = {**event, **changes}
    cols = COLUMNS.split(", ")
    values = {c: row[c] for c in cols}
    if new_id is not None:
        values["id"] = new_id
    names = ", ".join(values)
    d.app_sql(f"INSERT INTO review_events ({names}) VALUES ({', '.join(':' + c for c in values)})", **values)


def _status(d: Deployment, rid: str):
    return d.wb.reviewed(d.run.run_id).status_for(rid)


def _assert_reported(d: Deployment, *, forged_by: str | None = "Ada Admin") -> list[str]:
    """The record problem shows wherever the record is read, and no export goes out."""
    w, run_id = d.wb, d.run.run_id
    problems = w.record_problems(run_id)
    assert problems, "no record problem reported"
    assert w.reviewed(run_id).record_problems == problems  # the Review page's and `show`'s source
    assert w.audit_trail(run_id)["record_problems"] == problems  # `show`
    if forged_by:
        assert all(ev.reviewer != forged_by for ev in w.history(run_id))  # `history` lists the record
        assert all(s.reviewer != forged_by for s in w.reviewed(run_id).statuses)
    for fmt in ("csv", "json"):
        with pytest.raises(HashMismatchError, match="review record"):
            w.export([run_id], fmt, force=True, reason="r", by="b")
    return problems


@pytest.fixture
def reviewed(deployment: Deployment) -> Deployment:
    """ann, then bob labelled the first item (bob's word stands); the second item is verified
    and unreviewed: a forger's target."""
    w, run_id = deployment.wb, deployment.run.run_id
    first = deployment.run.evidence[0].requirement_id
    w.review(run_id, first, "unsupported", "ann")
    w.review(run_id, first, "supported", "bob")
    assert w.store.record_problems(run_id) == []
    return deployment


# --- the app role: insert rights only -----------------------------------------------------------
@pytest.mark.parametrize("where", ["first", "last"])
def test_an_event_inserted_without_a_chain_hash_decides_nothing_and_is_reported(reviewed: Deployment, where):
    d, rid = reviewed, reviewed.run.evidence[1].requirement_id
    assert _status(d, rid).final_status == "supported"
    new_id = -1 if where == "first" else max(e["id"] for e in d.events()) + 1
    d.app_sql(FORGED, id=new_id, run=d.run.run_id, rid=rid, chain=None)
    st = _status(d, rid)
    assert (st.final_status, st.human_label, st.reviewer) == ("supported", None, None)
    problems = _assert_reported(d)
    assert any(str(new_id) in p and "Ada Admin" in p for p in problems), problems


@pytest.mark.parametrize("where", ["first", "last"])
def test_an_event_carrying_a_copied_chain_hash_decides_nothing_and_is_reported(reviewed: Deployment, where):
    d, rid = reviewed, reviewed.run.evidence[1].requirement_id
    events = d.events()
    stolen = events[0 if where == "first" else -1]["chain_hash"]
    new_id = -1 if where == "first" else events[-1]["id"] + 1
    d.app_sql(FORGED, id=new_id, run=d.run.run_id, rid=rid, chain=stolen)
    st = _status(d, rid)
    assert (st.final_status, st.human_label) == ("supported", None)
    _assert_reported(d)


def test_genuine_events_replayed_in_another_order_change_nothing_and_are_reported(reviewed: Deployment):
    """ann said unsupported, then bob supported: replaying bob's then ann's event would make ann
    the last word."""
    d, rid = reviewed, reviewed.run.evidence[0].requirement_id
    ann, bob = d.events()
    top = bob["id"]
    _copy(d, bob, top + 1)
    _copy(d, ann, top + 2)
    st = _status(d, rid)
    assert (st.final_status, st.human_label, st.reviewer) == ("supported", "supported", "bob")
    problems = _assert_reported(d, forged_by=None)
    assert len(d.wb.history(d.run.run_id)) == 2
    assert any(str(top + 1) in p for p in problems) and any(str(top + 2) in p for p in problems), problems


def test_a_genuine_event_moved_before_the_others_with_its_label_changed_is_reported(reviewed: Deployment):
    d, rid = reviewed, reviewed.run.evidence[0].requirement_id
    ann, _ = d.events()
    _copy(d, ann, -1, label="supported", reviewer="Ada Admin")
    assert _status(d, rid).reviewer == "bob"
    _assert_reported(d)


# --- the table owner: triggers off, events gone -------------------------------------------------
ERASURES = {
    "every event of the run": "DELETE FROM review_events WHERE run_id = :run",
    "the last event": "DELETE FROM review_events WHERE id = (SELECT max(id) FROM review_events)",
    "the first event": "DELETE FROM review_events WHERE id = (SELECT min(id) FROM review_events)",
}


@pytest.mark.parametrize("what", list(ERASURES))
def test_events_deleted_by_the_table_owner_are_reported(reviewed: Deployment, what):
    d = reviewed
    if d.dialect == "postgresql":  # what `createdb -O workbench` lets the owner do
        d.owner_sql("ALTER TABLE review_events DISABLE TRIGGER USER")
        d.owner_sql(ERASURES[what], run=d.run.run_id)
        d.owner_sql("ALTER TABLE review_events ENABLE TRIGGER USER")
    else:
        d.owner_sql(ERASURES[what], run=d.run.run_id)
    assert len(d.events()) < 2
    _assert_reported(d, forged_by=None)


def test_review_events_truncated_by_the_table_owner_are_reported(reviewed: Deployment):
    d = reviewed
    if d.dialect == "postgresql":
        d.owner_sql("ALTER TABLE review_events DISABLE TRIGGER USER")
        d.owner_sql("TRUNCATE review_events")
        d.owner_sql("ALTER TABLE review_events ENABLE TRIGGER USER")
    else:
        d.owner_sql("DELETE FROM review_events")
    assert d.events() == []
    _assert_reported(d, forged_by=None)


def test_an_event_rewritten_by_the_table_owner_is_set_aside_and_reported(reviewed: Deployment):
    d, rid = reviewed, reviewed.run.evidence[0].requirement_id
    if d.dialect == "postgresql":
        d.owner_sql("ALTER TABLE review_events DISABLE TRIGGER USER")
    d.owner_sql("UPDATE review_events SET reviewer = 'Ada Admin', kind = 'adjudication', label = 'unsupported' "
                "WHERE id = (SELECT max(id) FROM review_events)")
    if d.dialect == "postgresql":
        d.owner_sql("ALTER TABLE review_events ENABLE TRIGGER USER")
    assert _status(d, rid).reviewer != "Ada Admin"
    _assert_reported(d)


def test_the_app_role_may_not_change_or_remove_events(reviewed: Deployment):
    """What the grants themselves refuse (PostgreSQL), besides the triggers."""
    if reviewed.dialect != "postgresql":
        pytest.skip("SQLite has no roles: its triggers refuse (tests/store/test_integrity.py)")
    import psycopg

    for sql in ("UPDATE review_events SET label = 'supported'", "DELETE FROM review_events",
                "TRUNCATE review_events", "ALTER TABLE review_events DISABLE TRIGGER USER"):
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            reviewed.app_sql(sql)


# --- records stored before chain heads ----------------------------------------------------------
def test_a_record_stored_before_chain_heads_opens_and_exports_unchanged(tmp_path: Path, make_pdf, db_url: str):
    """A data folder from before this change has no chain heads, and reviews recorded before
    migration 0004 have no chain hash: the record is taken as it stands when first opened, then
    guarded like any other. Export bytes, IDs and hashes are unchanged."""
    import hashlib
    import shutil

    from sqlalchemy import select, text

    from workbench.store.tables import ReviewEventRow

    data = tmp_path / "data"
    w = Workbench(Settings(data_dir=data, database_url=db_url))
    run = make_run(w, make_pdf(PAGES, name="ops.pdf"))
    rid = run.evidence[0].requirement_id
    w.review(run.run_id, rid, "unsupported", "ann")
    w.review(run.run_id, rid, "supported", "bob")
    before = {fmt: hashlib.sha256(w.export([run.run_id], fmt).data).hexdigest() for fmt in ("csv", "jsonl", "webannotation")}
    # As migration 0003 left ann's label (no chain hash) and 0004's code chained bob's after it.
    with w.store.engine.connect() as conn:
        ev = ReviewEventRow.__table__
        bob = dict(conn.execute(select(ev).order_by(ev.c.id.desc()).limit(1)).mappings().one())
    bob_chain = w.store._chain(None, bob)
    with w.store.engine.begin() as conn:
        if w.store.engine.dialect.name == "postgresql":
            conn.execute(text("SET LOCAL session_replication_role = replica"))
        else:
            conn.execute(text("DROP TRIGGER review_events_no_update"))
        conn.execute(text("UPDATE review_events SET chain_hash = NULL WHERE id < :b"), {"b": bob["id"]})
        conn.execute(text("UPDATE review_events SET chain_hash = :h WHERE id = :b"), {"h": bob_chain, "b": bob["id"]})
    w.store.dispose()
    shutil.rmtree(data / "record-heads", ignore_errors=True)  # the data folder before chain heads

    again = Workbench(Settings(data_dir=data, database_url=db_url))
    try:
        assert again.store.record_problems(run.run_id) == []
        assert [(e.reviewer, e.label) for e in again.history(run.run_id)] == [("ann", "unsupported"), ("bob", "supported")]
        after = {fmt: hashlib.sha256(again.export([run.run_id], fmt).data).hexdigest() for fmt in ("csv", "jsonl", "webannotation")}
        assert after == before
        again.review(run.run_id, rid, "reset", "cy")  # and it keeps going, guarded
        assert again.store.record_problems(run.run_id) == []
    finally:
        again.store.dispose()


def test_show_and_history_on_the_command_line_name_the_forgery(reviewed: Deployment, monkeypatch, capsys):
    from workbench.cli import main
    from workbench.config import get_settings

    d, rid = reviewed, reviewed.run.evidence[1].requirement_id
    d.app_sql(FORGED, id=-1, run=d.run.run_id, rid=rid, chain=None)
    monkeypatch.setenv("WORKBENCH_DATABASE_URL", d.wb.settings.database_url)
    get_settings.cache_clear()
    try:
        assert main(["show", d.run.run_id]) == 0
        out = capsys.readouterr().out
        assert "RECORD PROBLEM: review event -1 (unsupported of " in out and "Ada Admin" in out
        assert main(["history", d.run.run_id]) == 0
        got = capsys.readouterr()
        assert "RECORD PROBLEM: review event -1" in got.err and "Ada Admin" not in got.out
    finally:
        get_settings.cache_clear()


def test_a_chain_head_edited_or_removed_in_the_data_folder_is_reported(reviewed: Deployment):
    d = reviewed
    head = d.wb.store.heads.path(d.run.run_id)
    head.write_text(head.read_text().replace('"events":2', '"events":1'))
    assert any("not signed with the record key" in p for p in d.wb.record_problems(d.run.run_id))
    head.unlink()
    assert any("no signed chain head" in p for p in d.wb.record_problems(d.run.run_id))
