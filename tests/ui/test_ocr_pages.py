"""The Documents page on a scan (issue 42): the pages read by OCR are named with the engine and
confidence, not called unreadable; the document list says which pages OCR read."""

from __future__ import annotations

import shutil

from tests.conftest import CountingOcr
from tests.ui.conftest import shown
from tests.ui.test_pages import app, on_page, texts


def test_an_uploaded_scan_says_its_pages_were_read_by_ocr_and_how_surely(data_dir, ocr_workspace, monkeypatch):
    monkeypatch.setenv("WORKBENCH_OCR_LANGUAGES", "eng")
    # The session's reading of this scan, as a workspace that read it before would hold it: not read again.
    cached = ocr_workspace.wb._parsed_cache.path(ocr_workspace.doc.id)
    (data_dir / "parsed").mkdir(parents=True, exist_ok=True)
    shutil.copy(cached, data_dir / "parsed" / cached.name)
    pdf = ocr_workspace.pdf
    at = app()
    at.run()
    at.file_uploader[0].set_value((pdf.name, pdf.read_bytes(), "application/pdf")).run()
    with CountingOcr() as counted:
        next(b for b in at.button if b.label == "Ingest").click().run()
    assert not at.exception, at.exception
    assert counted.pages == 0
    said = [i.value for i in at.info if "read by OCR" in i.value]
    assert said and "pages 1-2 read by OCR (tesseract" in said[0] and "confidence 0.9" in said[0], texts(at)
    assert not [w.value for w in at.warning if "without readable text" in w.value]
    table = at.dataframe[0].value
    assert table["OCR"].tolist() == ["1-2 (0.87)"]


def test_the_review_card_says_a_quote_was_read_by_ocr_and_how_surely(data_dir, ocr_workspace):
    """Issue 42's honesty: the quote on a scan is what OCR read; the reviewer sees it and how sure it was."""
    from workbench.config import get_settings
    from workbench.service import Workbench

    cached = ocr_workspace.wb._parsed_cache.path(ocr_workspace.doc.id)
    (data_dir / "parsed").mkdir(parents=True, exist_ok=True)
    shutil.copy(cached, data_dir / "parsed" / cached.name)
    wb = Workbench(get_settings())
    with CountingOcr() as counted:
        doc = wb.ingest(ocr_workspace.pdf)
        [run] = wb.ask(["What must be installed on aircraft AA1-0001 through AA1-0224 with this kit?"], [doc.id])
    assert counted.pages == 0
    ev = next(e for e in run.evidence if e.span is not None)
    assert ev.span.read_by_ocr
    wb.store.dispose()
    at = app(run=run.run_id, evidence=ev.requirement_id)
    on_page(at, "review")
    assert "read by OCR, confidence" in texts(at), texts(at)


def test_the_review_queue_opens_on_a_doubtful_ocr_quote_and_says_why(data_dir, ocr_workspace, monkeypatch):
    """Issue 42: a quote with a word OCR was unsure of leads the queue, and the card says why and
    which words to check against the page image."""
    from workbench.config import get_settings
    from workbench.service import Workbench

    monkeypatch.setenv("WORKBENCH_OCR_LOW_CONFIDENCE", "0.99")  # every quote on this scan has a word below it
    get_settings.cache_clear()
    cached = ocr_workspace.wb._parsed_cache.path(ocr_workspace.doc.id)
    (data_dir / "parsed").mkdir(parents=True, exist_ok=True)
    shutil.copy(cached, data_dir / "parsed" / cached.name)
    wb = Workbench(get_settings())
    with CountingOcr() as counted:
        doc = wb.ingest(ocr_workspace.pdf)
        [run] = wb.ask(["What must be installed on aircraft AA1-0001 through AA1-0224 with this kit?"], [doc.id])
    assert counted.pages == 0
    first = wb.review_queue(run.run_id)[0]
    assert wb.review_first_reason(first) is not None
    wb.store.dispose()
    at = app(run=run.run_id)
    on_page(at, "review")
    page = texts(at)
    assert "read by OCR with low confidence**, listed first" in page, page
    [why] = [shown(w.value) for w in at.warning if "Read by OCR with low confidence" in w.value]
    assert "below 0.99" in why and "Words read below it: “" in why
    assert f"**{first.evidence.requirement_id}**" in page  # the card shows the queue's first item
