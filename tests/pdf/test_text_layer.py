"""The invisible text layer written on a scanned page (issue 42): a reader of the copy searches,
selects and copies the words OCR read, each where the page image shows it, and sees nothing new.

OCR here is simulated by a born-digital page's own words (text and boxes): a page image of it with
those words as its layer must give back the same words at the same places. Tesseract's reading of
a real scan is checked in tests/export/test_ocr_scan_exports.py."""

from __future__ import annotations

import pymupdf
import pytest

from workbench.pdf.text_layer import add_text_layer

TEXT = ("The Supplier shall deliver the “Goods” within thirty (30) days of the Purchase Order – "
        "Prüfdruck 10 bar. Either party may terminate this Agreement upon ninety days notice.")


def _text_page(rotation: int = 0) -> tuple[pymupdf.Document, list[tuple]]:
    """A born-digital page (with a Unicode font) and its words as OCR would give them:
    (x0, y0, x1, y1, text, block, line) in the unrotated page space."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_font(fontname="F0", fontbuffer=pymupdf.Font("cjk").buffer)
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 300), TEXT, fontsize=12, fontname="F0")
    page.set_rotation(rotation)
    words = [(w[0], w[1], w[2], w[3], w[4], w[5], w[6]) for w in page.get_text("words")]
    return doc, words


def _scan_of(doc: pymupdf.Document) -> pymupdf.Document:
    """The page as a scanner gives it: an image at 150 dpi, no text."""
    scan = pymupdf.open()
    src = doc[0]
    page = scan.new_page(width=src.mediabox.width, height=src.mediabox.height)
    page.set_rotation(src.rotation)
    pix = src.get_pixmap(dpi=150, colorspace=pymupdf.csGRAY)
    page.insert_image(page.rect, pixmap=pix)
    assert page.get_text().strip() == ""
    return scan


def _reopened(doc: pymupdf.Document) -> pymupdf.Document:
    return pymupdf.open(stream=doc.tobytes(garbage=1, deflate=True), filetype="pdf")


def test_the_words_ocr_read_come_back_as_the_page_text_in_reading_order():
    source, words = _text_page()
    scan = _scan_of(source)
    assert add_text_layer(scan[0], words) == len(words)
    out = _reopened(scan)[0]
    assert out.get_text().split() == [w[4] for w in words]
    assert " ".join(out.get_text().split()) == " ".join(TEXT.split())  # copied out as read: quotes, dash, umlaut


def test_each_word_lies_over_its_box_so_a_search_hit_lands_on_the_word_the_image_shows():
    source, words = _text_page()
    scan = _scan_of(source)
    add_text_layer(scan[0], words)
    out = _reopened(scan)[0]
    got = out.get_text("words")
    assert len(got) == len(words)
    for g, w in zip(got, words, strict=True):
        assert g[4] == w[4]
        assert g[0] == pytest.approx(w[0], abs=0.5) and g[2] == pytest.approx(w[2], abs=0.5)  # stretched to its width
        assert g[1] < (w[1] + w[3]) / 2 < g[3]  # on its line
    [hit] = out.search_for("terminate this Agreement")
    want = pymupdf.Rect(source[0].search_for("terminate this Agreement")[0])
    assert abs(hit.x0 - want.x0) < 1 and abs(hit.x1 - want.x1) < 1 and hit.intersects(want)


def test_the_layer_is_invisible_the_page_looks_exactly_as_scanned():
    source, words = _text_page()
    scan = _scan_of(source)
    before = scan[0].get_pixmap(dpi=72).samples
    add_text_layer(scan[0], words)
    assert _reopened(scan)[0].get_pixmap(dpi=72).samples == before


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_on_a_rotated_scan_the_words_run_as_the_reader_sees_them(rotation):
    source, words = _text_page(rotation)
    scan = _scan_of(source)
    add_text_layer(scan[0], words)
    out = _reopened(scan)[0]
    assert out.get_text().split() == [w[4] for w in words]
    for g, w in zip(out.get_text("words"), words, strict=True):
        shown, want = pymupdf.Rect(g[:4]) * out.rotation_matrix, pymupdf.Rect(w[:4]) * out.rotation_matrix
        assert shown.x0 == pytest.approx(want.x0, abs=0.5) and shown.x1 == pytest.approx(want.x1, abs=0.5)
        assert shown.y0 < (want.y0 + want.y1) / 2 < shown.y1


def test_one_font_serves_every_page_and_words_without_text_or_box_are_left_out():
    source, words = _text_page()
    scan = _scan_of(source)
    scan.insert_pdf(_scan_of(source))
    for page in scan:
        add_text_layer(page, words + [(10, 10, 10, 20, "zero-width", 99, 0), (10, 10, 50, 20, "  ", 99, 1)])
    out = _reopened(scan)
    fonts = {f[0] for page in out for f in page.get_fonts() if "WbOcrText" in f[4] or "Helvetica" in f[3]}
    assert len(fonts) == 1  # embedded once, ~33 KB, whatever the page count
    assert "zero-width" not in out[1].get_text()


@pytest.mark.parametrize("line", [
    # sideways margin text that OCR reads as one 'line' of words above one another
    [(574, 310, 595, 417, "Approved", 10, 0), (574, 191, 595, 288, "Engineering", 10, 0)],
    # a speck read as a word inside the box of the word before it (the 1974 scan's "hours, -")
    [(443.5, 631.0, 485.5, 639.6, "hours,", 16, 0), (481.0, 627.6, 486.5, 640.6, "-", 16, 0)],
])
def test_words_ocr_stacked_or_overlapped_stay_separate_words(line):
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    add_text_layer(page, line)
    assert sorted(_reopened(doc)[0].get_text().split()) == sorted(w[4] for w in line)
