"""From question to export with the real offline pipeline: every located evidence item gets
exactly one highlight per page over its words, and a reviewer's override flows into the
exports and the gate."""

from __future__ import annotations

import csv
import io
import json

import pymupdf
import pytest

from tests.export.conftest import PAGE_1, PAGE_2
from workbench.config import get_settings


@pytest.fixture
def asked(data_dir, make_pdf):
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    doc = wb.ingest(make_pdf([PAGE_1, PAGE_2], name="requirements.pdf"), source_type="policy")
    (run,) = wb.ask(["What must mobile devices do with controlled unclassified information?"], [doc.id])
    if not any(s.verifier_verdict == "supported" for s in wb.evidence_status(run.run_id)):
        pytest.fail(f"the rules pipeline verified nothing here: {run.answer.message}")
    return wb, run


def test_pipeline_run_exports_highlights_over_every_located_quote(asked):
    wb, run = asked
    data = wb.export([run.run_id], "pdf").data
    doc = pymupdf.open(stream=data, filetype="pdf")
    per_id: dict[str, list[str]] = {}
    for page in doc:
        for a in page.annots():
            pts = a.vertices
            rects = [pymupdf.Quad(*pts[i:i + 4]).rect for i in range(0, len(pts), 4)]
            per_id.setdefault(a.info["title"], []).extend(
                w[4] for w in page.get_text("words", sort=True)
                if any(r.x0 - 1 <= (w[0] + w[2]) / 2 <= r.x1 + 1 and r.y0 - 1 <= (w[1] + w[3]) / 2 <= r.y1 + 1
                       for r in rects))
    located = [e for e in run.evidence if e.span is not None]
    assert set(per_id) == {e.requirement_id for e in located}
    for e in located:
        assert per_id[e.requirement_id] == e.span.text.split()


def test_rejecting_every_verified_item_leaves_no_claim_and_shows_in_csv(asked):
    wb, run = asked
    verified = {v.requirement_id for v in run.verifications if v.verified}
    for rid in sorted(verified):
        wb.review(run.run_id, rid, "unsupported", "alice", "not what was asked")
    answer = wb.answer_view(run.run_id)
    assert answer.result == "NO_AUTHORITATIVE_EVIDENCE" and not answer.sentences  # nothing left to claim
    html = wb.export([run.run_id], "html").data.decode()  # the gate passes: the export claims nothing
    assert "NO_AUTHORITATIVE_EVIDENCE" in html or "No authoritative evidence" in html
    rows = list(csv.DictReader(io.StringIO(wb.export([run.run_id], "csv").data.decode())))
    assert {r["requirement_id"] for r in rows if r["human_label"] == "unsupported"} == verified
    trail = json.loads(wb.export([run.run_id], "json").data)
    assert trail["runs"][0]["human_overrides"]


def test_the_gate_follows_a_sentence_label_without_force(asked):
    from workbench.errors import ExportBlockedError

    wb, run = asked
    wb.export([run.run_id], "html")  # the machine answer passes
    wb.review(run.run_id, "SENT-1", "unsupported", "alice", "overstates the clause")
    with pytest.raises(ExportBlockedError) as err:
        wb.export([run.run_id], "html")
    assert any("sentence 1" in r for r in err.value.reasons)
    wb.review(run.run_id, "SENT-1", "reset", "alice")
    assert wb.export([run.run_id], "html").forced is None
