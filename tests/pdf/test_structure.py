"""The numbered sections read as a tree: a quote is labelled with the innermost titled section
that holds it, with its number, on the CUAD contracts whose labels were wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.pdf.document import open_pdf
from workbench.pdf.structure import Section, build, label_changes, run_in_capitals, title_before_child

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


def test_roman_numbered_articles_are_one_numbering():
    """"I." and "II." were read as two numberings (the letter I against the numeral II): Buffalo
    Wild Wings' article I ran on to the signature page."""
    cands = [(0, 1, "I. APPOINTMENT AND FRANCHISE FEE", True), (10, 1, "II. TERM AND RENEWAL", True),
             (20, 1, "III. RESTAURANT AND LOCATION", True), (30, 2, "IV. TRAINING", True)]
    assert [s.label for s in build(cands, [], 100)] == [c[2] for c in cands]


def test_a_lettered_list_inside_a_numbered_section_is_its_items():
    """"A. GUARANTY." under "3. GUARANTY." is an item of section 3; a "B." whose "A." was no titled
    heading inside the section (a form's part B after items 1-4) still opens a section of its own."""
    items = build([(0, 1, "3. GUARANTY.", True), (10, 1, "A. GUARANTY.", True), (20, 1, "B. COVENANTS.", True),
                   (30, 1, "4. COVENANT NOT TO TRANSFER INTERESTS.", True)], [], 100)
    assert [(s.label, s.start, s.end) for s in items] == [("3. GUARANTY.", 0, 30),
                                                          ("4. COVENANT NOT TO TRANSFER INTERESTS.", 30, 100)]
    form = build([(0, 1, "1. Name", True), (10, 1, "2. Address", True), (20, 1, "B. Type of Request", True)], [], 100)
    assert [s.label for s in form][-1] == "B. Type of Request"
    # "16. MISCELLANEOUS. A. ADVERTISING. …" run into a line: "C. ARBITRATION." on its own is still its item
    misc = build([(0, 1, "16. MISCELLANEOUS.", True), (10, 1, "C. ARBITRATION.", True), (20, 1, "H. COUNTERPARTS.", True),
                  (30, 1, "0. SERVICES FOR OTHERS.", True)], [], 100)
    assert [(s.label, s.start, s.end) for s in misc] == [("16. MISCELLANEOUS.", 0, 100)]


HELD_OUT = [  # contracts of the held-out section-label set (bench/data/section_labels_heldout.tsv)
    ("BELLRINGBRANDS", "Each Party shall retain ownership of all Intellectual Property Rights",
     "4 Intellectual Property."),  # "4" in the margin beside its title
    ("BELLRINGBRANDS", "Any obligation of either Party under this Agreement", "10 Force Majeure."),
    ("BUFFALOWILDWINGS", "You covenant that during the term of this Agreement", "XV. COVENANTS"),  # "II." goes on from "I."
    ("BUFFALOWILDWINGS", "guaranty shall extend to all amounts you may now", "3. GUARANTY."),  # "A. GUARANTY." its item
    ("ASPIRITY", "The Contractor shall establish and maintain at all times",  # contents on pp. 2-5, not only p. 2
     "Section 3.02 Maintenance of Files and Records."),
]


@pytest.mark.parametrize(("contract", "words", "label"), HELD_OUT)
def test_section_labels_on_contracts_the_rules_were_not_written_for(corpus: Path, contract: str, words: str,
                                                                     label: str | None):
    doc = open_pdf(next((corpus / CUAD).glob(f"{contract}*")))
    assert doc.text.find(words) >= 0, words
    assert _label(doc, words) == label


def test_a_clause_run_into_the_middle_of_a_line_opens_a_section_only_as_the_next_number():
    """Text run together from lines ("… this Agreement. Section 3.2. Prior Written Approval. Prior
    to …") puts clauses inside lines: one opens a section where it is the next number (the open
    section's first child, or the next sibling), never a skip or a number with nothing open above."""
    cands = [(0, 1, "3. Use of the Permitted Activity.", True), (10, 1, "Section 3.1. Quality Control. It is good.", False),
             (20, 1, "Section 3.2. Prior Written Approval. Licensee shall submit.", False),
             (30, 1, "5.1 Other Terms. Licensee shall pay.", False),  # a skip: under no open 5
             (40, 1, "Section 3.5. Records. Licensee shall keep records.", False),  # 3.3 and 3.4 missing: a skip
             (50, 1, "4. Termination.", False)]
    sections = build(cands, [], 100, midline=frozenset({10, 20, 30, 40, 50}))
    assert [s.number for s in sections] == ["3.", "Section 3.1.", "Section 3.2.", "4."]
    assert [s.number for s in build(cands, [], 100)][-2:] == ["Section 3.5.", "4."]  # at line starts a skip is allowed


