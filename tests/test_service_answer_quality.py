"""The Answer's quality review does not go on claiming "3/3 sentences supported" after a human
marked their evidence unsupported: an after-review finding says what the labels changed."""

from __future__ import annotations

from tests.store.dbs import db_url, pg_schema_url  # noqa: F401 - fixtures
from tests.test_service_store import PAGES, make_run, wb  # noqa: F401 - fixture


def test_after_review_finding_reports_sentences_a_human_undermined(wb, make_pdf):  # noqa: F811
    run = make_run(wb, make_pdf(PAGES), verdicts=(True, True, True))
    assert [q.check for q in wb.answer_view(run.run_id).quality] == [q.check for q in run.answer.quality]
    rid = run.evidence[0].requirement_id
    wb.review(run.run_id, rid, "unsupported", "ann", "wrong clause")
    quality = wb.answer_view(run.run_id).quality
    assert quality[: len(run.answer.quality)] == run.answer.quality  # the verifier's findings stay visible
    (after,) = [q for q in quality if q.check == "after_review"]
    assert not after.passed
    assert after.detail == f"2/3 sentences supported once human labels apply; cited but marked unsupported: {rid}"
    assert wb.run(run.run_id).answer.quality == run.answer.quality  # the stored run is not rewritten


def test_after_review_finding_passes_when_humans_confirm(wb, make_pdf):  # noqa: F811
    run = make_run(wb, make_pdf(PAGES), verdicts=(True, True, False))
    wb.review(run.run_id, run.evidence[0].requirement_id, "supported", "ann")
    (after,) = [q for q in wb.answer_view(run.run_id).quality if q.check == "after_review"]
    assert after.passed and after.detail == "2/2 sentences supported once human labels apply"
