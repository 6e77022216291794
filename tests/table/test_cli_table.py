"""`workbench table`: one JSON object per cell in the shape the issue names, `table show` and
`table export` reading the same cells; on the Redis queue the workers answer the cells."""

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
