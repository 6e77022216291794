"""Exports through the real service and CLI: ingest (pdf area), stable IDs and runs (store),
reviews as events, then `workbench export`. Runs are stored directly (not through the
pipeline) so each test controls exactly which evidence is verified and reviewed."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pymupdf
import pytest

from tests.export.conftest import PAGE_1, PAGE_2, Q1, Q2, Q3
from workbench.cli import main
from workbench.config import get_settings
from workbench.models import Answer, Evidence, Run, SentenceSupport, Verification


def store_run(wb, pdf: Path, items: list[tuple[str, bool]], sentences: list[tuple[str, list[int]]],
              run_id: str = "run-a", question: str = "What must organizations do?") -> Run:
    """items: (quote, verified); sentences: (text with {0},{1}… for the items' IDs, item indexes)."""
    doc = wb.ingest(pdf, source_type="statute")
    parsed = wb.parsed(doc.id)
    spans = [parsed.locate(q) for q, _ in items]
    assert all(spans), "test quotes must be in the test PDF"
    ids = wb.store.assign_evidence_ids([(doc.id, s.start, s.end, "statute") for s in spans])
    evidence = [Evidence(requirement_id=i, source_type="statute", document_id=doc.id, exact_quote=q, chunk_id="c",
                         span=s) for i, (q, _), s in zip(ids, items, spans, strict=True)]
    verifs = [Verification(requirement_id=i, verified=ok, rejection_reason=None if ok else "requires_inference")
              for i, (_, ok) in zip(ids, items, strict=True)]
    sents = [SentenceSupport(text=t.format(*ids), citations=[ids[k] for k in ks], supported=True) for t, ks in sentences]
    answer = Answer(final_answer=" ".join(s.text for s in sents), sentences=sents, support_ratio=1.0,
                    grounding_confidence="medium")
    run = Run(run_id=run_id, question=question, document_ids=[doc.id], evidence=evidence, verifications=verifs,
              answer=answer)
    wb.store.save_run(run)
    return run


@pytest.fixture
def workspace(data_dir, make_pdf):
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    pdf = make_pdf([PAGE_1, PAGE_2], name="requirements.pdf", metadata={"title": "Test Requirements",
                                                                        "author": "Jane Doe"})
    run = store_run(wb, pdf, [(Q1, True), (Q2, True), (Q3, False)],
                    [("Access is limited to authorized users [{0}].", [0]),
                     ("Mobile devices must encrypt CUI at rest [{1}].", [1])])
    return wb, run


def cli(*args: str) -> int:
    return main(list(args))


def test_cli_export_writes_a_csv_with_the_human_label_after_review(workspace, tmp_path):
    wb, run = workspace
    rid2 = run.evidence[1].requirement_id
    wb.review(run.run_id, rid2, "unsupported", "alice", "storage, not transit")
    out = tmp_path / "out.csv"
    assert cli("export", run.run_id, "--format", "csv", "--out", str(out)) == 0
    rows = {r["requirement_id"]: r for r in csv.DictReader(out.open(newline="", encoding="utf-8"))}
    assert (rows[rid2]["verifier_verdict"], rows[rid2]["human_label"], rows[rid2]["final_status"]) == (
        "supported", "unsupported", "unsupported")
    assert rows[rid2]["reviewer"] == "alice" and rows[rid2]["document"] == "requirements.pdf"


def test_cli_gate_blocks_with_reasons_on_one_line_then_force_records_the_reason(workspace, tmp_path, capsys):
    wb, run = workspace
    wb.review(run.run_id, "SENT-2", "unsupported", "alice")
    out = tmp_path / "report.md"
    assert cli("export", run.run_id, "--format", "md", "--out", str(out)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs human check: support 50% is below 75%" in err
    assert "export anyway with --force --reason TEXT" in err  # the CLI words the remedy in its flags
    assert not out.exists()
    assert cli("export", run.run_id, "--format", "md", "--out", str(out), "--force", "--reason", "draft for legal",
               "--by", "dana") == 0
    md = out.read_text()
    assert "**Forced export** by dana" in md and "draft for legal" in md


def test_cli_force_without_reason_and_reason_without_force_are_usage_errors(workspace, tmp_path, capsys):
    _, run = workspace
    out = str(tmp_path / "x.json")
    assert cli("export", run.run_id, "--format", "json", "--out", out, "--force") == 2
    assert "--force needs --reason" in capsys.readouterr().err
    assert cli("export", run.run_id, "--format", "json", "--out", out, "--reason", "x") == 2
    assert "--reason goes with --force" in capsys.readouterr().err


def test_cli_unknown_run_is_one_line_exit_2(data_dir, tmp_path, capsys):
    assert cli("export", "nope", "--format", "json", "--out", str(tmp_path / "x.json")) == 2
    assert "no run 'nope'" in capsys.readouterr().err


def test_annotated_pdf_through_the_service_highlights_located_quotes(workspace, tmp_path):
    wb, run = workspace
    out = tmp_path / "annotated.pdf"
    assert cli("export", run.run_id, "--format", "pdf", "--out", str(out)) == 0
    doc = pymupdf.open(out)
    found = {}
    for page in doc:
        for a in page.annots():
            pts = a.vertices
            rects = [pymupdf.Quad(*pts[i:i + 4]).rect for i in range(0, len(pts), 4)]
            words = [w[4] for w in page.get_text("words", sort=True)
                     if any(r.x0 - 1 <= (w[0] + w[2]) / 2 <= r.x1 + 1 and r.y0 - 1 <= (w[1] + w[3]) / 2 <= r.y1 + 1
                            for r in rects)]
            found[a.info["title"]] = (" ".join(words), a.info["content"])
    assert set(found) == {e.requirement_id for e in run.evidence}
    for ev in run.evidence:
        assert " ".join(found[ev.requirement_id][0].split()) == " ".join(ev.exact_quote.split())
        assert found[ev.requirement_id][1].startswith(ev.requirement_id)


def test_tampered_quote_hash_in_the_store_stops_the_export(workspace, tmp_path, capsys):
    wb, run = workspace
    ev = run.evidence[0]
    bad = ev.model_copy(update={"span": ev.span.model_copy(update={"text_sha256": "f" * 64})})
    wb.store.save_run(run.model_copy(update={"evidence": [bad, *run.evidence[1:]]}))
    out = tmp_path / "x.csv"
    assert cli("export", run.run_id, "--format", "csv", "--out", str(out)) == 2
    err = capsys.readouterr().err
    assert f"{ev.requirement_id} (run {run.run_id}, page 1)" in err and "nothing was written" in err
    assert not out.exists()


def test_whole_workspace_export_covers_every_run(workspace, tmp_path, make_pdf):
    wb, run = workspace
    other = make_pdf([PAGE_2], name="audit.pdf")
    store_run(wb, other, [(Q3, True)], [("Audit records are kept three years [{0}].", [0])], run_id="run-b",
              question="How long are audit records kept?")
    out = tmp_path / "all.jsonl"
    wb.review("run-b", wb.run("run-b").evidence[0].requirement_id, "supported", "bob")
    wb.review(run.run_id, run.evidence[0].requirement_id, "supported", "bob")
    assert cli("export", "--all", "--format", "jsonl", "--out", str(out)) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert sorted(x["run_id"] for x in lines) == ["run-a", "run-b"]
    pdf_out = tmp_path / "all.pdf"
    assert cli("export", "--all", "--format", "pdf", "--out", str(pdf_out)) == 2  # two documents: needs .zip
    assert cli("export", "--all", "--format", "pdf", "--out", str(tmp_path / "all.zip")) == 0


@pytest.mark.parametrize("fmt", ["json", "csv", "md", "html", "bibtex", "csljson", "webannotation", "pdf", "jsonl"])
def test_every_format_through_the_cli_parses(workspace, tmp_path, fmt, capsys):
    wb, run = workspace
    wb.review(run.run_id, run.evidence[0].requirement_id, "supported", "bob")
    out = tmp_path / f"out.{fmt}"
    assert cli("export", run.run_id, "--format", fmt, "--out", str(out), "--json") == 0
    row = json.loads(capsys.readouterr().out)
    assert row["bytes"] == out.stat().st_size > 0 and row["hashes_checked"] == 3
    data = out.read_bytes()
    if fmt in ("json", "csljson", "webannotation"):
        json.loads(data)
    elif fmt == "pdf":
        assert pymupdf.open(stream=data, filetype="pdf").page_count == 2
    elif fmt == "jsonl":
        assert [json.loads(x)["reviewer"] for x in data.decode().splitlines()] == ["bob"]
    elif fmt == "bibtex":
        import bibtexparser

        assert bibtexparser.parse_string(data.decode()).entries[0]["title"] == "{Test Requirements}"
