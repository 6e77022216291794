"""Records cannot be rewritten unseen (issue 10), on SQLite and PostgreSQL: the database refuses
INSERT OR REPLACE / upsert / TRUNCATE of review events; a run record edited in the database (a
quote, a verdict) or a review history altered behind the triggers' back is flagged on load, never
shown verified, and stops the export."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from tests.store import factories as f
from tests.test_service_store import PAGES, make_run, wb  # noqa: F401 - the wb fixture (SQLite and PostgreSQL)
from workbench.errors import HashMismatchError
from workbench.models import ReviewEvent

DOC = "d" * 64


@pytest.fixture
def run_stored(store):
    store.save_run(f.run("r1", DOC, {"REQ-S001": True, "REQ-S002": False}))
    for label in ("unsupported", "supported", "reset"):
        store.add_review(ReviewEvent(run_id="r1", requirement_id="REQ-S001", label=label, reviewer="ann"))
    return store


def _sql(store, sql: str, **params) -> None:
    with store.engine.begin() as conn:
        conn.execute(text(sql), params)


def _without_triggers(store, sql: str) -> None:
    """What someone with the database's owner or superuser rights can still do."""
    with store.engine.begin() as conn:
        if store.engine.dialect.name == "postgresql":
            conn.execute(text("SET LOCAL session_replication_role = replica"))
            conn.execute(text(sql))
        else:
            names = conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'trigger'")).scalars().all()
            ddl = conn.execute(text("SELECT sql FROM sqlite_master WHERE type = 'trigger'")).scalars().all()
            for n in names:
                conn.execute(text(f"DROP TRIGGER {n}"))
            conn.execute(text(sql))
            for d in ddl:
                conn.execute(text(d))


def test_replace_and_upsert_of_a_review_event_are_refused(run_stored):
    if run_stored.engine.dialect.name == "sqlite":
        attacks = ["INSERT OR REPLACE INTO review_events (id, run_id, requirement_id, label, reviewer, note, timestamp) "
                   "VALUES (1, 'r1', 'REQ-S001', 'supported', 'mallory', '', '2026-01-01 00:00:00')",
                   "REPLACE INTO review_events (id, run_id, requirement_id, label, reviewer, note, timestamp) "
                   "VALUES (1, 'r1', 'REQ-S001', 'supported', 'mallory', '', '2026-01-01 00:00:00')"]
    else:
        attacks = []
    attacks.append("INSERT INTO review_events (id, run_id, requirement_id, label, reviewer, note, timestamp) "
                   "VALUES (1, 'r1', 'REQ-S001', 'supported', 'mallory', '', '2026-01-01 00:00:00') "
                   "ON CONFLICT (id) DO UPDATE SET label = excluded.label, reviewer = excluded.reviewer")
    for sql in attacks:
        with pytest.raises(DBAPIError, match="append-only"):
            _sql(run_stored, sql)
    first = run_stored.history("r1")[0]
    assert (first.id, first.label, first.reviewer) == (1, "unsupported", "ann")
    assert len(run_stored.history("r1")) == 3


@pytest.mark.postgres
def test_truncate_of_review_events_is_refused_on_postgresql(run_stored):
    if run_stored.engine.dialect.name != "postgresql":
        pytest.skip("TRUNCATE is PostgreSQL's")
    for sql in ("TRUNCATE review_events", "TRUNCATE runs CASCADE"):
        with pytest.raises(DBAPIError, match="append-only"):
            _sql(run_stored, sql)
    assert len(run_stored.history("r1")) == 3


def test_an_untouched_record_has_no_problems(run_stored):
    assert run_stored.record_problems("r1") == []


def test_an_edited_run_record_breaks_its_signature(run_stored):
    _sql(run_stored, "UPDATE runs SET payload = replace(payload, :a, :b)", a='"verified":false', b='"verified":true')
    assert any("signature" in p for p in run_stored.record_problems("r1"))


