"""The service's document, run, review and metrics use-cases over a real store (SQLite and
PostgreSQL) and real PDFs made with PyMuPDF; the CLI commands on top of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from tests.store.dbs import db_url, pg_schema_url  # noqa: F401 - fixtures
from workbench import cli
from workbench.config import Settings, get_settings
from workbench.errors import NotFoundError, ReviewerRequiredError, WorkbenchError
from workbench.models import Answer, Evidence, Run, SentenceSupport, Verification, sha256_text
from workbench.service import Workbench

PAGES = [
    "Records. The operator shall keep inspection records for five years. "
    "The operator must report every incident within 24 hours of discovery.",
    "Training. Each employee shall complete safety training before starting work. "
    "Visitors may walk the grounds when escorted.",
]


@pytest.fixture
def wb(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workbench:  # noqa: F811
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("WORKBENCH_DATABASE_URL", db_url)
    get_settings.cache_clear()
    w = Workbench(Settings(data_dir=tmp_path / "data", database_url=db_url))
    yield w
    w.store.dispose()
    get_settings.cache_clear()


def make_run(wb: Workbench, pdf: Path, run_id: str = "run-1", verdicts=(True, True, False)) -> Run:
    doc = wb.ingest(pdf, source_type="statute")
    parsed = wb.parsed(doc.id)
    segs = [s for s in parsed.segments() if s.kind == "sentence"]
    segs = [s for s in segs if any(w in s.text for w in ("shall", "must"))][: len(verdicts)]
    assert len(segs) == len(verdicts)
    evs, vs = [], []
    for seg, ok in zip(segs, verdicts, strict=True):
        rid = wb.store.assign_evidence_id(doc.id, seg.start, seg.end, "statute")
        evs.append(Evidence(requirement_id=rid, source_type="statute", document_id=doc.id, exact_quote=seg.text,
                            chunk_id="c1", span=parsed.span(seg.start, seg.end)))
        vs.append(Verification(requirement_id=rid, verified=ok, score=0.9 if ok else 0.1,
                               rejection_reason=None if ok else "requires_inference"))
    verified = [e.requirement_id for e, ok in zip(evs, verdicts, strict=True) if ok]
    sentences = [SentenceSupport(text=f"Claim [{rid}].", citations=[rid], supported=True) for rid in verified]
    answer = Answer(final_answer=" ".join(s.text for s in sentences), sentences=sentences, support_ratio=1.0,
                    grounding_confidence="medium")
    run = Run(run_id=run_id, question="What must the operator do?", document_ids=[doc.id], evidence=evs,
              verifications=vs, answer=answer)
    wb.store.save_run(run)
    return run


# --- documents ----------------------------------------------------------------------------------
def test_the_same_pdf_ingested_twice_is_one_stored_document(wb, make_pdf):
    pdf = make_pdf(PAGES)
    a = wb.ingest(pdf, source_type="policy")
    b = wb.ingest(pdf.read_bytes(), filename="copy.pdf", source_type="policy")
    assert a.id == b.id
    assert [d.id for d in wb.documents()] == [a.id]
    assert wb.document(a.id).source_type == "policy"
    assert wb.pdf_bytes(a.id) == pdf.read_bytes()


def test_ingest_refuses_an_unknown_source_type(wb, make_pdf):
    with pytest.raises(WorkbenchError, match="source type"):
        wb.ingest(make_pdf(PAGES), source_type="novel")


def test_parsed_document_is_rebuilt_from_stored_bytes_when_its_cache_file_is_corrupt(wb, make_pdf):
    doc = wb.ingest(make_pdf(PAGES))
    text = wb.parsed(doc.id).text
    [cache_file] = (wb.settings.data_dir / "parsed").glob(f"{doc.id}.*.json")
    cache_file.write_bytes(b"not a cache file")
    fresh = Workbench(wb.settings)  # a new process: empty memory cache
    assert fresh.parsed(doc.id).text == text
    assert fresh.parsed(doc.id) is fresh.parsed(doc.id)  # served from memory the second time
    cache_file.unlink()
    assert Workbench(wb.settings).parsed(doc.id).text == text
    assert cache_file.is_file()


# --- runs, re-verification ----------------------------------------------------------------------
def test_a_stored_run_re_verifies_cleanly_against_its_pdf(wb, make_pdf):
    run = make_run(wb, make_pdf(PAGES))
    loaded = wb.run(run.run_id)
    assert loaded.verifications == run.verifications
    statuses = wb.evidence_status(run.run_id)
    assert [s.hash_ok for s in statuses] == [True, True, True]
    assert [s.final_status for s in statuses] == ["supported", "supported", "unsupported"]
    assert [r.run_id for r in wb.runs()] == ["run-1"]


def test_a_run_whose_pdf_bytes_were_tampered_with_is_flagged_and_never_verified(wb, make_pdf):
    run = make_run(wb, make_pdf(PAGES))
    doc_id = run.document_ids[0]
    wb.review(run.run_id, run.evidence[0].requirement_id, "supported", "ann")
    original = wb.pdf_bytes(doc_id)
    tampered = original[:200] + bytes([original[200] ^ 0x20]) + original[201:]  # one byte changed
    assert tampered != original
    with wb.store.engine.begin() as conn:
        conn.execute(text("UPDATE documents SET pdf = :b WHERE id = :i"), {"b": tampered, "i": doc_id})
    loaded = Workbench(wb.settings).run(run.run_id)
    assert all(not v.verified and v.rejection_reason == "hash_mismatch" for v in loaded.verifications)
    statuses = wb.evidence_status(run.run_id)
    assert [s.hash_ok for s in statuses] == [False, False, False]
    assert statuses[0].human_label == "supported"  # still visible...
    assert [s.final_status for s in statuses] == ["unsupported"] * 3  # ...but never shown as verified
    assert wb.answer_view(run.run_id).grounding_confidence == "insufficient"


def test_a_quote_whose_stored_hash_no_longer_matches_the_pdf_text_is_flagged(wb, make_pdf):
    run = make_run(wb, make_pdf(PAGES))
    ev = run.evidence[1]
    bad = ev.model_copy(update={"span": ev.span.model_copy(update={"text_sha256": sha256_text("something else")})})
    wb.store.save_run(run.model_copy(update={"evidence": [run.evidence[0], bad, run.evidence[2]]}))
    statuses = {s.evidence.requirement_id: s for s in wb.evidence_status(run.run_id)}
    assert statuses[ev.requirement_id].hash_ok is False
    assert statuses[ev.requirement_id].verification.rejection_reason == "hash_mismatch"
    assert statuses[ev.requirement_id].final_status == "unsupported"
    assert statuses[run.evidence[0].requirement_id].hash_ok is True


# --- review -------------------------------------------------------------------------------------
def test_a_human_label_overrides_the_verifier_and_a_reset_gives_it_back(wb, make_pdf):
    run = make_run(wb, make_pdf(PAGES))
    rid = run.evidence[2].requirement_id  # the verifier rejected it
    ev = wb.review(run.run_id, rid, "supported", "  ann ", note="explicit requirement")
    assert (ev.reviewer, ev.verifier_verdict, ev.previous_label) == ("ann", "unsupported", None)
    s = next(x for x in wb.evidence_status(run.run_id) if x.evidence.requirement_id == rid)
    assert (s.verifier_verdict, s.human_label, s.final_status, s.reviewer, s.note) == (
        "unsupported", "supported", "supported", "ann", "explicit requirement")
    wb.review(run.run_id, rid, "reset", "bob")
    s = next(x for x in wb.evidence_status(run.run_id) if x.evidence.requirement_id == rid)
    assert (s.human_label, s.final_status) == (None, "unsupported")
    assert [(e.label, e.previous_label) for e in wb.history(run.run_id, rid)] == [("supported", None),
                                                                                  ("reset", "supported")]


def test_review_refuses_unknown_runs_unknown_ids_and_nameless_reviewers(wb, make_pdf):
    run = make_run(wb, make_pdf(PAGES))
    rid = run.evidence[0].requirement_id
    with pytest.raises(NotFoundError):
        wb.review("no-such-run", rid, "supported", "ann")
    with pytest.raises(NotFoundError, match="REQ-S999"):
        wb.review(run.run_id, "REQ-S999", "supported", "ann")
    with pytest.raises(NotFoundError, match="SENT-9"):
        wb.review(run.run_id, "SENT-9", "supported", "ann")
    with pytest.raises(ReviewerRequiredError, match="reviewer's name") as err:
        wb.review(run.run_id, rid, "supported", "   ")
    assert "--reviewer" not in str(err.value)  # the CLI adds its flag, the app its sidebar field
    with pytest.raises(WorkbenchError, match="label"):
        wb.review(run.run_id, rid, "maybe", "ann")
    with pytest.raises(NotFoundError):
        wb.history("no-such-run")
    with pytest.raises(NotFoundError, match="REQ-S999"):
        wb.history(run.run_id, "REQ-S999")
    assert wb.history(run.run_id) == []
    assert wb.history(run.run_id, rid) == []


def test_the_answer_is_recomposed_from_final_statuses(wb, make_pdf):
    run = make_run(wb, make_pdf(PAGES), verdicts=(True, True, True))
    before = wb.answer_view(run.run_id)
    assert (before.support_ratio, before.grounding_confidence) == (1.0, "medium")
    first, second, third = (e.requirement_id for e in run.evidence)
    ev = wb.review(run.run_id, first, "unsupported", "ann")
    after = wb.reviewed(run.run_id)
    # the sentence resting only on the rejected item is dropped; the rest stays supported
    assert [s.citations for s in after.answer.sentences] == [[second], [third]]
    assert all(s.supported for s in after.answer.sentences) and after.answer.support_ratio == 1.0
    assert after.answer.citation_coverage == 1.0  # both remaining supported IDs are cited
    assert after.answer.grounding_confidence == "medium"  # 2 supported items
    (rev,) = after.revisions
    assert (rev.triggered_by, rev.no_longer_citable, rev.dropped_sentences) == ([ev.id], [first], [f"Claim [{first}]."])
    assert after.machine_answer == run.answer  # the machine answer stays visible
    wb.review(run.run_id, "SENT-1", "unsupported", "ann")  # the first sentence a reader sees now
    last = wb.answer_view(run.run_id)
    assert [(s.citations, s.supported) for s in last.sentences] == [([second], False), ([third], True)]
    assert last.support_ratio == 0.5 and last.grounding_confidence == "medium"
    wb.review(run.run_id, third, "unsupported", "bob")
    last = wb.answer_view(run.run_id)
    assert [(s.citations, s.supported) for s in last.sentences] == [([second], False)]
    assert last.grounding_confidence == "low"  # one supported item, nothing of the answer supported
    assert len(wb.reviewed(run.run_id).revisions) == 2
    assert wb.run(run.run_id).answer == run.answer  # the stored answer itself is never rewritten


def test_metrics_per_run_and_overall(wb, make_pdf):
    pdf = make_pdf(PAGES)
    r1 = make_run(wb, pdf, "run-1", verdicts=(True, True, False))
    r2 = make_run(wb, pdf, "run-2", verdicts=(True, False))
    assert r2.evidence[0].requirement_id == r1.evidence[0].requirement_id  # same span, same ID
    wb.review("run-1", r1.evidence[0].requirement_id, "supported", "ann")
    wb.review("run-1", r1.evidence[2].requirement_id, "supported", "ann")
    wb.review("run-2", r2.evidence[1].requirement_id, "unsupported", "bob")
    m1 = wb.metrics("run-1")
    assert (m1.total, m1.reviewed, m1.overrides, m1.verified) == (3, 2, 1, 2)
    assert m1.confusion["unsupported"]["supported"] == 1
    assert m1.override_by_reason["requires_inference"]["rate"] == 1.0
    overall = wb.metrics()
    assert (overall.runs, overall.total, overall.reviewed, overall.overrides) == (2, 5, 3, 1)
    assert overall.reviewers == {"ann": 2, "bob": 1}
    assert [m.run_id for m in overall.per_run] == ["run-2", "run-1"]  # newest first
    assert [(m.total, m.reviewed) for m in overall.per_run] == [(2, 1), (3, 2)]
    with pytest.raises(NotFoundError):
        wb.metrics("no-such-run")


# --- CLI ----------------------------------------------------------------------------------------
def _cli(capsys, *argv: str) -> tuple[int, list[dict], str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines() if line.startswith("{")], err


def test_cli_show_review_history_and_metrics_round_trip(wb, make_pdf, capsys):
    run = make_run(wb, make_pdf(PAGES))
    rid = run.evidence[0].requirement_id
    code, rows, _ = _cli(capsys, "runs", "--json")
    assert code == 0 and [(r["run_id"], r["question"]) for r in rows] == [("run-1", run.question)]
    assert "created_at" in rows[0]

    code, shown, _ = _cli(capsys, "show", "run-1", "--json")
    assert code == 0 and len(shown) == 1
    req = shown[0]["extracted_requirements"][0]
    assert (req["requirement_id"], req["verifier_verdict"], req["human_label"], req["final_status"], req["hash_ok"]) \
        == (rid, "supported", None, "supported", True)

    code, _, _ = _cli(capsys, "review", "run-1", rid, "--label", "unsupported", "--reviewer", "ann", "--note", "n1")
    assert code == 0
    code, hist, _ = _cli(capsys, "history", "run-1", rid, "--json")
    assert code == 0
    assert [{k: h[k] for k in ("requirement_id", "label", "reviewer", "note", "previous_label", "verifier_verdict")}
            for h in hist] == [{"requirement_id": rid, "label": "unsupported", "reviewer": "ann", "note": "n1",
                                "previous_label": None, "verifier_verdict": "supported"}]
    assert hist[0]["timestamp"]
    _, shown, _ = _cli(capsys, "show", "run-1", "--json")
    req = shown[0]["extracted_requirements"][0]
    assert (req["human_label"], req["final_status"]) == ("unsupported", "unsupported")

    code, metrics, _ = _cli(capsys, "metrics", "run-1", "--json")
    assert code == 0 and (metrics[0]["reviewed"], metrics[0]["overrides"]) == (1, 1)
    code, metrics, _ = _cli(capsys, "metrics", "--json")
    assert code == 0 and metrics[0]["runs"] == 1 and len(metrics[0]["per_run"]) == 1


def test_cli_store_errors_are_one_line_and_exit_2(wb, make_pdf, capsys):
    make_run(wb, make_pdf(PAGES))
    for argv in (["show", "nope"], ["review", "nope", "REQ-S001", "--label", "supported", "--reviewer", "a"],
                 ["review", "run-1", "REQ-Z404", "--label", "supported", "--reviewer", "a"],
                 ["review", "run-1", "REQ-S001", "--label", "supported", "--reviewer", ""],
                 ["history", "nope"], ["metrics", "nope"]):
        code, _, err = _cli(capsys, *argv)
        assert code == 2, argv
        assert len(err.strip().splitlines()) == 1 and err.startswith("workbench: "), err
