"""Reviewer-added evidence through the service and the CLI: a verbatim quote or exact offsets
become an item with a stable ID, span, hash and boxes, human-Supported and cited."""

from __future__ import annotations

import io
import json
import sys

import pytest

from tests.store.dbs import db_url, pg_schema_url  # noqa: F401 - fixtures
from tests.test_service_store import PAGES, make_run, wb  # noqa: F401 - fixture
from workbench import cli
from workbench.config import get_settings
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


# --- issue 37: what a reviewer may add (each test is the attack, made with a reviewer's hands) ----
FLAGS = "The monitor flags unauthorized system activity at once."


def test_a_span_cut_from_inside_a_word_is_refused_naming_the_whole_words(wb, make_pdf):  # noqa: F811
    """'authorized system activity' cut from 'unauthorized …' says the opposite of the document:
    refused (never widened behind the reviewer's back), with the whole words to select instead."""
    run = make_run(wb, make_pdf([PAGES[0], f"{PAGES[1]} {FLAGS}"]))
    doc = run.document_ids[0]
    text = wb.parsed(doc).text
    with pytest.raises(WorkbenchError, match="whole words") as refused:
        wb.add_evidence(run.run_id, doc, quote="authorized system activity", reviewer="mallory")
    assert "unauthorized system activity" in str(refused.value)
    word, end = text.index("unauthorized"), text.index("activity") + len("activity")
    for start, stop in [(word + 2, end), (word, end - 3)]:  # "|authorized …", "… activ|ity"
        with pytest.raises(WorkbenchError, match="whole words"):
            wb.add_evidence(run.run_id, doc, start=start, end=stop, reviewer="mallory")
    assert wb.history(run.run_id) == []
    kept = wb.add_evidence(run.run_id, doc, quote="unauthorized system activity", reviewer="ann")
    assert kept.evidence.exact_quote == "unauthorized system activity"


def test_a_whole_document_as_one_item_is_refused_over_the_size_cap(wb, make_pdf):  # noqa: F811
    filler = " ".join([f"Visitors may walk the grounds when escorted. {FLAGS}"] * 6)
    run = make_run(wb, make_pdf(PAGES + [filler] * 10))
    doc = run.document_ids[0]
    text = wb.parsed(doc).text
    cap = 2_000  # Settings.added_evidence_max_chars, by default: about a dense page
    assert len(text) > 2 * cap
    with pytest.raises(WorkbenchError, match=f"{cap:,} characters"):
        wb.add_evidence(run.run_id, doc, start=0, end=len(text), reviewer="mallory")
    with pytest.raises(WorkbenchError, match=f"{cap:,} characters"):
        wb.add_evidence(run.run_id, doc, quote=text, reviewer="mallory")
    assert wb.history(run.run_id) == []


def test_evidence_from_a_document_the_run_did_not_read_is_refused(wb, make_pdf):  # noqa: F811
    run = make_run(wb, make_pdf(PAGES))
    other = wb.ingest(make_pdf(["Pets are welcome everywhere on the grounds."], name="other.pdf"))
    with pytest.raises(WorkbenchError, match="not a document of run") as refused:
        wb.add_evidence(run.run_id, other.id, quote="Pets are welcome everywhere", reviewer="mallory")
    assert "other.pdf" in str(refused.value)
    assert wb.history(run.run_id) == []


@pytest.fixture
def signed_in_cli(wb, monkeypatch):  # noqa: F811
    """Sign-in on for the CLI, with a reviewer account; the CLI shares the fixture's store."""
    wb.add_user("Ada Admin", "admin", "correct horse admin")  # the data folder's owner makes the first
    wb.add_user("Rae Reviewer", "reviewer", "correct horse battery",
                identity=wb.sign_in("Ada Admin", "correct horse admin"))
    monkeypatch.setenv("WORKBENCH_SIGN_IN", "true")
    get_settings.cache_clear()
    yield wb
    get_settings.cache_clear()


def test_cli_add_evidence_with_sign_in_on_signs_in_with_the_password_on_stdin(signed_in_cli, make_pdf, capsys,
                                                                               monkeypatch):
    run = make_run(signed_in_cli, make_pdf(PAGES))
    argv = ["add-evidence", run.run_id, run.document_ids[0], "--quote", MISSED, "--reviewer", "Rae Reviewer",
            "--password-stdin", "--json"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("wrong horse staple\n"))
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "wrong password" in err and "wrong horse staple" not in err
    monkeypatch.setattr(sys, "stdin", io.StringIO("correct horse battery\n"))
    assert cli.main(argv) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["human_added"] is True and row["reviewer"] == "Rae Reviewer"


def test_cli_add_evidence_with_sign_in_on_takes_the_password_from_the_environment(signed_in_cli, make_pdf, capsys,
                                                                                  monkeypatch):
    run = make_run(signed_in_cli, make_pdf(PAGES))
    monkeypatch.setenv("WORKBENCH_PASSWORD", "correct horse battery")
    assert cli.main(["add-evidence", run.run_id, run.document_ids[0], "--quote", MISSED,
                     "--reviewer", "Rae Reviewer", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reviewer"] == "Rae Reviewer"
