"""A page set in fonts that map their glyphs to no character gives symbols, not words: it is read
as a page without text, and the reviewer is told so, rather than quoting "(700;)&" for "(2003)."."""

from __future__ import annotations

from pathlib import Path

from workbench.config import Settings
from workbench.pdf import open_pdf

OCR_OFF = Settings.model_construct(ocr="off")

TAM = "pdfs/science/TAMReview_working-paper.pdf"  # pages 2-22 in Type 3 fonts without a Unicode map


def test_pages_whose_glyphs_map_to_no_character_are_read_as_without_text(corpus: Path):
    parsed = open_pdf(corpus / TAM, settings=OCR_OFF)  # tests/pdf/test_ocr.py reads such pages by OCR
    doc = parsed.document
    assert doc.pages_without_text == list(range(2, 23))
    assert doc.has_text_layer  # pages 1 and 23 read
    said = [w for w in doc.warnings if "map" in w]
    assert said and said[0].startswith("pages 2-22: the fonts map their letters to no characters"), doc.warnings
    assert not any("scanned?" in w for w in doc.warnings), doc.warnings  # not a scan: the fonts
    assert all(s.page in (1, 23) for s in parsed.segments())
    assert "(700;)&" not in parsed.text and "-.-D709&" not in parsed.text


def test_a_readable_page_beside_them_is_read_and_quoted(corpus: Path):
    parsed = open_pdf(corpus / TAM, settings=OCR_OFF)
    quote = "researchers share mixed opinions regarding its theoretical assumptions, and practical effectiveness."
    span = parsed.locate(quote)
    assert span is not None and span.page == 1


def test_an_outline_entry_named_after_a_file_names_no_section(corpus: Path):
    parsed = open_pdf(corpus / TAM)  # its outline: one entry, "htmldoc797.html"
    assert all(s.heading != "htmldoc797.html" for s in parsed.segments())
    assert parsed.heading_at(parsed.pages[0].end - 1) != "htmldoc797.html"