# (candidates as (text, heading), the labels of the sections opened)
TYPED = [
    # a typed underline after a title is a rule, not words; a heading that is only a rule opens nothing
    ([("2. Consumer Cost Description -------------------------", True), ("____________", True)],
     ["2. Consumer Cost Description"]),
    ([("9. Indemnity =========", True)], ["9. Indemnity"]),
    ([("10. Force Majeure - Acts of God", True)], ["10. Force Majeure - Acts of God"]),  # a dash inside stays
    # a doubled stop is a typing slip: 14 follows 13
    ([("13. Entire Agreement. This Agreement is the entire agreement.", False),
      ("14.. Notices. All notices shall be in writing.", False)], ["13. Entire Agreement.", "14.. Notices."]),
    # an untitled clause's next sibling is a clause too, whatever its verb
    ([("1. Section 2.2 of the Development Agreement is hereby amended.", False),
      ("2. Other than as expressly modified, all terms continue without modification.", False)], ["1.", "2."]),
    # a dash or colon between a heading's number and its title
    ([("ARTICLE 1 - DEFINITIONS", True), ("1.01 Definitions.", True), ("ARTICLE 2 - PROGRAM", True),
      ("2.02 Subcontracting.", True)], ["ARTICLE 1 - DEFINITIONS", "1.01 Definitions.", "ARTICLE 2 - PROGRAM",
                                        "2.02 Subcontracting."]),
    ([("Section 4: Fees", True)], ["Section 4: Fees"]),
    ([("ARTICLE I - MERCHANT SERVICES", True), ("1.1 APPOINTMENT AS AGENT.", True),
      ("ARTICLE II - AUTHORITY OF JOINT OFFICERS ------------", True), ("2.1 JOINT OFFICERS.", True)],
     ["ARTICLE I - MERCHANT SERVICES", "1.1 APPOINTMENT AS AGENT.", "ARTICLE II - AUTHORITY OF JOINT OFFICERS",
      "2.1 JOINT OFFICERS."]),  # roman numbers too, a typed underline after the title
    ([("5 - 10 units", True)], []),  # a range in a table is no heading
    # a division's designation after a page number is no section: section 1 opens after it
    ([("1 EXHIBIT 10.17", True), ("1. Product Concept and Creation.", True), ("2. Marketing.", True)],
     ["1. Product Concept and Creation.", "2. Marketing."]),
    ([("12. Exhibits and Schedules", True)], ["12. Exhibits and Schedules"]),  # a title about exhibits is one
    # ... but a first numbered phrase that states nothing is a list's entry
    ([("1. Development of the main pages.", False), ("2. Hosting of the site.", False)], []),
]


@pytest.mark.parametrize(("cands", "labels"), TYPED)
def test_typed_rules_stops_separators_designations_and_statement_siblings(cands, labels):
    sections = build([(10 * i, 1, text, heading) for i, (text, heading) in enumerate(cands)], [], 100)
    assert [s.label or s.number for s in sections] == labels


def test_the_testimonium_run_into_the_last_clause_ends_it(make_unicode_pdf):
    """"7. Either party may assign … IN WITNESS WHEREOF, the parties …" on one line: the signature
    block after it sat under "7."."""
    text = ("6. Notices. Notices go to the addresses above.\n"
            "7. Either party may assign this Agreement to an affiliate. IN WITNESS WHEREOF, the parties have "
            "executed this Amendment as of the date first written above.\n"
            "Cerus Corporation By: /s/ Jane Doe Title: Chief Executive Officer\n")
    doc = open_pdf(make_unicode_pdf([text]))
    assert _label(doc, "Either party may assign") == "7."
    assert _label(doc, "IN WITNESS WHEREOF") is None
    assert _label(doc, "Cerus Corporation By") is None


