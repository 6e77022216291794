"""The numbered sections read as a tree: a quote is labelled with the innermost titled section
that holds it, with its number, on the CUAD contracts whose labels were wrong."""

from __future__ import annotations

from pathlib import Path

from workbench.pdf.document import open_pdf
from workbench.pdf.structure import Section, build, label_changes

CUAD = "cuad/pdf"


def _label(doc, words: str) -> str | None:
    at = doc.text.find(words)
    assert at >= 0, words
    return doc.heading_at(at)


def test_an_untitled_clause_is_labelled_by_its_section_not_by_the_titled_sibling_before_it(corpus: Path):
    """"5.2 The Company shall have exclusive artistic …" sat under "5.1 URL." — no part of 5.1."""
    doc = open_pdf(corpus / CUAD / "AMERICASSHOPPINGMALLINC_12_10_1999-EX-10.2-SITE DEVELOPMENT AND HOSTING AGREEMENT.PDF")
    site = "5. Site\u037e Site Management."  # the PDF's ";" is U+037E
    assert _label(doc, "The Company shall have exclusive artistic") == site
    assert _label(doc, "The Company shall be deemed the") == site
    five = next(s for s in doc.sections() if s.number == "5.")
    assert (five.title, five.level) == (site[3:], 1)
    assert [s.number for s in doc.sections() if five.start < s.start < five.end] == ["5.1", "5.2", "5.3", "5.4"]


def test_section_numbers_in_the_margin_are_no_page_furniture(corpus: Path):
    """"2." beside "RELATIONSHIP OF THE PARTIES" repeats on many pages as a bare number: it was read
    as furniture, and §2 was labelled "1.6 Governing Law"."""
    doc = open_pdf(corpus / CUAD / "ASIANDRAGONGROUPINC_08_11_2005-EX-10.5-Reseller Agreement.PDF")
    assert _label(doc, "RELATIONSHIP OF THE PARTIES") == "2. RELATIONSHIP OF THE PARTIES"
    assert _label(doc, "Galaxy hereby appoints Telnet as a non-exclusive") == "2.1 Non-Exclusive Reseller"
    tops = [s.label for s in doc.sections() if s.level == 1][:4]
    assert tops == ["1. DEFINITIONS AND INTERPRETATION", "2. RELATIONSHIP OF THE PARTIES", "3. TELNET OBLIGATIONS",
                    "4. TELNET RECORDS"]


def test_a_list_numbered_inside_a_section_does_not_open_sections(corpus: Path):
    """Section 4's definitions "5. “Issuer-Represented …”", "6. …" are no Sections 5 and 6: the
    representations on p. 6 and p. 12 are still Section 4's."""
    doc = open_pdf(corpus / CUAD / "ATHENSBANCSHARESCORP_11_02_2009-EX-1.2-AGENCY AGREEMENT , 2009.PDF")
    four = "Section 4. Representations and Warranties of the Company and the Bank."
    assert _label(doc, "no person has sought to obtain") == four
    assert _label(doc, "subsidiaries maintain a system of internal") == four
    assert _label(doc, "Section 11. Survival of Agreements") .startswith("Section 11. Survival")


def test_the_testimonium_and_signatures_are_in_no_section(corpus: Path):
    doc = open_pdf(corpus / CUAD / "BerkshireHillsBancorpInc_20120809_10-Q_EX-10.16_7708169_EX-10.16_Endorsement Agreement.pdf")
    assert _label(doc, "IN WITNESS WHEREOF, the Parties execute") is None
    assert _label(doc, "shall mean banking, lending, financial") == "1. DEFINITIONS."


def test_untitled_numbered_paragraphs_are_named_by_their_number(corpus: Path):
    doc = open_pdf(corpus / CUAD / "NETGEAR,INC_04_21_2003-EX-10.16- AMENDMENT #2 TO THE DISTRIBUTION AGREEMENT.pdf")
    assert _label(doc, "The foregoing notwithstanding, during the") == "2."
    assert _label(doc, "THIS AMENDMENT (the") == "AMENDMENT #2 TO THE DISTRIBUTION AGREEMENT"


def test_the_tree_from_numbered_lines():
    """Run-in titles open sections, untitled clauses close their siblings, a numbering that
    does not go on is a list, a division closes everything."""
    text_end = 1000
    cands = [(0, 1, "1. Definitions", True), (10, 1, "1.1 “Affiliate” means any person", False),
             (20, 1, "2. Term", True), (30, 1, "2.1 Records; Inspection. Ono shall keep records.", False),
             (40, 1, "2.2 The Company shall pay.", False), (50, 1, "1. Year 1 $[*****] is payable", False),
             (60, 1, "3. Termination", True)]
    sections = build(cands, [70], text_end)
    assert [(s.number, s.label, s.start, s.end) for s in sections] == [
        ("1.", "1. Definitions", 0, 20), ("1.1", "", 10, 20), ("2.", "2. Term", 20, 60),
        ("2.1", "2.1 Records; Inspection.", 30, 40), ("2.2", "", 40, 60), ("3.", "3. Termination", 60, 70)]
    labels = {at: label for at, label, _titled in label_changes(sections)}
    assert labels[40] == "2. Term" and labels[70] is None
    assert isinstance(sections[0], Section)


def test_a_numbering_with_point_zero_sections_nests_its_clauses():
    """"1.0 Scope", "1.1 …", "2.0 Definitions", "2.1 …": N.0 is section N, so 2.0 goes on from 1.0
    and its clauses sit under it (read as key (2, 0) under no open "2", every section after 1.2 was
    refused and 1.2 held the rest of the contract)."""
    cands = [(0, 1, "1.0 Scope", True), (10, 1, "1.1 Scope of Agreement. Vendor shall build.", False),
             (20, 1, "1.2 Term of Agreement. The Term is five years.", False), (30, 1, "2.0 Definitions", True),
             (40, 1, "2.1 Affiliate. “Affiliate” means a Person.", False), (50, 2, "3.0 General Terms", True),
             (60, 2, "3.1 Amendments. No amendment is valid unless signed.", False)]
    sections = build(cands, [], 100)
    assert [(s.number, s.key, s.level, s.start, s.end) for s in sections] == [
        ("1.0", (1,), 1, 0, 30), ("1.1", (1, 1), 2, 10, 20), ("1.2", (1, 2), 2, 20, 30),
        ("2.0", (2,), 1, 30, 50), ("2.1", (2, 1), 2, 40, 50), ("3.0", (3,), 1, 50, 100), ("3.1", (3, 1), 2, 60, 100)]
    assert [s.label for s in sections if s.level == 1] == ["1.0 Scope", "2.0 Definitions", "3.0 General Terms"]
