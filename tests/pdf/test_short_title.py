"""A document's short title for naming it in a multi-document answer (issue 39): a short
bibliographic title, else the file name cleaned, the company as the document writes it."""

from __future__ import annotations

from workbench.models import Document
from workbench.pdf.short_title import from_filename, short_title, short_titles


def _doc(filename: str, title: str | None = None, id: str = "a") -> Document:
    return Document(id=id, filename=filename, title=title, pages=1, has_text_layer=True)


def test_an_edgar_exhibit_name_becomes_company_and_kind_as_the_text_writes_the_company():
    name = "ADAMSGOLFINC_03_21_2005-EX-10.17-ENDORSEMENT AGREEMENT.PDF"
    assert from_filename(name, "ENDORSEMENT AGREEMENT between ADAMS GOLF, LTD. and …") \
        == "Adams Golf Endorsement Agreement"
    assert from_filename("CANOPETROLEUM,INC_12_13_2007-EX-10.1-Sponsorship Agreement.PDF",
                         "Cano Petroleum, Inc. (\"Cano\")") == "Cano Petroleum Sponsorship Agreement"
    # the company not written in the text: its legal form dropped, split at case changes
    assert from_filename("AgapeAtpCorp_20191202_10-KA_EX-10.1_11911128_EX-10.1_Supply Agreement.pdf") \
        == "Agape Atp Supply Agreement"
    assert from_filename("ADUROBIOTECH,INC_06_02_2020-EX-10.7-CONSULTING AGREEMENT(1).PDF") \
        == "Adurobiotech Consulting Agreement"


def test_other_file_names_are_cleaned_and_hold_no_full_stop():
    assert from_filename("Array BioPharma Inc. - LICENSE, DEVELOPMENT AND COMMERCIALIZATION AGREEMENT.PDF") \
        == "Array BioPharma License, Development and Commercialization Agreement"
    assert from_filename("site_rules.v2.pdf") == "site rules v2"


def test_a_short_bibliographic_title_wins_cut_before_its_parties():
    doc = _doc("AtnInternationalInc_20191108_10-Q_EX-10.1_11878541_EX-10.1_Maintenance Agreement.pdf")
    bib = "Network Build and Maintenance Agreement Between Commnet Wireless, LLC And AT&T Mobility LLC"
    assert short_title(doc, "", bib) == "Network Build and Maintenance Agreement"
    assert short_title(_doc("x.pdf", "Microsoft Word - draft3.docx"), "") == "x"
    assert short_title(doc, "", "A" * 90).endswith("Maintenance Agreement")  # too long to be short


def test_two_documents_with_one_title_are_told_apart_by_their_files():
    titles = short_titles([(_doc("a.pdf", "Master Services Agreement", "1"), "", None),
                           (_doc("b.pdf", "Master Services Agreement", "2"), "", None)])
    assert titles == {"1": "Master Services Agreement (a)", "2": "Master Services Agreement (b)"}
