"""Warnings about pages without text read as English: 'page 2 has', 'pages 2-3 have'."""

from __future__ import annotations

from workbench.pdf import open_pdf

TEXT = "The operator shall keep the audit log for at least ninety days after each inspection."


def test_one_page_without_text_is_named_in_the_singular(make_pdf):
    doc = open_pdf(make_pdf([TEXT, ""])).document
    assert doc.pages_without_text == [2]
    assert any(w.startswith("page 2 has no text layer") for w in doc.warnings), doc.warnings


def test_several_pages_without_text_are_a_range_in_the_plural(make_pdf):
    doc = open_pdf(make_pdf([TEXT, "", ""])).document
    assert any(w.startswith("pages 2-3 have no text layer") for w in doc.warnings), doc.warnings


def test_a_one_page_scan_says_page_1_not_pages_1(make_pdf):
    doc = open_pdf(make_pdf([""])).document
    assert any(w.startswith("no text layer on any page (scanned?): page 1;") for w in doc.warnings), doc.warnings
