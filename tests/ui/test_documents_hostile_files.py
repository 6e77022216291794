"""The Documents page on hostile files (issue 10): a PDF carrying JavaScript and attachments is
ingested with a warning that says so, and a page holding 2 M words is refused with a message
naming the page and the setting to raise."""

from __future__ import annotations

from tests.pdf.test_active_content import KINDS, ON_OPEN, active_pdf
from tests.pdf.test_text_limits import word_bomb
from tests.ui.test_pages import app, texts


def upload(at, name: str, data: bytes):
    at.run()
    at.file_uploader[0].set_value((name, data, "application/pdf")).run()
    next(b for b in at.button if b.label == "Ingest").click().run()
    assert not at.exception, at.exception
    return texts(at)


def test_active_content_is_a_warning_on_the_documents_page(data_dir, tmp_path):
    shown = upload(app(), "active.pdf", active_pdf(tmp_path, *(add for add, _ in KINDS.values())).read_bytes())
    assert "**active.pdf** ingested: 1 pages" in shown
    assert ("**active.pdf**: carries active content: JavaScript, launch actions (they open other programs or files), "
            f"{ON_OPEN}, 1 embedded file and 1 file attachment. The workbench never runs or opens it") in shown


def test_a_two_million_word_page_is_refused_naming_page_and_setting(data_dir):
    shown = upload(app(), "bomb.pdf", word_bomb(2_000_000))
    assert "page 1 shows at least" in shown and "WORKBENCH_MAX_PAGE_CHARS" in shown
    assert "ingested" not in shown
