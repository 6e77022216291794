"""Printed page labels: the page number an auditor reads on paper, beside the PDF position."""

from __future__ import annotations

import pymupdf

from workbench.models import cite_page
from workbench.pdf import open_pdf
from workbench.pdf.labels import roman_value

BODY = "The contractor shall keep records of every shipment for seven years. " * 6


def test_nist_sp_800_171_has_no_pdf_labels_and_gets_the_printed_folio_from_its_footer(corpus):
    pdf = corpus / "pdfs/regulatory/NIST.SP.800-171r2.pdf"
    with pymupdf.open(pdf) as doc:
        assert not doc.get_page_labels()  # the point of this case: the folio must be read from the page
    parsed = open_pdf(pdf)
    labels = parsed.page_labels
    assert labels[39] == "28"  # PDF page 40 is printed "CHAPTER THREE PAGE 28"
    assert labels[5] == "iv"  # front matter in roman numerals: "PAGE iv"
    assert labels[112] == "101"
    assert labels[0] == ""  # the cover has no folio
    span = parsed.locate("Limit system access to authorized users")
    assert span is not None and span.page_label == parsed.page_labels[span.page - 1] != ""


def test_pdf_page_labels_win_and_a_hex_prefix_is_decoded(corpus):
    parsed = open_pdf(corpus / "pdfs/regulatory/WHO-HCV-guidelines-2022.pdf")
    assert parsed.page_labels[:3] == ["C1", "i", "ii"]  # the PDF says prefix <FEFF0043> = "C"
    assert parsed.page_labels[39] == "15"


def test_a_book_whose_folio_offset_shifts_is_labelled_page_by_page(corpus):
    parsed = open_pdf(corpus / "pdfs/large/freeculture_Lessig.pdf")
    assert parsed.page_labels[19] == "4"  # "4 FREE CULTURE" on a verso page
    assert parsed.page_labels[40] == "27"  # "“PIRACY” 27": offset changed after inserted pages


def test_a_contract_without_folios_gets_no_invented_labels(corpus):
    parsed = open_pdf(corpus / "pdfs/contract/CUAD_CERES-Collaboration-Agreement.pdf")
    assert not any(parsed.page_labels)  # numbers in tables are not page numbers


def _book(front: int, body: int) -> bytes:
    """`front` unnumbered pages, then `body` pages with "Page 1", "Page 2", ... in the footer."""
    doc = pymupdf.open()
    for i in range(front + body):
        page = doc.new_page(width=612, height=792)
        page.insert_textbox(pymupdf.Rect(72, 72, 540, 720), "Cover" if i < front else BODY, fontsize=11)
        if i >= front:
            page.insert_text((280, 770), f"Page {i - front + 1}", fontsize=9)
    assert not doc.get_page_labels()
    return doc.tobytes()


def test_footer_folios_with_an_offset_label_pages_and_spans():
    assert open_pdf(_book(0, 7)).page_labels == [str(n) for n in range(1, 8)]
    parsed = open_pdf(_book(2, 7))
    assert parsed.page_labels == ["", ""] + [str(n) for n in range(1, 8)]
    span = parsed.locate("keep records of every shipment")
    assert (span.page, span.page_label) == (3, "1")
    assert span.cite == "p. 1 (PDF p. 3)"


def test_two_pages_with_numbers_are_not_enough_to_call_them_folios():
    assert not any(open_pdf(_book(3, 2)).page_labels)


def test_without_folios_a_span_cites_the_pdf_page(make_pdf):
    parsed = open_pdf(make_pdf([BODY, BODY]))
    assert parsed.page_labels == ["", ""]
    span = parsed.locate("keep records of every shipment")
    assert span.page_label is None and span.cite == "p. 1"


def test_cite_page_and_roman_numerals():
    assert cite_page(40, "28") == "p. 28 (PDF p. 40)"
    assert cite_page(3, "3") == "p. 3"
    assert cite_page(3, None) == "p. 3"
    assert [roman_value(s) for s in ("iv", "ix", "XIV", "mcm", "iiii", "abc")] == [4, 9, 14, 1900, None, None]
