"""Agreement numbers checked by hand."""

from __future__ import annotations

import pytest

from tests.store import factories as f
from workbench.models import EvidenceStatus, label_status
from workbench.store.metrics import cohen_kappa, compute


def _status(i: int, verifier: str, human: str | None, reason: str | None = None) -> EvidenceStatus:
    ev = f.evidence(f"REQ-S{i:03d}", "d" * 64, f"text {i}")
    run = f.run("r", "d" * 64, {ev.requirement_id: verifier == "supported"})
    v = run.verifications[0].model_copy(update={"rejection_reason": reason if verifier == "unsupported" else None})
    return EvidenceStatus(run_id="r", evidence=ev, verification=v, verifier_verdict=verifier, human_label=human,
                          final_status=label_status(human) if human else verifier)


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


def test_a_contradicted_label_agrees_with_a_verifier_that_rejected_and_overrides_one_that_passed():
    statuses = [_status(1, "unsupported", "contradicted", "requires_inference"), _status(2, "supported", "contradicted"),
                _status(3, "supported", "supported"), _status(4, "unsupported", "unsupported", "requires_inference")]
    m = compute(statuses, run_id="r")
    assert m.confusion == {"supported": {"supported": 1, "unsupported": 1},
                           "unsupported": {"supported": 0, "unsupported": 2}}
    assert (m.overrides, m.agreement_labels, m.final_supported) == (1, 4, 1)
    assert m.override_by_reason["requires_inference"] == {"reviewed": 2, "overrides": 0, "rate": 0.0}


def test_reviewer_added_evidence_is_no_verifier_disagreement_and_every_agreement_says_its_labels():
    added = _status(7, "unsupported", "supported").model_copy(update={"human_added": True})
    statuses = [_status(1, "supported", "supported"), _status(2, "unsupported", "unsupported"), added]
    m = compute(statuses, run_id="r")
    assert (m.reviewed, m.reviewer_added, m.agreement_labels) == (3, 1, 2)
    assert (m.overrides, m.agreement) == (0, 1.0)  # the added item overrode nothing
    assert m.confusion["unsupported"]["supported"] == 0


def test_the_overall_metrics_count_checked_drafts_apart_from_runs(tmp_path, monkeypatch):
    from tests.store.factories import run
    from workbench.config import get_settings
    from workbench.service import Workbench

    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "ws"))
    get_settings.cache_clear()
    try:
        wb = Workbench(get_settings())
        question = run("r-question", "d" * 64, {"REQ-S001": True})
        draft = run("r-draft", "d" * 64, {"REQ-S002": False}).model_copy(update={"kind": "draft"})
        for r in (question, draft):
            wb.store.save_run(r)
        m = wb.metrics()
        assert (m.runs, m.drafts, m.total) == (1, 1, 1)
        assert [p.run_id for p in m.per_run] == ["r-question"]
    finally:
        get_settings.cache_clear()
