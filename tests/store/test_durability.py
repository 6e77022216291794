"""Reviews survive a process killed mid-write (SIGKILL) while others write at the same time."""

from __future__ import annotations

import pytest

from workbench.store.drill import run_drill


@pytest.mark.slow
def test_acknowledged_reviews_survive_a_writer_killed_mid_write(db_url):
    r = run_drill(db_url, writers=3, events=25, kill_after=8)
    assert r["victim_exit"] == -9  # it really was SIGKILLed, not finished
    assert r["victim_in_flight"] is not None  # ...after announcing a write it never acknowledged
    assert r["writer_exits"] == [0, 0, 0]
    assert r["acked"] == 3 * 25 + r["victim_acked"]
    assert (r["missing"], r["duplicated"], r["mismatched"]) == (0, 0, 0)
    # the write it was killed in either landed whole or not at all
    assert r["stored"] == r["acked"] + int(r["in_flight_landed"])
    assert r["integrity"] == "ok"
    assert r["previous_label_chain_ok"] and r["derived_labels_ok"]
    assert r["record_problems"] == []  # the head outside the database kept up, kill and all
