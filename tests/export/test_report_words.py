"""Words in the reports and answers: timestamps to the second, one full stop, and missing
evidence named for the kind of document that was searched."""

from __future__ import annotations

import re

from workbench.config import get_settings
from workbench.export.report import to_html, to_markdown
from workbench.models import NO_AUTHORITATIVE_EVIDENCE


def test_reports_give_timestamps_to_the_second_and_no_double_full_stops(reviewed):
    bundle, pdf = reviewed
    bundle.documents[pdf.document.id] = pdf.document.model_copy(update={"title": "Security Requirements."})
    for text in (to_markdown(bundle).decode(), to_html(bundle).decode()):
        assert not re.search(r"\d\d:\d\d:\d\d\.\d+", text), "microseconds in a timestamp"
        assert re.search(r"Generated \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", text)
        assert ".." not in re.sub(r"\.\.\.|…", "", re.sub(r"<[^>]+>|\(#[^)]*\)|\S+\.pdf", "", text))


def test_missing_evidence_names_the_kind_of_document_searched(data_dir, make_pdf):
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    doc = wb.ingest(make_pdf(["This Agreement is made between the parties. Fees are due monthly."], name="c.pdf"),
                    "c.pdf", source_type="contract")
    (run,) = wb.ask(["What is the airspeed velocity of an unladen swallow?"], [doc.id])
    assert run.answer.result == NO_AUTHORITATIVE_EVIDENCE
    assert run.answer.missing_evidence[0].startswith("A passage in the contract that addresses:")
    assert not any("statute" in m for m in run.answer.missing_evidence)
