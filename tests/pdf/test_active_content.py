"""Active content (issue 10, item 8): JavaScript, launch actions, embedded files and file
attachments are reported at ingest as a document warning (shown on the Documents page) and
left out of the annotated-PDF export, whose text and highlights stay as they are."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from workbench.pdf import open_pdf
from workbench.pdf.active import find, strip

TEXT = "The operator shall keep records of every change for three years."


def _base() -> tuple[pymupdf.Document, pymupdf.Page]:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 720), TEXT, fontsize=11, fontname="helv")
    page.insert_link({"kind": pymupdf.LINK_URI, "from": pymupdf.Rect(72, 700, 200, 720), "uri": "https://example.org/"})
    return doc, page


def _js_open_action(doc, page):
    doc.xref_set_key(doc.pdf_catalog(), "OpenAction", "<</S/JavaScript/JS(app.alert\\(1\\))>>")


def _js_name_tree(doc, page):
    action = doc.get_new_xref()
    doc.update_object(action, "<</S/Java#53cript/JS(app.launchURL\\('http://203.0.113.5/'\\))>>")  # #53 = S
    doc.xref_set_key(doc.pdf_catalog(), "Names", f"<</JavaScript <</Names[(a) {action} 0 R]>>>>")


def _js_page_open(doc, page):
    doc.xref_set_key(page.xref, "AA", "<</O <</S/JavaScript/JS(this.print\\(\\))>>>>")


def _launch(doc, page):
    page.insert_link({"kind": pymupdf.LINK_LAUNCH, "from": pymupdf.Rect(72, 600, 200, 620), "file": "calc.exe"})


def _embedded(doc, page):
    doc.embfile_add("payload.exe", b"MZ\x90\x00 not really a program", filename="payload.exe")


def _attachment(doc, page):
    page.add_file_annot(pymupdf.Point(300, 650), b"hello", "notes.txt")


KINDS = {
    "javascript (open action)": (_js_open_action, "JavaScript."),
    "javascript (name tree, escaped name)": (_js_name_tree, "JavaScript."),
    "javascript (page open action)": (_js_page_open, "JavaScript."),
    "launch": (_launch, "launch actions (they open other programs or files)."),
    "embedded file": (_embedded, "1 embedded file."),
    "attachment": (_attachment, "1 file attachment."),
}


def active_pdf(tmp_path: Path, *adders) -> Path:
    doc, page = _base()
    for add in adders:
        add(doc, page)
    path = tmp_path / "active.pdf"
    doc.save(path)
    return path


def test_a_plain_pdf_carries_nothing_and_gets_no_warning(tmp_path):
    path = active_pdf(tmp_path)
    with pymupdf.open(path) as doc:
        assert not find(doc)
    assert not [w for w in open_pdf(path).document.warnings if "active content" in w]


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_kind_is_a_document_warning_at_ingest(tmp_path, kind):
    add, says = KINDS[kind]
    warnings = open_pdf(active_pdf(tmp_path, add)).document.warnings
    assert [w for w in warnings if w.startswith(f"carries active content: {says}")], warnings
    assert any("the annotated PDF export leaves it out" in w for w in warnings)


def test_everything_at_once_is_one_warning_listing_each_kind(tmp_path):
    path = active_pdf(tmp_path, *(add for add, _ in KINDS.values()))
    (w,) = [w for w in open_pdf(path).document.warnings if "active content" in w]
    assert w.startswith("carries active content: JavaScript, launch actions (they open other programs or files), "
                        "1 embedded file and 1 file attachment.")


def test_strip_removes_every_kind_and_keeps_text_and_web_links(tmp_path):
    path = active_pdf(tmp_path, *(add for add, _ in KINDS.values()))
    doc = pymupdf.open(path)
    assert find(doc)
    strip(doc)
    out = pymupdf.open(stream=doc.tobytes(garbage=1, deflate=True), filetype="pdf")
    assert not find(out), find(out)
    assert TEXT in " ".join(out[0].get_text().split())
    assert [ln["uri"] for ln in out[0].get_links()] == ["https://example.org/"]


def test_the_annotated_export_leaves_active_content_out(tmp_path):
    from tests.export.conftest import evidence, load_pdf, make_bundle, status
    from workbench.export.annotated_pdf import to_annotated_pdf
    from workbench.export.bundle import RunBundle
    from workbench.models import Run

    pdf = load_pdf(active_pdf(tmp_path, *(add for add, _ in KINDS.values())))
    ev = evidence(pdf, "REQ-S001", TEXT)
    run = Run(run_id="r", question="q", document_ids=[pdf.document.id], evidence=[ev])
    data, media = to_annotated_pdf(make_bundle([pdf], [RunBundle(run=run, statuses=[status("r", ev, True)])]))
    out = pymupdf.open(stream=data, filetype="pdf")
    assert not find(out), find(out)
    assert [a.info["title"] for a in out[0].annots()] == ["REQ-S001"]  # the highlight stays; the attachment went
    for raw in (b"/S/JavaScript", b"/JS", b"/Launch", b"calc.exe", b"payload.exe", b"notes.txt", b"app.alert"):
        assert raw not in data  # what is left is "/JavaScript null": an entry that points nowhere
