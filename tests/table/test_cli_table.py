"""`workbench table`: one JSON object per cell in the shape the issue names, `table show` and
`table export` (CSV, XLSX) reading the same cells, `table correct` / `table review` recording a
reviewer's word on one cell; on the Redis queue the workers answer the cells."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from workbench.cli import main

CONTRACT = ("SERVICES AGREEMENT. This Services Agreement is made on May 8, 2014 between Acme Corp. and Beta LLC. "
            "1. Term. This Agreement shall remain in force for a period of two (2) years. "
            "2. Governing Law. This Agreement shall be governed by and construed in accordance with the laws of the "
            "State of Delaware. 3. Notices. Notices shall be in writing.")
QUESTIONS = ("Governing law: Which state's laws govern this agreement?\n"
             "Audit rights: Does this agreement give a party the right to audit the books of the other?\n")
KEYS = {"document", "document_id", "question", "short_answer", "normalized", "answer", "result",
        "grounding_confidence", "citations", "run_id"}


def _rows(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_table_json_prints_one_object_per_cell_and_show_and_export_read_the_same_cells(data_dir, make_pdf, tmp_path,
                                                                                       capsys):
    pdf = make_pdf([CONTRACT], name="services.pdf")
    questions = tmp_path / "checklist.txt"
    questions.write_text(QUESTIONS, encoding="utf-8")
    assert main(["table", str(pdf), "--questions", str(questions), "--json"]) == 0
    law, audit = _rows(capsys.readouterr().out)
    assert set(law) >= KEYS and set(audit) >= KEYS
    assert (law["document"], law["short_answer"], law["normalized"]) == ("services.pdf", "Delaware", "Delaware")
    (cite,) = law["citations"][:1]
    assert set(cite) == {"requirement_id", "page", "page_label", "quote"} and "State of Delaware" in cite["quote"]
    assert (audit["short_answer"], audit["result"], audit["citations"]) == ("not found", "NO_AUTHORITATIVE_EVIDENCE", [])

    table_id = law["table_id"]
    assert main(["table", "show", table_id, "--json"]) == 0
    assert [r["run_id"] for r in _rows(capsys.readouterr().out)] == [law["run_id"], audit["run_id"]]
    out = tmp_path / "table.csv"
    assert main(["table", "export", table_id, "--format", "csv", "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {out}")
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8-sig"))))
    assert [(r["document"], r["column"], r["short_answer"]) for r in rows] == [
        ("services.pdf", "Governing law", "Delaware"), ("services.pdf", "Audit rights", "not found")]
    assert rows[0]["evidence_links"] == f"/review?run={law['run_id']}&evidence={cite['requirement_id']}"

    # the same documents and checklist again: nothing is new or stale, so nothing runs
    assert main(["table", str(pdf), "--questions", str(questions), "--table", table_id, "--json"]) == 0
    assert [r["run_id"] for r in _rows(capsys.readouterr().out)] == [law["run_id"], audit["run_id"]]


def test_table_without_questions_says_how_to_give_them(data_dir, make_pdf, capsys):
    assert main(["table", str(make_pdf([CONTRACT]))]) == 2
    assert "--questions contract" in capsys.readouterr().err


@pytest.mark.redis
@pytest.mark.slow
def test_table_on_the_queue_is_answered_by_a_worker(queue_env, make_pdf, tmp_path: Path):
    from tests.jobs.conftest import cli, start_worker

    pdf = make_pdf([CONTRACT], name="services.pdf")
    questions = tmp_path / "checklist.txt"
    questions.write_text(QUESTIONS, encoding="utf-8")
    sent = cli(queue_env, "table", str(pdf), "--questions", str(questions), "--queue", "--json")
    assert sent.returncode == 0, sent.stderr
    (queued,) = _rows(sent.stdout)
    assert queued["cells_queued"] == 2
    shown = _rows(cli(queue_env, "table", "show", queued["table_id"], "--json").stdout)
    assert {r["status"] for r in shown} == {"queued"}
    assert {r["kind"] for r in _rows(cli(queue_env, "jobs", "--json").stdout)} == {"cell"}
    worker = start_worker(queue_env, "--burst")
    assert worker.wait(timeout=600) == 0, worker.stderr.read()
    law, audit = _rows(cli(queue_env, "table", "show", queued["table_id"], "--json").stdout)
    assert (law["status"], law["normalized"], audit["short_answer"]) == ("done", "Delaware", "not found")


def test_table_export_xlsx_reads_back_a_row_per_document_and_every_citation(data_dir, make_pdf, tmp_path, capsys):
    from tests.export.xlsx_read import Workbook

    pdf = make_pdf([CONTRACT], name="services.pdf")
    questions = tmp_path / "checklist.txt"
    questions.write_text(QUESTIONS, encoding="utf-8")
    assert main(["table", str(pdf), "--questions", str(questions), "--json"]) == 0
    law, audit = _rows(capsys.readouterr().out)
    out = tmp_path / "table.xlsx"
    assert main(["table", "export", law["table_id"], "--format", "xlsx", "--out", str(out), "--json"]) == 0
    (written,) = _rows(capsys.readouterr().out)
    assert written["media_type"] == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    book = Workbook(out.read_bytes())
    ids = " ".join(x["requirement_id"] for x in law["citations"])
    assert book.rows("Table")[:2] == [["Document", "Governing law", "Audit rights", "Document SHA-256"],
                                      ["services.pdf", f"Delaware [{ids.replace(' ', ', ')}]", "not found",
                                       law["document_id"]]]
    cites = book.records("Citations")
    assert [(c["Cell"], c["Evidence ID"]) for c in cites] == [("B2", x["requirement_id"]) for x in law["citations"]]
    assert cites[0]["Quote"] == law["citations"][0]["quote"] and len(cites[0]["Quote SHA-256"]) == 64


def test_table_correct_appends_the_reviewers_answer_with_who_and_why_and_it_wins(data_dir, make_pdf, tmp_path,
                                                                                  capsys):
    from tests.export.xlsx_read import Workbook

    pdf = make_pdf([CONTRACT], name="services.pdf")
    questions = tmp_path / "checklist.txt"
    questions.write_text(QUESTIONS, encoding="utf-8")
    assert main(["table", str(pdf), "--questions", str(questions), "--json"]) == 0
    table_id = _rows(capsys.readouterr().out)[0]["table_id"]
    fix = ["table", "correct", table_id, "services.pdf", "audit rights"]  # the label in any case

    assert main([*fix, "--answer", "Yes", "--reviewer", "dana"]) == 2  # a correction says why
    assert "--reason" in capsys.readouterr().err
    assert main(["table", "correct", table_id, "other.pdf", "Audit rights", "--answer", "Yes", "--reason", "x",
                 "--reviewer", "dana"]) == 2
    assert "services.pdf" in capsys.readouterr().err  # unknown names list the table's
    assert main([*fix, "--answer", "Yes, §9 (audit)", "--reason", "§9 grants it", "--reviewer", "dana", "--json"]) == 0
    (event,) = _rows(capsys.readouterr().out)
    assert (event["kind"], event["reviewer"], event["note"], event["value"], event["column"]) == (
        "correction", "dana", "§9 grants it", "Yes, §9 (audit)", "Audit rights")

    assert main(["table", "show", table_id, "--json"]) == 0
    _, audit = _rows(capsys.readouterr().out)
    assert (audit["short_answer"], audit["review"]) == ("Yes, §9 (audit)", "corrected")
    out = tmp_path / "table.xlsx"
    assert main(["table", "export", table_id, "--format", "xlsx", "--out", str(out)]) == 0
    book = Workbook(out.read_bytes())
    assert book.rows("Table")[1][2] == "Yes, §9 (audit) (corrected by dana; the engine said: not found)"
    (trail,) = book.records("Audit trail")
    assert (trail["Cell"], trail["Kind"], trail["Correction"], trail["Note"]) == (
        "C2", "correction", "Yes, §9 (audit)", "§9 grants it")

    assert main([*fix, "--reset", "--reason", "wrong contract", "--reviewer", "dana"]) == 0
    assert "correction withdrawn" in capsys.readouterr().out
    assert main(["table", "show", table_id, "--json"]) == 0
    assert _rows(capsys.readouterr().out)[1]["short_answer"] == "not found"


def test_table_review_rejects_the_evidence_a_cell_rests_on(data_dir, make_pdf, tmp_path, capsys):
    pdf = make_pdf([CONTRACT], name="services.pdf")
    questions = tmp_path / "checklist.txt"
    questions.write_text("Governing law: Which state's laws govern this agreement?\n", encoding="utf-8")
    assert main(["table", str(pdf), "--questions", str(questions), "--json"]) == 0
    (law,) = _rows(capsys.readouterr().out)
    assert main(["table", "review", law["table_id"], "services.pdf", "Governing law", "--label", "unsupported",
                 "--reason", "venue, not law", "--reviewer", "dana"]) == 0
    assert f"{law['citations'][0]['requirement_id']} labelled unsupported by dana" in capsys.readouterr().out
    assert main(["table", "show", law["table_id"], "--json"]) == 0
    (cell,) = _rows(capsys.readouterr().out)  # its only quote rejected, the cell reads "not found", rejected
    assert (cell["short_answer"], cell["result"], cell["review"]) == ("not found", "NO_AUTHORITATIVE_EVIDENCE",
                                                                      "rejected")
