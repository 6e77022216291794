"""The verifier learns from reviewers (workbench.calibration): a threshold refitted on human
labels, measured on labels it was not fitted to, applied only when it helps, revertible."""

from __future__ import annotations

import random

from tests.store.dbs import db_url, pg_schema_url  # noqa: F401 - fixtures
from tests.test_service_store import PAGES, wb  # noqa: F401 - fixture
from workbench import cli
from workbench.calibration import Calibration, balanced_accuracy, calibrate, cohen_kappa, fit_threshold
from workbench.models import Answer, Evidence, Run, Verification


def _world(n=120, verifier_cut=0.7, truth_cut=0.4, noise=0.05, seed=1):
    rnd = random.Random(seed)
    scores = [round(rnd.random(), 3) for _ in range(n)]
    truth = [(s >= truth_cut) != (rnd.random() < noise) for s in scores]
    return scores, [s >= verifier_cut for s in scores], truth, [f"run-{i // 6}" for i in range(n)]


def test_agreement_measures():
    assert cohen_kappa([True, False, True, False], [True, False, True, False]) == 1.0
    assert cohen_kappa([True, True, False, False], [True, False, True, False]) == 0.0
    assert balanced_accuracy([True, True, False, False], [True, True, True, True]) == 0.5
    assert balanced_accuracy([True, True], [True, False]) is None  # one class: undefined


def test_fit_threshold_finds_where_the_humans_draw_the_line():
    scores, _, truth, _ = _world(noise=0.0)
    assert 0.35 <= fit_threshold(scores, truth) <= 0.45


def test_a_verifier_that_is_too_strict_is_recalibrated_and_the_gain_is_held_out():
    scores, verifier, truth, groups = _world()
    cal = calibrate(scores, verifier, truth, groups, cal_id="cal-1")
    assert cal.applied and cal.kappa_after > cal.kappa_before + 0.2 and cal.folds == 5
    assert cal.balanced_accuracy_after > cal.balanced_accuracy_before
    assert 0.3 <= cal.threshold <= 0.5


def test_a_verifier_the_humans_agree_with_is_left_alone():
    scores, verifier, truth, groups = _world(verifier_cut=0.4)
    cal = calibrate(scores, verifier, truth, groups, cal_id="cal-1")
    assert not cal.applied and "not applied" in cal.reason


def test_too_few_labels_are_reported_never_applied():
    scores, verifier, truth, groups = _world(n=12)
    cal = calibrate(scores, verifier, truth, groups, cal_id="cal-1")
    assert not cal.applied and cal.threshold is None and "too few labels" in cal.reason


def test_decide_leaves_structural_rejections_alone():
    cal = Calibration(id="c", threshold=0.3, applied=True)
    flipped = cal.decide(Verification(requirement_id="R", verified=False, score=0.5,
                                      rejection_reason="incomplete_quote"))
    assert flipped.verified and flipped.rejection_reason is None and "threshold 0.30" in flipped.verification_rationale
    missing = Verification(requirement_id="R", verified=False, score=0.9, rejection_reason="quote_not_found")
    assert cal.decide(missing) == missing


def _labelled_runs(wb, scores_truth):  # noqa: F811
    for r in range(len(scores_truth) // 6):
        evs, vs = [], []
        for j, (score, _) in enumerate(scores_truth[r * 6:(r + 1) * 6]):
            rid = f"REQ-C{r:02d}{j}"
            evs.append(Evidence(requirement_id=rid, document_id="d" * 64, exact_quote=f"q{r}{j}", chunk_id="c"))
            vs.append(Verification(requirement_id=rid, verified=score >= 0.7, score=score,
                                   rejection_reason=None if score >= 0.7 else "does_not_address_question"))
        wb.store.save_run(Run(run_id=f"run-{r}", question="q?", document_ids=["d" * 64], evidence=evs,
                              verifications=vs, answer=Answer()))
        for j, (_, human) in enumerate(scores_truth[r * 6:(r + 1) * 6]):
            wb.review(f"run-{r}", f"REQ-C{r:02d}{j}", "supported" if human else "unsupported", "ann")


def test_calibrate_applies_records_and_reverts_through_the_cli(wb, make_pdf, capsys):  # noqa: F811
    scores, _, truth, _ = _world(n=60)
    _labelled_runs(wb, list(zip(scores, truth, strict=True)))
    assert cli.main(["calibrate"]) == 0
    out = capsys.readouterr().out
    assert "held-out kappa" in out and "applied to new runs" in out
    cal = wb.calibration()
    assert cal is not None and cal.applied and cal.labels == 60
    doc = wb.ingest(make_pdf(PAGES), source_type="statute")
    (run,) = wb.ask(["What must the operator keep?"], [doc.id])
    assert run.settings["calibration"]["id"] == cal.id  # the calibration in force is recorded per run
    assert cli.main(["calibrate", "--revert"]) == 0
    assert wb.calibration() is None and "verifier as shipped" in capsys.readouterr().out
    (run,) = wb.ask(["What must the operator keep?"], [doc.id])
    assert run.settings["calibration"] is None
    assert cli.main(["calibrate", "--revert"]) == 2  # nothing left to revert
