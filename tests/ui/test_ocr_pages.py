"""The Documents page on a scan (issue 42): the pages read by OCR are named with the engine and
confidence, not called unreadable; the document list says which pages OCR read."""

from __future__ import annotations

import shutil

import pytest

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


def test_the_viewer_gets_each_ocr_words_confidence_and_born_digital_pages_keep_their_rows(
        ocr_workspace, data_dir, make_pdf, monkeypatch):
    """Issue 42: the viewer's words for a page OCR read carry each word's confidence (an 8th
    element, 0..1), the same figures the document's OCR record counts and averages, so the OCR
    text layer can mark the words OCR was unsure of; a born-digital page's rows stay 7 long. The
    viewer is told which pages OCR read, to offer its "OCR text" toggle only there."""
    from starlette.applications import Starlette
    from starlette.testclient import TestClient

    from workbench.config import Settings
    from workbench.service import Workbench
    from workbench.ui.viewer import routes
    from workbench.ui.viewer.component import viewer_documents

    wb, doc = ocr_workspace.wb, ocr_workspace.doc
    digital = Workbench(Settings(data_dir=data_dir, index_on_ingest=False))
    plain = digital.ingest(make_pdf(["The tenant shall pay rent monthly."], name="lease.pdf"), "lease.pdf")
    serving = {doc.id: wb, plain.id: digital}
    monkeypatch.setattr(routes, "_workbench", lambda: serving[current])
    monkeypatch.setattr(routes, "_sign_in", lambda: False)
    monkeypatch.setattr(routes, "_gate", None)
    client = TestClient(Starlette(routes=routes.ROUTES))
    low = wb.settings.ocr_low_confidence

    current = doc.id
    for read in wb.document(doc.id).ocr_pages:
        rows = client.get(f"{routes.WORDS_ROUTE}/{doc.id}/{read.page}").json()
        assert len(rows) == read.words > 0 and {len(r) for r in rows} == {8}
        read_words = [w.text for w in wb.parsed(doc.id).words_on(read.page)]
        assert [r[4] for r in rows] == read_words  # the same words, in the same order, as before
        confs = [w[7] for w in wb.page_words(doc.id, read.page)]
        assert all(0.0 <= c <= 1.0 for c in confs)
        assert sum(confs) / len(confs) == pytest.approx(read.mean_confidence, abs=1e-4)
        assert sum(c < low for c in confs) == read.low_confidence_words
        assert [r[7] for r in rows] == pytest.approx(confs, abs=5e-4)
    [viewed] = viewer_documents(wb, [doc.id])
    assert viewed.ocr_pages == [o.page for o in wb.document(doc.id).ocr_pages] == [1, 2]

    current = plain.id
    rows = client.get(f"{routes.WORDS_ROUTE}/{plain.id}/1").json()
    assert [r[4] for r in rows][:3] == ["The", "tenant", "shall"] and {len(r) for r in rows} == {7}
    assert viewer_documents(digital, [plain.id])[0].ocr_pages == []
    digital.store.dispose()
