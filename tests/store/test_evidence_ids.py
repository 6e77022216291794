from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from workbench.config import Settings
from workbench.store import Store

DOC = "d" * 64


def test_same_span_keeps_its_id_across_calls_and_store_instances(store, tmp_path):
    first = store.assign_evidence_id(DOC, 10, 50, "statute")
    again = Store(Settings(data_dir=tmp_path / "other"), url=store.url)
    try:
        assert again.assign_evidence_id(DOC, 10, 50, "statute") == first == "REQ-S001"
        # the span, not the source type asked for, owns the ID
        assert again.assign_evidence_id(DOC, 10, 50, "policy") == first
    finally:
        again.dispose()


def test_new_spans_continue_the_sequence_of_their_prefix(store):
    ids = [store.assign_evidence_id(DOC, s, s + 5, t) for s, t in
           [(0, "statute"), (10, "statute"), (20, "policy"), (30, "statute"), (40, "contract"), (50, "paper")]]
    assert ids == ["REQ-S001", "REQ-S002", "REQ-P001", "REQ-S003", "REQ-C001", "REQ-R001"]
    assert store.evidence_id_for(DOC, 20, 25) == "REQ-P001"
    assert store.evidence_id_for(DOC, 20, 26) is None


def test_batch_assignment_matches_single_assignment(store):
    store.assign_evidence_id(DOC, 0, 5, "statute")
    got = store.assign_evidence_ids([(DOC, 5, 9, "statute"), (DOC, 0, 5, "statute"), ("e" * 64, 0, 5, "other")])
    assert got == ["REQ-S002", "REQ-S001", "REQ-O001"]


def test_concurrent_writers_get_unique_ids_and_agree_on_shared_spans(store, tmp_path):
    """Four store instances (own engines, like four processes) name overlapping spans at once."""
    spans = [(DOC, i * 10, i * 10 + 8, "statute") for i in range(12)]
    stores = [Store(Settings(data_dir=tmp_path / f"w{i}"), url=store.url) for i in range(4)]

    def work(k: int) -> dict[tuple, str]:
        order = spans[k:] + spans[:k]  # each writer starts somewhere else
        return {s: stores[k].assign_evidence_id(*s) for s in order}

    try:
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(work, range(4)))
    finally:
        for s in stores:
            s.dispose()
    for r in results[1:]:
        assert r == results[0]
    assert sorted(results[0].values()) == [f"REQ-S{n:03d}" for n in range(1, 13)]