@pytest.mark.parametrize(("text", "label"), [
    ("ARTICLE 2 - ENTERPRISE NAME 2.1 The Joint Venture has been registered.", "ARTICLE 2 - ENTERPRISE NAME"),
    ("SECTION 3 COVENANTS OF THE COMPANY As a condition to receiving the Services, the Company shall pay.",
     "SECTION 3 COVENANTS OF THE COMPANY"),
    ("ARTICLE 19 - ASSIGNMENT BY HGF 19.1 During the term of this agreement, HGF may assign.", "ARTICLE 19 - ASSIGNMENT BY HGF"),
    ("ARTICLE IV - TERM", "ARTICLE IV - TERM"),
    ("ARTICLE II LICENSE GRANT AND RESTRICTIONS I. Licensee acknowledges the license.",
     "ARTICLE II LICENSE GRANT AND RESTRICTIONS"),  # the first item's mark after the title
    # a bare number: its title alone, before the first clause's number, or two words or more
    ("1. BACKGROUND 1.1 In the course of a research program, an invention was made.", "1. BACKGROUND"),
    ("3. GRANT", "3. GRANT"),
    ("9. INSPECTION AND LIMITATION OF LIABILITY Buyer shall inspect the goods.",
     "9. INSPECTION AND LIMITATION OF LIABILITY"),
    ("13.0 DANGEROUS GOODS 13.1 Carrier shall comply.", "13.0 DANGEROUS GOODS"),
    ("7.2 NON-EXCLUSIVITY Subject to the terms of this Agreement, Developer may work for others.", "7.2 NON-EXCLUSIVITY"),
    ("1.1 JHU has acquired all right, title and interest.", None),  # a sentence about JHU
    ("1.1 JHU The university has acquired all right.", None),  # one short word: an initialism, not a title
    ("1 OCTOBER 2019", None),  # a date, no number with a stop
    ("1. EXTENSION OF TERM: The first term is extended.", None),  # run_in_title reads the title to its colon
    ("15. DATA PROTECTION RULES PURSUANT TO REG.EU 679/2016 (GDPR) The parties agree.", None),
    # rejects: a clause set in capitals, a mixed-case cross-reference, a title with a verb
    ("SECTION 9 NOTWITHSTANDING ANYTHING TO THE CONTRARY IN THIS AGREEMENT, IN NO EVENT SHALL EITHER PARTY BE LIABLE.",
     None),
    ("Section 5 of the Agreement is amended as follows.", None),
    ("ARTICLE 7 SHALL SURVIVE TERMINATION. The parties agree.", None),
])
def test_a_heading_in_capitals_run_into_its_first_clause(text, label):
    run_in = run_in_capitals(text)
    assert (run_in[2] if run_in else None) == label


def test_a_run_in_heading_numbered_n_0_is_section_n():
    assert run_in_capitals("13.0 DANGEROUS GOODS 13.1 Carrier shall comply.")[:2] == ("13.0", (13,))
    assert run_in_capitals("ARTICLE XII INDEMNITY 12.1 Each party shall indemnify.")[:2] == ("ARTICLE XII", (12,))


def test_run_in_articles_open_sections_even_after_one_was_missed():
    """Text flattened from lines runs "ARTICLE N - TITLE" into the clause before it; one article
    missed (run on after "… SCHEDULE A.") must not close the door on every later one."""
    cands = [(0, 1, "ARTICLE 9 - OBLIGATIONS OF NVOS 9.1 NVOS shall fund the Company.", False),
             (10, 1, "ARTICLE 10 - OBLIGATIONS OF HGF 10.1 HGF shall farm.", False),
             (30, 1, "ARTICLE 12 - DIVIDEND DISTRIBUTIONS 12.1 The distribution will be annual.", False),
             (40, 1, "ARTICLE 13 - CURRENCY 13.1 All amounts are in US dollars.", False)]
    sections = build(cands, [], 100, midline=frozenset({10, 30, 40}))
    assert [s.label for s in sections if s.level == 1] == [
        "ARTICLE 9 - OBLIGATIONS OF NVOS", "ARTICLE 10 - OBLIGATIONS OF HGF", "ARTICLE 12 - DIVIDEND DISTRIBUTIONS",
        "ARTICLE 13 - CURRENCY"]
    assert {s.number for s in sections if s.level == 2} == {"9.1", "10.1", "12.1", "13.1"}  # each first clause too


@pytest.mark.parametrize(("text", "child"), [
    # a heading run into its first child: the child opens where its number stands, with its own title
    ("9. CONFIDENTIAL INFORMATION 9.1 Confidential Information. 9.1.1 All Confidential Information is secret.",
     "9.1 Confidential Information."),
    ("12. GENERAL PROVISIONS 12.1 Notices. Except for invoices, all notices are in writing.", "12.1 Notices."),
    ("5. Payment 5.1 Fees. Client will pay fees.", "5.1 Fees."),  # a title before its first child's number
])
def test_a_first_child_run_in_after_its_parents_title_opens_too(text, child):
    sections = build([(0, 1, text, False)], [], 200)
    [first] = [s for s in sections if s.level == 2]
    assert first.label == child and text[first.start:].startswith(child.split()[0])


