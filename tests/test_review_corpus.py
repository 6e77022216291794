"""Issue 13's must-show, by CLI on a CUAD contract: the human's word is final end to end.
A rejected governing-law clause marked Supported makes the answer cite it (no
NO_AUTHORITATIVE_EVIDENCE left) and `show --json` agrees; a cited item marked Unsupported
removes its sentence and the export gate decides on the recomputed numbers, without --force."""

from __future__ import annotations

import json
import re

import pytest

from workbench import cli

CONTRACT = "cuad/pdf/ADAMSGOLFINC_03_21_2005-EX-10.17-ENDORSEMENT AGREEMENT.PDF"
QUESTION = "Which state's law governs this agreement?"


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _show(capsys, run_id: str) -> dict:
    code, out, _ = _run(capsys, "show", run_id, "--json")
    assert code == 0
    return json.loads(out)


@pytest.fixture
def asked(corpus, data_dir, tmp_path, capsys):
    out = tmp_path / "trail.json"
    code, _, err = _run(capsys, "ask", str(corpus / CONTRACT), "--question", QUESTION, "--source-type", "contract",
                        "--out", str(out))
    assert code == 0, err
    trail = json.loads(out.read_text())
    (governing,) = [e for e in trail["extracted_requirements"] if "governed" in e["exact_quote"]
                    and "Kansas" in e["exact_quote"]]
    return trail, governing["requirement_id"]


def test_a_rejected_clause_marked_supported_is_cited_and_show_agrees(asked, capsys, tmp_path):
    trail, governing = asked
    run_id = trail["run_id"]
    # whatever the verifier passed, a reviewer rejects it: nothing authoritative is left...
    for v in trail["verified_requirements"]:
        if v["requirement_id"] != governing:
            assert _run(capsys, "review", run_id, v["requirement_id"], "--label", "unsupported",
                        "--reviewer", "ann", "--note", "not the governing law")[0] == 0
    code, _, _ = _run(capsys, "review", run_id, governing, "--label", "unsupported", "--reviewer", "ann")
    assert code == 0
    assert _show(capsys, run_id)["after_review"]["result"] == "NO_AUTHORITATIVE_EVIDENCE"
    # ...until the governing-law clause is marked Supported
    code, out, _ = _run(capsys, "review", run_id, governing, "--label", "supported", "--reviewer", "ann", "--json")
    event_id = json.loads(out)["id"]
    after = _show(capsys, run_id)["after_review"]
    assert after["result"] is None and governing in after["supported_ids"]
    assert f"[{governing}]" in after["final_answer"] and "Kansas" in after["final_answer"]
    assert all(s["supported"] for s in after["sentence_support"]) and after["badge"] == "green"
    assert after["revisions"][-1]["triggered_by"] == [event_id]
    assert after["revisions"][-1]["now_citable"] == [governing]
    code, out, _ = _run(capsys, "show", run_id)
    assert code == 0 and "revision" in out and f"[{governing}]" in out.splitlines()[-1]
    code, _, err = _run(capsys, "export", run_id, "--format", "md", "--out", str(tmp_path / "r.md"))
    assert code == 0, err  # the gate passes on the recomputed numbers
    assert f"{governing}" in (tmp_path / "r.md").read_text()


def test_a_cited_item_marked_unsupported_drops_its_sentence_and_the_gate_follows(asked, capsys, tmp_path):
    trail, governing = asked
    run_id = trail["run_id"]
    cited = [c for s in trail["sentence_support"] for c in s["citations"]]
    assert cited, "the machine answer cites something"
    assert _run(capsys, "review", run_id, governing, "--label", "supported", "--reviewer", "ann")[0] == 0
    for c in dict.fromkeys(cited):
        if c != governing:
            assert _run(capsys, "review", run_id, c, "--label", "unsupported", "--reviewer", "bob")[0] == 0
    after = _show(capsys, run_id)["after_review"]
    assert [s["citations"] for s in after["sentence_support"]] == [[governing]]
    # coverage is recomputed over what is supported now (a verified item the answer never cited still counts)
    assert after["support_ratio"] == 1.0 and governing in after["supported_ids"]
    assert after["citation_coverage"] == round(1 / len(after["supported_ids"]), 4)
    checks = {q["check"]: q["passed"] for q in after["quality_review"]}
    assert checks["sentences_supported"] and checks["coverage"] and checks["cited_ids_verified"]
    out = tmp_path / "r.json"
    code, _, err = _run(capsys, "export", run_id, "--format", "json", "--out", str(out))
    assert code == 0, err  # no --force: the recomputed answer passes
    exported = json.loads(out.read_text())
    assert exported["export"]["safety_gate"][0]["passed"] and exported["export"]["forced"] is None
    # the reviewer who confirmed the clause changes their mind: nothing is left, the gate says so
    assert _run(capsys, "review", run_id, governing, "--label", "unsupported", "--reviewer", "ann")[0] == 0
    after = _show(capsys, run_id)["after_review"]
    assert governing not in after["supported_ids"] and f"[{governing}]" not in after["final_answer"]


def test_a_low_relevance_rejected_item_marked_supported_is_in_the_answer_everywhere(asked, capsys, tmp_path):
    """Issue 44: the answer a reader gets — `show --json`'s own `final_answer`, not only its
    `after_review` — and every export cite an item a reviewer marked Supported, whatever the
    verifier thought of its relevance; marked Unsupported, it is cited nowhere."""
    trail, _ = asked
    run_id = trail["run_id"]
    rejected = [v for v in trail["rejected_requirements"] if v["rejection_reason"] == "does_not_address_question"]
    assert rejected, "the contract has clauses the verifier judged off the question"
    item = rejected[0]["requirement_id"]
    assert f"[{item}]" not in trail["final_answer"]
    machine_answer = trail["final_answer"]

    assert _run(capsys, "review", run_id, item, "--label", "supported", "--reviewer", "Rae Reviewer",
                "--note", "this clause answers it")[0] == 0
    shown = _show(capsys, run_id)
    assert f"[{item}]" in shown["final_answer"]  # what a reader of the trail reads first
    assert f"[{item}]" in shown["after_review"]["final_answer"]
    assert shown["machine_answer"]["final_answer"] == machine_answer  # the pipeline's answer stays visible
    assert item in [r["requirement_id"] for r in shown["requirement_references"] if r["used_in_answer"]]
    (said,) = [x for x in shown["sentence_support"] if item in x["citations"]]
    assert said["supported"] and f"{item} marked supported by Rae Reviewer" in said["reason"]  # and says why
    out = tmp_path / "r.json"
    assert _run(capsys, "export", run_id, "--format", "json", "--out", str(out))[0] == 0
    exported = json.loads(out.read_text())["runs"][0]
    assert f"[{item}]" in exported["final_answer"] and f"[{item}]" in exported["reviewed_answer"]["final_answer"]
    md = tmp_path / "r.md"
    assert _run(capsys, "export", run_id, "--format", "md", "--out", str(md))[0] == 0
    report = md.read_text()
    (n,) = re.findall(rf'<a id="ev-(\d+)"></a>\*\*\[\d+\]\*\* `{item}`', report)
    assert f"[[{n}](#ev-{n})]" in report  # the report's answer cites it by its number

    assert _run(capsys, "review", run_id, item, "--label", "unsupported", "--reviewer", "Rae Reviewer")[0] == 0
    shown = _show(capsys, run_id)
    assert f"[{item}]" not in shown["final_answer"] and f"[{item}]" not in shown["after_review"]["final_answer"]
    assert shown["final_answer"] == machine_answer  # back to what the verifier alone supported
