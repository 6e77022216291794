"""The Answer's quality review does not go on claiming "3/3 sentences supported" after a human
marked evidence unsupported: the rows are recomputed on the recomposed answer, from the same
numbers as the header and the gate."""

from __future__ import annotations

from tests.store.dbs import db_url, pg_schema_url  # noqa: F401 - fixtures
from tests.test_service_store import PAGES, make_run, wb  # noqa: F401 - fixture


def _row(answer, check):
    return next(q for q in answer.quality if q.check == check)


def test_quality_rows_follow_a_human_rejection(wb, make_pdf):  # noqa: F811
    run = make_run(wb, make_pdf(PAGES), verdicts=(True, True, True))
    assert wb.answer_view(run.run_id).quality == run.answer.quality
    rid = run.evidence[0].requirement_id
    wb.review(run.run_id, rid, "unsupported", "ann", "wrong clause")
    answer = wb.answer_view(run.run_id)
    assert _row(answer, "sentences_supported").detail == "2/2 sentences supported by the evidence they cite"
    assert _row(answer, "coverage").detail == "2/2 verified IDs cited (100%)"
    assert rid not in answer.final_answer
    assert wb.run(run.run_id).answer.quality == run.answer.quality  # the stored run is not rewritten


def test_a_human_supported_item_is_cited_and_counted(wb, make_pdf):  # noqa: F811
    run = make_run(wb, make_pdf(PAGES), verdicts=(True, True, False))
    rejected = run.evidence[2].requirement_id
    wb.review(run.run_id, rejected, "supported", "ann")
    answer = wb.answer_view(run.run_id)
    assert rejected in answer.sentences[-1].citations and answer.sentences[-1].supported
    assert _row(answer, "coverage").detail == "3/3 verified IDs cited (100%)"
    assert answer.grounding_confidence == "medium" and answer.support_ratio == 1.0
