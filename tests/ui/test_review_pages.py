"""AppTest specifications for two reviewers on the Review page and the Dashboard: a
disagreement shows both labels, an adjudicator's decision settles it, the grid orders by
disagreement, and the Dashboard reports reviewer agreement and calibrates the verifier."""

from __future__ import annotations

from tests.ui.test_pages import app, on_page, texts


def test_a_disagreement_shows_both_and_an_adjudication_settles_it(workspace):
    wb, doc, run = workspace
    ev = run.evidence[1].requirement_id
    wb.review(run.run_id, ev, "supported", "Ann")
    wb.review(run.run_id, ev, "unsupported", "Bob")
    assert [s.evidence.requirement_id for s in wb.review_queue(run.run_id, "disagreement")][0] == ev
    at = on_page(app(run=run.run_id, evidence=ev), "review", reviewer="Cy")
    assert any("Reviewers disagree" in w.value and "Ann: supported" in w.value and "Bob: unsupported" in w.value
               for w in at.warning)
    assert "1 open conflict" in texts(at)
    next(b for b in at.button if b.label == "Adjudicate: Unsupported").click().run()
    assert not at.exception, at.exception
    last = wb.history(run.run_id, ev)[-1]
    assert (last.kind, last.label, last.reviewer) == ("adjudication", "unsupported", "Cy")
    status = next(s for s in wb.evidence_status(run.run_id) if s.evidence.requirement_id == ev)
    assert not status.conflict and status.adjudicated and status.final_status == "unsupported"
    assert not any("Reviewers disagree" in w.value for w in at.warning)


def test_dashboard_reports_reviewer_agreement_conflicts_and_calibrates(workspace):
    wb, doc, run = workspace
    a, b, c = (e.requirement_id for e in run.evidence)
    for rid, ann, bob in ((a, "supported", "supported"), (b, "supported", "unsupported"), (c, "unsupported", "unsupported")):
        wb.review(run.run_id, rid, ann, "Ann")
        wb.review(run.run_id, rid, bob, "Bob")
    at = on_page(app(), "dashboard")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Open conflicts"] == "1" and metrics["Items labelled by two or more"] == "3"
    # κ from 3 items is no number to show: the count and a word instead
    assert wb.metrics().inter_reviewer_kappa == 0.4 and metrics["Between reviewers κ · 3 item(s)"] == "too few labels"
    at.button(key="calibrate").click().run()
    assert not at.exception, at.exception
    assert any("too few labels" in i.value for i in at.info)  # two labels: reported, never applied
    assert wb.calibration() is None and wb.calibration_history()[-1].labels == 2
