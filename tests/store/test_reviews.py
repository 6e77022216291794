from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from tests.store import factories as f
from workbench.config import Settings
from workbench.errors import NotFoundError
from workbench.models import ReviewEvent
from workbench.store import Store

DOC = "d" * 64


@pytest.fixture
def run_stored(store):
    store.save_run(f.run("r1", DOC, {"REQ-S001": True, "REQ-S002": False}))
    return store


def _ev(label: str, reviewer: str = "ann", rid: str = "REQ-S001", note: str = "") -> ReviewEvent:
    return ReviewEvent(run_id="r1", requirement_id=rid, label=label, reviewer=reviewer, note=note)


def test_review_records_the_label_it_replaced_and_the_verifier_verdict(run_stored):
    a = run_stored.add_review(_ev("unsupported", note="quote is out of context"))
    b = run_stored.add_review(_ev("supported", reviewer="bob"))
    c = run_stored.add_review(_ev("supported", rid="REQ-S002"))
    assert (a.previous_label, a.verifier_verdict) == (None, "supported")
    assert (b.previous_label, b.verifier_verdict) == ("unsupported", "supported")
    assert (c.previous_label, c.verifier_verdict) == (None, "unsupported")
    assert a.id < b.id < c.id
    assert [e.model_dump() for e in run_stored.history("r1")] == [e.model_dump() for e in (a, b, c)]
    assert [e.id for e in run_stored.history("r1", "REQ-S002")] == [c.id]


def test_reset_clears_the_current_label_and_history_keeps_everything(run_stored):
    run_stored.add_review(_ev("unsupported"))
    run_stored.add_review(_ev("reset", reviewer="bob"))
    assert ("r1", "REQ-S001") not in run_stored.current_labels("r1")
    after = run_stored.add_review(_ev("supported"))
    assert after.previous_label is None  # a reset leaves no human label to replace
    assert run_stored.current_labels("r1")[("r1", "REQ-S001")].label == "supported"
    assert [e.label for e in run_stored.history("r1")] == ["unsupported", "reset", "supported"]


def test_review_of_an_answer_sentence_takes_the_sentence_verdict(run_stored):
    ev = run_stored.add_review(_ev("unsupported", rid="SENT-1"))
    assert ev.verifier_verdict == "supported"


def test_review_of_an_unknown_run_is_not_found(run_stored):
    with pytest.raises(NotFoundError):
        run_stored.add_review(ReviewEvent(run_id="nope", requirement_id="REQ-S001", label="supported", reviewer="a"))


def test_review_events_cannot_be_updated_or_deleted(run_stored):
    run_stored.add_review(_ev("unsupported"))
    for sql in ("UPDATE review_events SET label = 'supported'", "DELETE FROM review_events"):
        with pytest.raises(DBAPIError, match="append-only"), run_stored.engine.begin() as conn:
            conn.execute(text(sql))
    assert [e.label for e in run_stored.history("r1")] == ["unsupported"]


def test_two_reviewers_at_once_both_land_and_the_later_is_current(run_stored):
    """Each reviewer has their own store (own engine, like two app processes); both write the
    same item at the same moment, many times over. Like every process on one database, they
    share the record key and the chain heads (one data folder)."""
    reviewers = {"ann": "supported", "bob": "unsupported"}
    stores = {name: Store(Settings(data_dir=run_stored.settings.data_dir), url=run_stored.url) for name in reviewers}
    barrier = threading.Barrier(2)
    got: dict[str, list[ReviewEvent]] = {name: [] for name in reviewers}

    def reviewer(name: str) -> None:
        for _ in range(10):
            barrier.wait()
            got[name].append(stores[name].add_review(_ev(reviewers[name], reviewer=name)))

    threads = [threading.Thread(target=reviewer, args=(n,)) for n in reviewers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in stores.values():
        s.dispose()

    history = run_stored.history("r1", "REQ-S001")
    assert len(history) == 20
    assert sorted(e.id for e in history) == sorted(e.id for evs in got.values() for e in evs)
    # every event saw exactly the label current before it: superseding is visible in history
    current = None
    for e in history:
        assert e.previous_label == current
        current = e.label
    last = history[-1]
    assert run_stored.current_labels("r1")[("r1", "REQ-S001")].id == last.id
    assert {name: len(evs) for name, evs in got.items()} == {"ann": 10, "bob": 10}
    # the earlier reviewer can see they were superseded: the next event by the other reviewer
    # names their label as the one it replaced
    handovers = [(a, b) for a, b in zip(history, history[1:], strict=False) if a.reviewer != b.reviewer]
    assert handovers
    assert all(b.previous_label == reviewers[a.reviewer] for a, b in handovers)


def test_one_store_shared_by_many_threads_keeps_every_review(run_stored):
    """The UI shares one Workbench (so one engine) between browser sessions."""

    def reviewer(i: int) -> list[int]:
        return [run_stored.add_review(_ev(("supported", "unsupported")[k % 2], reviewer=f"r{i}")).id
                for k in range(15)]

    with ThreadPoolExecutor(4) as pool:
        ids = [i for chunk in pool.map(reviewer, range(4)) for i in chunk]
    history = run_stored.history("r1")
    assert sorted(ids) == [e.id for e in history] and len(set(ids)) == 60
    assert all(b.previous_label == a.label for a, b in zip(history, history[1:], strict=False))
