"""Ingest caps on text: a page or document holding more characters or words than Settings allows
is refused with a message naming the page and the setting, and a page whose content shows too
much text is refused before MuPDF extracts it (memory stays bounded: 2 M words used 2 GB)."""

from __future__ import annotations

import pymupdf
import pytest

from workbench.config import Settings
from workbench.errors import TooMuchTextError
from workbench.pdf import document as document_mod
from workbench.pdf import open_pdf


def word_bomb(words: int, per_line: int = 200, word: bytes = b"word") -> bytes:
    """One letter-size page whose compressed content shows `words` words (2 M in about 26 KB)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 72), "x", fontsize=1, fontname="helv")
    font = page.get_fonts()[0][4]
    line = b"(" + b" ".join([word] * per_line) + b") Tj T*\n"
    body = b"BT /" + font.encode() + b" 0.05 Tf 0.07 TL 10 780 Td\n" + line * (words // per_line) + b"ET\n"
    doc.update_stream(page.get_contents()[0], body)
    return doc.tobytes(garbage=3, deflate=True)


def form_bomb(calls: int) -> bytes:
    """A page drawing one Form XObject of 100 words `calls` times: little content, much text."""
    src = pymupdf.open()
    src.new_page(width=400, height=20).insert_text((5, 10), " ".join(["word"] * 100), fontsize=1)
    doc = pymupdf.open()
    page = doc.new_page()
    page.show_pdf_page(pymupdf.Rect(0, 0, 400, 20), src, 0)
    names = [name for _x, name, invoker, _b in page.get_xobjects() if invoker == 0]
    doc.update_stream(page.get_contents()[0], f"q /{names[0]} Do Q\n".encode() * calls)
    return doc.tobytes(garbage=3, deflate=True)


def _extraction_forbidden(monkeypatch):
    def refuse(page):
        raise AssertionError("the page was extracted before it was refused")

    monkeypatch.setattr(document_mod, "page_blocks", refuse)


def test_a_two_million_word_page_is_refused_before_it_is_extracted(monkeypatch):
    data = word_bomb(2_000_000)
    assert len(data) < 100_000
    _extraction_forbidden(monkeypatch)
    with pytest.raises(TooMuchTextError) as err:
        open_pdf(data, filename="bomb.pdf", settings=Settings())
    msg = str(err.value)
    assert msg.startswith("bomb.pdf: page 1 shows at least 2,4")
    assert "over the limit of 200,000 per page (WORKBENCH_MAX_PAGE_CHARS)" in msg
    assert msg.endswith("split the PDF, or raise the limit if the text is genuine")


def test_a_bomb_written_with_escapes_is_refused_before_extraction_too(monkeypatch):
    _extraction_forbidden(monkeypatch)  # "\\w\\o\\r\\d" shows "word": 8 raw bytes for 4 characters
    with pytest.raises(TooMuchTextError, match="page 1 shows at least"):
        open_pdf(word_bomb(400_000, word=rb"\w\o\r\d"), filename="escaped.pdf", settings=Settings())


@pytest.mark.parametrize(("content", "decoded"), [
    (b"BT (Hello) Tj [(W) 120 (orld)] TJ <48656c6c6f> Tj ET", 15),
    (rb"(\101\102) Tj", 2),  # octal escapes: one byte each
    (rb"(\a\(\)) Tj", 3),  # any other escape: one byte
    (b"(a\\\nb) Tj", 2),  # a backslash before a line break: none
    (b"(a(b)c) Tj", 5),  # balanced parentheses are characters
    (b"<< /MCID 3 >> BDC (ab) Tj EMC", 2),  # a dictionary is not a hex string
    (b"BI /W 4 /H 4 ID ((((binary)))) EI (ab) Tj", 2),  # inline image data is not text
])
def test_string_bytes_counts_what_the_strings_decode_to(content, decoded):
    from workbench.pdf.limits import string_bytes

    assert string_bytes(content) == decoded


def test_text_drawn_through_a_form_many_times_counts_every_time(monkeypatch):
    _extraction_forbidden(monkeypatch)
    with pytest.raises(TooMuchTextError, match=r"page 1 shows at least [\d,]+ characters, over the limit of 10,000"):
        open_pdf(form_bomb(200), filename="forms.pdf", settings=Settings(max_page_chars=10_000))


def test_a_page_over_the_word_cap_is_refused_naming_page_and_setting(make_pdf):
    path = make_pdf(["short first page", " ".join(["w"] * 300)])
    with pytest.raises(TooMuchTextError) as err:
        open_pdf(path, settings=Settings(max_page_words=200))
    assert str(err.value) == ("doc.pdf: page 2 holds 300 words, over the limit of 200 per page "
                              "(WORKBENCH_MAX_PAGE_WORDS): split the PDF, or raise the limit if the text is genuine")


def test_a_page_over_the_character_cap_after_extraction_is_refused(make_pdf):
    path = make_pdf([" ".join(["abcdefghij"] * 100)])  # 1,100 characters, under the pre-check's 4 × 300 bytes
    with pytest.raises(TooMuchTextError, match=r"page 1 holds 1,100 characters, over the limit of 300 per page"):
        open_pdf(path, settings=Settings(max_page_chars=300))


@pytest.mark.parametrize(("setting", "what"), [("max_document_words", "words"), ("max_document_chars", "characters")])
def test_the_document_caps_name_the_page_where_they_were_passed(make_pdf, setting, what):
    path = make_pdf([" ".join(["word"] * 40)] * 5)  # 40 words, 200 characters a page
    cap = 100 if what == "words" else 500
    with pytest.raises(TooMuchTextError, match=rf"doc.pdf holds more than {cap} {what} by page 3, over the limit per document"):
        open_pdf(path, settings=Settings(**{setting: cap}))


def test_documents_under_the_caps_open_as_before(make_pdf):
    doc = open_pdf(make_pdf(["one two three", "four five"]), settings=Settings(max_page_words=3, max_document_words=5))
    assert doc.text == "one two three\n\nfour five"


def test_the_caps_are_settings_with_descriptions(monkeypatch):
    monkeypatch.setenv("WORKBENCH_MAX_PAGE_WORDS", "123")
    assert Settings().max_page_words == 123
    for name in ("max_page_chars", "max_page_words", "max_document_chars", "max_document_words", "render_max_pixels"):
        assert Settings.model_fields[name].description
