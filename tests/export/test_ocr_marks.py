"""Every export that lists evidence says which quotes OCR read and how sure it was (issue 42): the
words of such a quote are what the machine read on a scan, and a reader of the CSV, the report, the
Web Annotation, the relabel set, the checked draft, the review table or the annotated PDF must know
that before relying on the wording. Quotes in the PDF's own text layer carry no such mark."""

from __future__ import annotations

import csv
import io
import json

import pymupdf
import pytest

from workbench.export.annotated_pdf import to_annotated_pdf
from workbench.export.bibliography import csl_items, to_bibtex
from workbench.export.csv_rows import to_csv
from workbench.export.relabel_jsonl import to_jsonl
from workbench.export.report import to_html, to_markdown
from workbench.export.web_annotation import to_webannotation
from workbench.models import OcrPage

SAID = "read by OCR, confidence 0.87, lowest word 0.41"


@pytest.fixture
def scanned(reviewed):
    """The `reviewed` bundle as if page 1 had been a scan read by OCR: S001 and S002 (page 1) are
    what OCR read, S003 (page 2) is the PDF's own text."""
    bundle, pdf = reviewed
    for st in bundle.runs[0].statuses:
        sp = st.evidence.span
        if sp.page == 1:
            st.evidence.span = sp.model_copy(update={"ocr_confidence": 0.8712, "ocr_min_confidence": 0.4075})
    doc = bundle.documents[pdf.document.id]
    bundle.documents[pdf.document.id] = doc.model_copy(update={
        "pages_without_text": [1], "ocr_pages": [OcrPage(page=1, engine="tesseract 5.3.0", languages="eng", words=41,
                                                         mean_confidence=0.91, low_confidence_words=2)]})
    return bundle, pdf


def test_csv_has_read_by_ocr_and_the_confidences_per_quote(scanned):
    bundle, _ = scanned
    rows = {r["requirement_id"]: r for r in csv.DictReader(io.StringIO(to_csv(bundle).decode("utf-8")))}
    assert (rows["REQ-S001"]["read_by_ocr"], rows["REQ-S001"]["ocr_confidence"],
            rows["REQ-S001"]["ocr_min_confidence"]) == ("True", "0.8712", "0.4075")
    assert (rows["REQ-S003"]["read_by_ocr"], rows["REQ-S003"]["ocr_confidence"],
            rows["REQ-S003"]["ocr_min_confidence"]) == ("False", "", "")
    header = next(csv.reader(io.StringIO(to_csv(bundle).decode("utf-8"))))
    assert header[header.index("text_sha256") + 1:header.index("text_sha256") + 4] == [
        "read_by_ocr", "ocr_confidence", "ocr_min_confidence"]


def test_the_report_says_read_by_ocr_beside_the_page_of_each_quote_ocr_read(scanned):
    bundle, _ = scanned
    md = to_markdown(bundle).decode("utf-8")
    [s1] = [ln for ln in md.splitlines() if "`REQ-S001`" in ln]
    [s3] = [ln for ln in md.splitlines() if "`REQ-S003`" in ln]
    assert f"p. 1 ({SAID}) — **supported**" in s1
    assert "read by OCR" not in s3
    # the bibliography names the pages OCR read
    assert "Page 1 read by OCR (tesseract 5.3.0, eng), confidence 0.91." in md
    html = to_html(bundle).decode("utf-8")
    [li] = [ln for ln in html.splitlines() if ln.startswith("<li id=") and "REQ-S001" in ln]
    assert f"p. 1 ({SAID}) —" in li


def test_web_annotation_tags_and_describes_a_quote_ocr_read(scanned):
    bundle, _ = scanned
    items = {a["id"].rsplit(":", 1)[1]: a for a in json.loads(to_webannotation(bundle))["first"]["items"]}
    bodies = items["REQ-S001"]["body"]
    assert {"type": "TextualBody", "purpose": "tagging", "value": "read-by-ocr"} in bodies
    assert {"type": "TextualBody", "purpose": "describing", "value": SAID, "format": "text/plain"} in bodies
    assert not [b for b in items["REQ-S003"]["body"] if "ocr" in b["value"].lower()]


def test_the_relabel_set_flags_evidence_ocr_read(scanned):
    bundle, _ = scanned
    lines = {d["requirement_id"]: d for d in map(json.loads, to_jsonl(bundle).decode().splitlines())}
    assert lines["REQ-S001"]["read_by_ocr"] is True and lines["REQ-S001"]["ocr_confidence"] == 0.8712


def test_bibtex_and_csl_notes_name_the_pages_ocr_read(scanned):
    bundle, pdf = scanned
    assert "page 1 read by OCR (tesseract 5.3.0, eng), confidence 0.91; pages cited: 1" in to_bibtex(bundle).decode()
    [item] = csl_items(bundle)
    assert "page 1 read by OCR" in item["note"]


def test_the_annotated_pdf_popup_says_the_quote_was_read_by_ocr(scanned):
    bundle, _ = scanned
    data, _media = to_annotated_pdf(bundle)
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        popups = {a.info["title"]: a.info["content"] for page in doc for a in page.annots()}
    assert popups["REQ-S001"].splitlines()[:2] == ["REQ-S001", SAID]
    assert "OCR" not in popups["REQ-S003"]


def test_the_checked_draft_names_the_ocr_reading_of_its_citations(scanned):
    from workbench.export.draft import render_draft
    from workbench.review import reviewed_run

    bundle, pdf = scanned
    rb = bundle.runs[0]
    run = rb.run.model_copy(update={"kind": "draft", "draft": rb.run.answer.final_answer,
                                    "evidence": [s.evidence for s in rb.statuses]})
    rr = reviewed_run(run, [])
    md = render_draft(rr, bundle.documents, "md")[0].decode()
    assert f"p. 1 ({SAID}), supported" in md
    data = json.loads(render_draft(rr, bundle.documents, "json")[0])
    cite = data["sentences"][0]["citations"][0]
    assert cite["read_by_ocr"] is True and cite["ocr_confidence"] == 0.8712


def test_a_review_table_citation_says_it_was_read_by_ocr(scanned):
    from workbench.export.table import cell_row
    from workbench.models import TableCell
    from workbench.table.short_answer import citation

    bundle, _ = scanned
    st = bundle.runs[0].statuses[0]
    c = citation(st)
    assert (c.ocr_confidence, c.ocr_min_confidence) == (0.8712, 0.4075)
    cell = TableCell(table_id="t", row_key="r", column_key="c", document_id=st.evidence.document_id, filename="scan.pdf",
                     question="q", citations=[c])
    assert f"[REQ-S001] p. 1 ({SAID}): “" in cell_row(cell)["citations"]
