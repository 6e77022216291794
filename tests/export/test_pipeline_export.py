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


@pytest.fixture
def asked(data_dir, make_pdf):
    from workbench.service import Workbench

    wb = Workbench()
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


def test_override_of_every_cited_item_blocks_the_report_and_shows_in_csv(asked):
    from workbench.errors import ExportBlockedError

    wb, run = asked
    cited = {c for s in run.answer.sentences for c in s.citations}
    assert cited, "the composed answer cites evidence"
    for rid in sorted(cited):
        wb.review(run.run_id, rid, "unsupported", "alice", "not what was asked")
    with pytest.raises(ExportBlockedError) as err:
        wb.export([run.run_id], "html")
    assert any("evidence coverage 0%" in r for r in err.value.reasons)
    rows = list(csv.DictReader(io.StringIO(wb.export([run.run_id], "csv").data.decode())))
    assert {r["requirement_id"] for r in rows if r["human_label"] == "unsupported"} == cited
    forced = json.loads(wb.export([run.run_id], "json", force=True, reason="send for second review", by="lead").data)
    assert forced["export"]["forced"]["reason"] == "send for second review"
    assert forced["runs"][0]["human_overrides"]
