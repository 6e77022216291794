from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.store import factories as f
from workbench.errors import NotFoundError

DOC = "d" * 64


def test_run_comes_back_equal_with_spans_and_verdicts(store):
    run = f.run("r1", DOC, {"REQ-S001": True, "REQ-S002": False})
    store.save_run(run)
    back = store.get_run("r1")
    assert back == run
    assert back.evidence[0].span.rects == [(1, 72.0, 72.0, 300.0, 84.0)]
    assert back.verification_for("REQ-S002").rejection_reason == "requires_inference"


def test_runs_are_listed_newest_first(store):
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    for i, rid in enumerate(["old", "newest", "middle"]):
        offset = {"old": 0, "newest": 2, "middle": 1}[rid]
        store.save_run(f.run(rid, DOC, {f"REQ-S00{i + 1}": True}, created_at=t0 + timedelta(hours=offset)))
    assert [r.run_id for r in store.list_runs()] == ["newest", "middle", "old"]


def test_saving_a_run_again_replaces_it(store):
    store.save_run(f.run("r1", DOC, {"REQ-S001": True}, question="first?"))
    store.save_run(f.run("r1", DOC, {"REQ-S001": True, "REQ-S002": True}, question="second?"))
    runs = store.list_runs()
    assert [(r.run_id, r.question, len(r.evidence)) for r in runs] == [("r1", "second?", 2)]


def test_unknown_run_is_not_found(store):
    with pytest.raises(NotFoundError, match="workbench runs"):
        store.get_run("missing")
    assert not store.has_run("missing")