@pytest.mark.parametrize(("key", "rest", "title"), [
    ((5,), "Payment 5.1 FEES AND EXPENSES Client will pay fees.", "Payment"),
    ((2,), "Co-operation procedure. 2.1. Sourcing and Purchase. Vertex shall buy.", "Co-operation procedure"),
    ((3,), "Delivery Schedule; Acceptance; Change Orders 3.1 DELIVERY SCHEDULE; MILESTONES", "Delivery Schedule; Acceptance; Change Orders"),
    ((5,), "Term 5.1.", "Term"),  # the sentence ends at the child's number: "5. Term 5.1. The term of …"
    ((4,), "Change Orders Sometimes during the term change orders are needed.", ""),  # no first child after it
    ((2,), "The Company shall pay within 2.1 days", ""),  # a statement, and "2.1" no child number
    ((6,), "Licensee must report 6.1 every quarter", ""),  # a lower-case verb: a clause
])
def test_a_title_ends_where_its_first_child_begins(key, rest, title):
    assert title_before_child(key, rest) == title


def test_a_heading_that_drops_its_siblings_stop_goes_on_from_them():
    """CHANGEPOINT numbers "1. DEFINITIONS." to "3. DELIVERY OF SOFTWARE." with a stop and "4 FEES."
    on without one: the same numbering, where a list inside a section would start again."""
    tree = build([(0, 1, "3. DELIVERY OF SOFTWARE.", True), (10, 1, "3.1 DELIVERY AND ACCEPTANCE.", True),
                  (20, 1, "4 FEES.", True), (30, 1, "4.1 LICENSE FEES.", True)], [], 100)
    assert [s.label for s in tree] == ["3. DELIVERY OF SOFTWARE.", "3.1 DELIVERY AND ACCEPTANCE.", "4 FEES.",
                                       "4.1 LICENSE FEES."]
    inside = build([(0, 1, "3. DELIVERY OF SOFTWARE.", True), (10, 1, "1 Hardware", True)], [], 100)
    assert [s.label for s in inside] == ["3. DELIVERY OF SOFTWARE."]  # no sibling it goes on from


@pytest.mark.parametrize(("text", "label"), [
    ("ARTICLE I. SCOPE OF STRATEGIC ALLIANCE. A. COOL TECH shall market its generators.",
     "ARTICLE I. SCOPE OF STRATEGIC ALLIANCE."),
    ("ARTICLE IV. Confidential Information. The parties acknowledge the obligations below.",
     "ARTICLE IV. Confidential Information."),
    ("Article in the press shall be reviewed by the parties.", None),  # no roman number
])
def test_a_labelled_roman_article_with_a_run_in_title(text, label):
    tree = build([(0, 1, text, False)], [], 100)
    assert (tree[0].label if tree else None) == label


@pytest.mark.parametrize(("cands", "labels"), [
    # top sections that print no heading of their own: each one's first child heading opens it
    ([(0, 1, "3.1 Term", True), (10, 1, "3.4 Termination for Convenience", True), (20, 1, "4.1 Charges", True),
      (30, 1, "4.2 Payment", True), (40, 1, "8.1 Indemnification by IBM", True), (50, 1, "14.18 Data Protection", True),
      (60, 1, "11.1 Services Support", True)],
     ["3.1 Term", "3.4 Termination for Convenience", "4.1 Charges", "4.2 Payment", "8.1 Indemnification by IBM",
      "11.1 Services Support"]),
    # ... but not a second child (14.18 above), a skip past SECTION_SKIP_MAX, nor a clause inside running text
    ([(0, 1, "3.1 Term", True), (10, 1, "9.1 Notices", True), (20, 1, "4.1 Charges.", False)], ["3.1 Term"]),
])
def test_a_first_child_heading_opens_the_next_top_section_that_printed_no_heading(cands, labels):
    assert [s.label for s in build(cands, [], 100)] == labels


@pytest.mark.parametrize(("cands", "labels"), [
    # a clause number typed against its title, the space lost, numbers it all the same
    ([(0, 1, "4. PRICING AND PAYMENT", True), (10, 1, "4.1Product Prices.", False),
      (20, 1, "4.3Fixtures and Tooling. With respect to all tooling …", False),
      (30, 1, "4.4ESTABLISHMENT Representations.", False)],
     ["4. PRICING AND PAYMENT", "4.1 Product Prices.", "4.3 Fixtures and Tooling.", "4.4 ESTABLISHMENT Representations."]),
    # not a single number ("4Taxes"), nor a word in lower case ("4.3percent of …"), nor one letter ("4.1A")
    ([(0, 1, "4. PRICING AND PAYMENT", True), (10, 1, "5Taxes.", False), (20, 1, "4.3percent of the price.", False),
      (30, 1, "4.1A The Company shall pay.", False)],
     ["4. PRICING AND PAYMENT"]),
])
def test_a_clause_number_glued_to_its_title(cands, labels):
    assert [s.label for s in build(cands, [], 100)] == labels