def test_a_verdict_row_that_disagrees_with_the_record_is_found(run_stored):
    _sql(run_stored, "UPDATE run_evidence SET verified = :t WHERE requirement_id = 'REQ-S002'", t=True)
    assert any("REQ-S002" in p for p in run_stored.record_problems("r1"))


@pytest.mark.parametrize("attack", [
    "UPDATE review_events SET label = 'supported' WHERE id = 1",
    "UPDATE review_events SET reviewer = 'mallory' WHERE id = 2",
    "DELETE FROM review_events WHERE id = 2",
])
def test_review_history_changed_behind_the_triggers_back_breaks_the_chain(run_stored, attack):
    _without_triggers(run_stored, attack)
    assert any("review event" in p for p in run_stored.record_problems("r1"))


def test_an_event_appended_without_the_key_breaks_the_chain(run_stored):
    _sql(run_stored, "INSERT INTO review_events (run_id, requirement_id, label, reviewer, note, timestamp, chain_hash) "
                     "VALUES ('r1', 'REQ-S002', 'supported', 'mallory', '', '2026-01-01 00:00:00', :h)", h="0" * 64)
    _sql(run_stored, "INSERT INTO review_events (run_id, requirement_id, label, reviewer, note, timestamp) "
                     "VALUES ('r1', 'REQ-S002', 'supported', 'mallory', '', '2026-01-01 00:00:00')")
    problems = run_stored.record_problems("r1")
    assert len(problems) == 2, problems


# --- through the service: flagged on load, never verified, export stopped --------------------
@pytest.fixture
def stored(wb, make_pdf):  # noqa: F811 - the imported fixture
    run = make_run(wb, make_pdf(PAGES, name="ops.pdf"))
    return wb, run


def _assert_flagged(w, run, tmp_path: Path):
    statuses = w.evidence_status(run.run_id)
    assert statuses and all(not s.hash_ok and s.final_status == "unsupported" for s in statuses)
    assert all(not v.verified and v.rejection_reason == "hash_mismatch" for v in w.run(run.run_id).verifications)
    for fmt in ("csv", "json"):
        with pytest.raises(HashMismatchError):
            w.export([run.run_id], fmt, force=True, reason="r", by="b")


def test_an_edited_quote_in_the_database_is_flagged_and_stops_the_export(stored, tmp_path):
    w, run = stored
    quote = run.evidence[0].exact_quote
    assert w.export([run.run_id], "csv").hashes_checked == 3
    _sql(w.store, "UPDATE runs SET payload = replace(payload, :q, :e)", q=quote.replace('"', '\\"'),
         e="The operator may skip inspections.")
    assert w.store.get_run(run.run_id).evidence[0].exact_quote != quote
    _assert_flagged(w, run, tmp_path)


def test_a_rejected_verdict_flipped_to_verified_in_the_database_is_never_shown_verified(stored, tmp_path):
    w, run = stored
    rejected = run.evidence[2].requirement_id
    assert w.run(run.run_id).verification_for(rejected).verified is False
    _sql(w.store, "UPDATE runs SET payload = replace(payload, :a, :b)", a='"verified":false', b='"verified":true')
    _sql(w.store, "UPDATE run_evidence SET verified = :t", t=True)
    assert w.store.get_run(run.run_id).verification_for(rejected).verified is True  # the edit landed
    _assert_flagged(w, run, tmp_path)


def test_an_edited_quote_is_caught_without_the_signature_too(stored):
    """The re-derivable check: a quote must be its span's text, whatever the signature says."""
    w, run = stored
    edited = run.model_copy(deep=True)
    edited.evidence[0].exact_quote = "The operator may skip inspections."
    w.store.save_run(edited)  # signed by the app itself: only the quote/span check can see it
    st = next(s for s in w.evidence_status(run.run_id) if s.evidence.requirement_id == edited.evidence[0].requirement_id)
    assert not st.hash_ok and st.final_status == "unsupported"
