"""Reviewer-added evidence through the service and the CLI: a verbatim quote or exact offsets
become an item with a stable ID, span, hash and boxes, human-Supported and cited."""

from __future__ import annotations

import json

import pytest

from tests.store.dbs import db_url, pg_schema_url  # noqa: F401 - fixtures
from tests.test_service_store import PAGES, make_run, wb  # noqa: F401 - fixture
from workbench import cli
from workbench.errors import NotFoundError, WorkbenchError
from workbench.models import sha256_text

MISSED = "Visitors may walk the grounds when escorted."


def test_a_quote_the_run_missed_becomes_a_cited_human_supported_item(wb, make_pdf):  # noqa: F811
    run = make_run(wb, make_pdf(PAGES))
    doc = run.document_ids[0]
    st = wb.add_evidence(run.run_id, doc, quote=MISSED, reviewer="ann", note="the visitor rule")
    ev = st.evidence
    text = wb.parsed(doc).text
    assert st.human_added and st.final_status == "supported" and (st.reviewer, st.note) == ("ann", "the visitor rule")
    assert ev.span.page == 2 and ev.span.rects and text[ev.span.start:ev.span.end] == ev.exact_quote
    assert " ".join(ev.exact_quote.split()) in MISSED and len(ev.exact_quote) >= len(MISSED) - 1
    assert ev.span.text_sha256 == sha256_text(ev.exact_quote)
    assert ev.requirement_id == wb.store.evidence_id_for(doc, ev.span.start, ev.span.end)  # the stable ID
    assert any(ev.requirement_id in s.citations for s in wb.answer_view(run.run_id).sentences)
    (event,) = wb.history(run.run_id, ev.requirement_id)
    assert (event.kind, event.label, event.reviewer, event.evidence) == ("added", "supported", "ann", ev)
    trail = wb.audit_trail(run.run_id)
    assert trail["extracted_requirements"][-1]["human_added"] is True


def test_offsets_work_and_bad_input_is_a_clear_error(wb, make_pdf):  # noqa: F811
    run = make_run(wb, make_pdf(PAGES))
    doc = run.document_ids[0]
    text = wb.parsed(doc).text
    start = text.index("Visitors")
    end = text.index("escorted", start) + len("escorted")
    st = wb.add_evidence(run.run_id, doc, start=start, end=end, reviewer="ann")
    assert (st.evidence.span.start, st.evidence.span.end, st.evidence.exact_quote) == (start, end, text[start:end])
    with pytest.raises(WorkbenchError, match="already evidence"):
        wb.add_evidence(run.run_id, doc, quote=MISSED, reviewer="bob")
    with pytest.raises(NotFoundError, match="not found verbatim"):
        wb.add_evidence(run.run_id, doc, quote="Nothing like this is written anywhere.", reviewer="ann")
    with pytest.raises(WorkbenchError, match="outside"):
        wb.add_evidence(run.run_id, doc, start=0, end=10**7, reviewer="ann")
    with pytest.raises(WorkbenchError, match="reviewer"):
        wb.add_evidence(run.run_id, doc, quote=MISSED, reviewer=" ")


def test_cli_add_evidence_json_and_exit_2_when_not_found(wb, make_pdf, capsys):  # noqa: F811
    run = make_run(wb, make_pdf(PAGES))
    doc = run.document_ids[0]
    assert cli.main(["add-evidence", run.run_id, doc, "--quote", "No such words here at all.",
                     "--reviewer", "ann"]) == 2
    assert "not found verbatim" in capsys.readouterr().err
    assert cli.main(["add-evidence", run.run_id, doc, "--quote", MISSED, "--reviewer", "ann", "--note", "missed",
                     "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["human_added"] is True and row["page"] == 2 and row["rects"] and row["text_sha256"]
    assert cli.main(["show", run.run_id, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert row["requirement_id"] in shown["after_review"]["supported_ids"]
    assert row["requirement_id"] in shown["after_review"]["final_answer"]


def test_added_evidence_is_a_missed_positive_in_the_relabel_set_and_the_csv(wb, make_pdf):  # noqa: F811
    run = make_run(wb, make_pdf(PAGES))
    st = wb.add_evidence(run.run_id, run.document_ids[0], quote=MISSED, reviewer="ann", note="missed")
    lines = [json.loads(x) for x in wb.export([run.run_id], "jsonl").data.decode().splitlines()]
    (line,) = [x for x in lines if x["requirement_id"] == st.evidence.requirement_id]
    assert (line["verifier_label"], line["human_label"], line["human_added"]) == ("unsupported", "supported", True)
    csv_text = wb.export([run.run_id], "csv").data.decode()
    assert st.evidence.requirement_id in csv_text and csv_text.splitlines()[0].endswith("human_added")
