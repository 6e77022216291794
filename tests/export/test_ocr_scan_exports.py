"""Exports of a run on a real scan (issue 42), end to end through the service: the 1974 typewritten
service kit, read by Tesseract at ingest (once per test session, tests/conftest.py's ocr_workspace).
The CSV, report and Web Annotation say which quotes OCR read; the annotated PDF is searchable and
copyable, its invisible text the words OCR read, where the page image shows them."""

from __future__ import annotations

import csv
import difflib
import io
import json
import shutil

import pymupdf
import pytest

from tests.conftest import CountingOcr, words_read_under
from workbench.export.bundle import ExportBundle

QUESTION = "What must be installed on aircraft AA1-0001 through AA1-0224 with this kit?"
QUOTE = "Spring Plunger Elimination Kit No. SK-107 (ordered separately) must be installed"


@pytest.fixture(scope="module")
def scan_run(ocr_workspace, tmp_path_factory):
    """A workspace holding the session's reading of the scan (so nothing is read again) and one
    run asked of it."""
    from workbench.config import Settings
    from workbench.service import Workbench

    data_dir = tmp_path_factory.mktemp("ocr-exports")
    cached = ocr_workspace.wb._parsed_cache.path(ocr_workspace.doc.id)
    (data_dir / "parsed").mkdir(parents=True)
    shutil.copy(cached, data_dir / "parsed" / cached.name)
    wb = Workbench(Settings(data_dir=data_dir, ocr_languages="eng", index_on_ingest=False))
    with CountingOcr() as counted:
        doc = wb.ingest(ocr_workspace.pdf)
        [run] = wb.ask([QUESTION], [doc.id])
    assert counted.pages == 0
    ocr_items = [e for e in run.evidence if e.span is not None and e.span.read_by_ocr]
    assert ocr_items, [e.exact_quote for e in run.evidence]
    yield wb, doc, run
    wb.store.dispose()


def test_csv_and_report_mark_each_quote_ocr_read_with_its_confidence(scan_run):
    wb, _doc, run = scan_run
    spans = {e.requirement_id: e.span for e in run.evidence if e.span is not None}
    rows = list(csv.DictReader(io.StringIO(wb.export([run.run_id], "csv").data.decode("utf-8"))))
    assert rows
    for r in rows:
        sp = spans.get(r["requirement_id"])
        if sp is not None:  # every located quote on this scan is what OCR read
            assert r["read_by_ocr"] == "True" and float(r["ocr_confidence"]) == sp.ocr_confidence
            assert float(r["ocr_min_confidence"]) == sp.ocr_min_confidence <= sp.ocr_confidence
    md = wb.export([run.run_id], "md", force=True, reason="test: the wording, not the gate", by="t").data.decode()
    first = next(sp for sp in spans.values())
    assert f"(read by OCR, confidence {first.ocr_confidence:.2f}, lowest word {first.ocr_min_confidence:.2f})" in md
    assert "Pages 1-2 read by OCR (tesseract " in md  # the bibliography entry of the scan
    annos = json.loads(wb.export([run.run_id], "webannotation").data)["first"]["items"]
    assert all({"type": "TextualBody", "purpose": "tagging", "value": "read-by-ocr"} in a["body"] for a in annos
               if any(s["type"] == "TextPositionSelector" for s in a["target"]["selector"]))


def test_the_annotated_pdf_of_a_scan_is_searchable_and_copyable_over_the_words_ocr_read(scan_run, ocr_reference):
    wb, doc, run = scan_run
    parsed = wb.parsed(doc.id)
    data = wb.export([run.run_id], "pdf").data
    with pymupdf.open(stream=wb.pdf_bytes(doc.id), filetype="pdf") as original:
        assert all(not page.get_text().strip() for page in original)  # a scan: no text of its own
    with pymupdf.open(stream=data, filetype="pdf") as out:
        for number in (1, 2):
            page = out[number - 1]
            read = [w.text for w in parsed.words_on(number)]
            got = page.get_text().split()  # what a reader copies out of the page
            same = difflib.SequenceMatcher(None, read, got, autojunk=False).ratio()
            assert same >= 0.98, (number, same, [d for d in difflib.ndiff(read, got) if d[0] in "+-"][:20])
        # a search for the quote finds it where the workbench's highlight is, over the words the image shows
        span = parsed.locate(QUOTE)
        assert span is not None and span.page == 1
        hits = out[0].search_for("Spring Plunger Elimination Kit")
        assert hits and any(pymupdf.Rect(h).intersects(pymupdf.Rect(r[1:])) for h in hits for r in span.rects)
        assert words_read_under(ocr_reference, [(1, *hits[0])]).split() == ["Spring", "Plunger", "Elimination", "Kit"]
        highlights = [a for page in out for a in page.annots() if a.type[1] == "Highlight"]
        assert len(highlights) >= len([e for e in run.evidence if e.span is not None and e.span.rects])


def test_only_pages_without_a_text_layer_of_their_own_get_the_ocr_layer(scan_run):
    """OCR forced on a born-digital page reads it again; its own text layer stays the only one."""
    _wb, doc, _run = scan_run
    bundle = ExportBundle(runs=[], documents={doc.id: doc.model_copy(update={"pages_without_text": [2]})},
                          ocr_words=lambda _d: {1: [(0, 0, 9, 9, "own", 0, 0)], 2: [(0, 0, 9, 9, "scan", 0, 0)]})
    assert list(bundle.ocr_layer(doc.id)) == [2]
    assert ExportBundle(runs=[], documents={doc.id: doc}).ocr_layer(doc.id) == {}  # no getter: no layer


def test_the_review_queue_puts_a_doubtful_ocr_quote_first_and_names_its_doubtful_words(scan_run):
    from workbench.service import Workbench

    wb, _doc, run = scan_run
    ocr = [e for e in run.evidence if e.span is not None and e.span.read_by_ocr]
    doubtful = min(ocr, key=lambda e: e.span.ocr_min_confidence)
    # the threshold just above this quote's least sure word: it, and any quote as doubtful, come first
    low = round(doubtful.span.ocr_min_confidence + 0.005, 3)
    strict = Workbench(wb.settings.model_copy(update={"ocr_low_confidence": low}))
    try:
        queue = strict.review_queue(run.run_id, "document")
        doubts = [s.evidence.span is not None and s.evidence.span.ocr_min_confidence is not None
                  and s.evidence.span.ocr_min_confidence < low for s in queue]
        assert doubts[0] and doubts == sorted(doubts, reverse=True)  # every doubtful quote before the rest
        reason = strict.review_first_reason(next(s for s in queue if s.evidence.requirement_id == doubtful.requirement_id))
        assert reason is not None and reason.startswith("Read by OCR with low confidence")
        parsed = strict.parsed(doubtful.document_id)
        named = parsed.ocr_doubts(doubtful.span.start, doubtful.span.end, low)
        assert named and f"“{named[0][0]}” {named[0][1]:.2f}" in reason
    finally:
        strict.store.dispose()

