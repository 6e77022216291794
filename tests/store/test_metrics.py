"""Agreement numbers checked by hand."""

from __future__ import annotations

import pytest

from tests.store import factories as f
from workbench.models import EvidenceStatus
from workbench.store.metrics import cohen_kappa, compute


def _status(i: int, verifier: str, human: str | None, reason: str | None = None) -> EvidenceStatus:
    ev = f.evidence(f"REQ-S{i:03d}", "d" * 64, f"text {i}")
    run = f.run("r", "d" * 64, {ev.requirement_id: verifier == "supported"})
    v = run.verifications[0].model_copy(update={"rejection_reason": reason if verifier == "unsupported" else None})
    return EvidenceStatus(run_id="r", evidence=ev, verification=v, verifier_verdict=verifier, human_label=human,
                          final_status=human or verifier)


def test_kappa_matches_a_hand_computed_table():
    # 20 items: both supported 9, verifier sup/human unsup 3, verifier unsup/human sup 2, both unsup 6
    pairs = ([("supported", "supported")] * 9 + [("supported", "unsupported")] * 3
             + [("unsupported", "supported")] * 2 + [("unsupported", "unsupported")] * 6)
    po = 15 / 20
    pe = (12 / 20) * (11 / 20) + (8 / 20) * (9 / 20)
    assert cohen_kappa(pairs) == pytest.approx(round((po - pe) / (1 - pe), 4))
    assert cohen_kappa(pairs) == pytest.approx(0.4898, abs=1e-4)  # (0.75 - 0.51) / 0.49


def test_kappa_is_undefined_without_items_or_with_one_class_only():
    assert cohen_kappa([]) is None
    assert cohen_kappa([("supported", "supported")] * 3) is None
    assert cohen_kappa([("supported", "unsupported"), ("unsupported", "supported")]) == -1.0


def test_metrics_count_only_reviewed_items_for_agreement():
    statuses = [
        _status(1, "supported", "supported"),
        _status(2, "supported", "unsupported"),
        _status(3, "unsupported", "supported", "requires_inference"),
        _status(4, "unsupported", "unsupported", "incomplete_quote"),
        _status(5, "unsupported", None, "requires_inference"),
        _status(6, "supported", None),
    ]
    m = compute(statuses, run_id="r")
    assert (m.total, m.reviewed, m.review_progress) == (6, 4, pytest.approx(0.6667))
    assert m.confusion == {"supported": {"supported": 1, "unsupported": 1},
                           "unsupported": {"supported": 1, "unsupported": 1}}
    assert (m.overrides, m.override_rate, m.agreement, m.cohen_kappa) == (2, 0.5, 0.5, 0.0)
    assert m.override_by_reason == {
        "verified": {"reviewed": 2, "overrides": 1, "rate": 0.5},
        "requires_inference": {"reviewed": 1, "overrides": 1, "rate": 1.0},
        "incomplete_quote": {"reviewed": 1, "overrides": 0, "rate": 0.0},
    }
    assert m.rejection_reasons == {"requires_inference": 2, "incomplete_quote": 1}
    assert (m.verified, m.pass_rate) == (3, 0.5)
    assert (m.final_supported, m.final_pass_rate) == (3, 0.5)  # items 1, 3, 6
    assert sum(m.score_histogram) == 6
