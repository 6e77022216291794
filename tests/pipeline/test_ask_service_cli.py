"""service.ask and `workbench ask`: runs are stored, IDs come from the store and stay stable,
the audit trail goes to --out or stdout, bad input is one stderr line and exit 2."""

from __future__ import annotations

import json

import pytest

from tests.pipeline.helpers import OFF_TOPIC_Q, POLICY, REMOTE_Q
from workbench.cli import main
from workbench.config import get_settings
from workbench.errors import WorkbenchError
from workbench.models import NO_AUTHORITATIVE_EVIDENCE, sha256_text
from workbench.text import ID_RE


@pytest.fixture
def policy_pdf(make_pdf):
    return make_pdf(POLICY, name="policy.pdf")


def test_service_ask_stores_runs_and_keeps_ids_stable_across_runs(data_dir, policy_pdf):
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    doc = wb.ingest(policy_pdf, source_type="policy")
    events = []
    first, = wb.ask([REMOTE_Q], [doc.id], on_event=events.append)
    assert events and events[0].stage == "retrieval" and events[-1].stage == "finalize"
    again, = Workbench(get_settings()).ask([REMOTE_Q], [doc.id])  # a new process-like workspace, same store
    ids = {(e.span.start, e.span.end): e.requirement_id for e in first.evidence}
    assert ids and ids == {(e.span.start, e.span.end): e.requirement_id for e in again.evidence}
    assert all(i.startswith("REQ-P") for i in ids.values())
    stored = {r.run_id for r in wb.runs()}
    assert {first.run_id, again.run_id} <= stored
    assert wb.run(first.run_id).answer.final_answer == first.answer.final_answer


def test_service_ask_refuses_empty_input(data_dir, policy_pdf):
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    doc = wb.ingest(policy_pdf)
    with pytest.raises(WorkbenchError, match="No question"):
        wb.ask(["  "], [doc.id])
    with pytest.raises(WorkbenchError, match="No documents"):
        wb.ask([REMOTE_Q], [])
    with pytest.raises(WorkbenchError, match="source type"):
        wb.ask([REMOTE_Q], [doc.id], source_type="memo")


def test_cli_ask_prints_the_answer_in_plain_language_with_its_citations(data_dir, policy_pdf, capsys):
    assert main(["ask", str(policy_pdf), "--question", REMOTE_Q, "--source-type", "policy"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Q: {REMOTE_Q}\nA: ") and "Confidence: " in out and "workbench show " in out
    assert "{" not in out  # no JSON dump
    cited = ID_RE.findall(out.split("\n")[1])
    assert cited and all(f"[{c}] p. " in out for c in set(cited))  # each cited item with its page and quote


def test_cli_ask_names_the_document_that_says_nothing(data_dir, policy_pdf, make_pdf, capsys):
    """Asked across two documents of which one is silent, the printed answer says which, as the
    Answer page does under Missing evidence."""
    menu = make_pdf(["Canteen Menu\n\nSoup and bread are served at noon on weekdays; fruit is free on Fridays."],
                    name="canteen_menu.pdf")
    assert main(["ask", str(policy_pdf), str(menu), "--question", REMOTE_Q, "--source-type", "policy"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Q: {REMOTE_Q}\nA: In the ")
    assert f"  missing: A passage in the canteen menu that addresses: {REMOTE_Q} (none of its passages was " \
           "verified)" in out


def test_cli_ask_json_prints_one_audit_trail_object_per_line(data_dir, policy_pdf, capsys):
    assert main(["ask", str(policy_pdf), "--question", REMOTE_Q, "--source-type", "policy", "--json"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    trail = json.loads(line)
    assert trail["question"] == REMOTE_Q
    for key in ("grounding_confidence", "extracted_requirements", "verified_requirements", "rejected_requirements",
                "final_answer", "requirement_references", "missing_evidence", "evidence_audit_trail"):
        assert key in trail
    verified = {v["requirement_id"] for v in trail["verified_requirements"]}
    assert set(ID_RE.findall(trail["final_answer"])) <= verified and verified
    for e in trail["extracted_requirements"]:
        assert e["text_sha256"] == sha256_text(e["exact_quote"])
        assert e["page"] >= 1 and e["end"] > e["start"] and e["rects"]


def test_cli_ask_questions_writes_a_json_list_to_out_and_summary_lines(data_dir, policy_pdf, tmp_path, capsys):
    qfile = tmp_path / "q.txt"
    qfile.write_text(f"{REMOTE_Q}\n\n{OFF_TOPIC_Q}\n", encoding="utf-8")
    out = tmp_path / "out.json"
    assert main(["ask", str(policy_pdf), "--questions", str(qfile), "--out", str(out)]) == 0
    trails = json.loads(out.read_text(encoding="utf-8"))
    assert [t["question"] for t in trails] == [REMOTE_Q, OFF_TOPIC_Q]
    assert "result" not in trails[0] and trails[1]["result"] == NO_AUTHORITATIVE_EVIDENCE
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(x["question"], x["result"]) for x in lines] == [(REMOTE_Q, "ANSWERED"), (OFF_TOPIC_Q, NO_AUTHORITATIVE_EVIDENCE)]
    assert [x["run_id"] for x in lines] == [t["run_id"] for t in trails]


@pytest.mark.parametrize(("args", "message"), [
    (["missing.pdf", "--question", "q"], "no such file"),
    (["{pdf}", "--questions", "nope.txt"], "no such file"),
    (["{pdf}", "--question", "   "], "no question given"),
    (["{pdf}", "--question", "q", "--backend", "oracle"], "Unknown backend"),
    (["{pdf}", "--question", "q", "--out", "/no/such/dir/out.json"], "not a writable file path"),
])
def test_cli_ask_bad_input_is_one_stderr_line_and_exit_2(data_dir, policy_pdf, capsys, args, message):
    argv = ["ask"] + [a.replace("{pdf}", str(policy_pdf)) for a in args]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_cli_ask_again_on_a_stored_pdf_does_not_parse_it_again_and_keeps_ids(data_dir, policy_pdf, tmp_path,
                                                                              capsys, monkeypatch):
    first, second = tmp_path / "1.json", tmp_path / "2.json"
    assert main(["ask", str(policy_pdf), "--question", REMOTE_Q, "--out", str(first)]) == 0

    def no_parsing(*a, **k):
        raise AssertionError("the stored PDF was parsed again")

    monkeypatch.setattr("workbench.pdf.open_pdf", no_parsing)
    assert main(["ask", str(policy_pdf), "--question", REMOTE_Q, "--out", str(second)]) == 0
    a, b = (json.loads(p.read_text()) for p in (first, second))
    assert [(e["start"], e["requirement_id"]) for e in a["extracted_requirements"]] == \
        [(e["start"], e["requirement_id"]) for e in b["extracted_requirements"]]
    assert a["run_id"] != b["run_id"]
