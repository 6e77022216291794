"""Segmentation: sentences and headings, never a heading glued to the sentence after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.pdf import open_pdf
from workbench.pdf.segment import _goes_on

CONTRACT = (
    "ARTICLE 1\nDEFINITIONS\n\n"
    "1.1 Affiliate. Affiliate means any entity that controls a Party. Control means ownership of more than "
    "fifty percent of the voting shares of Acme Inc. or of its U.S. subsidiary.\n\n"
    "ARTICLE 2\nTERM AND TERMINATION\n\n"
    "This Agreement starts on the Effective Date. Either Party may terminate it on ninety days notice."
)


def test_headings_are_their_own_segments_and_never_glued_to_the_next_sentence(make_pdf):
    doc = open_pdf(make_pdf([CONTRACT]))
    segs = doc.segments()
    headings = [" ".join(h.text.split()) for h in doc.headings()]
    assert headings == ["ARTICLE 1 DEFINITIONS", "1.1 Affiliate.", "ARTICLE 2 TERM AND TERMINATION"]
    for s in segs:
        if s.kind == "sentence":
            assert "ARTICLE" not in s.text and "DEFINITIONS" not in s.text
    sentences = [" ".join(s.text.split()) for s in segs if s.kind == "sentence"]
    assert sentences == [
        "Affiliate means any entity that controls a Party.",
        "Control means ownership of more than fifty percent of the voting shares of Acme Inc. or of its U.S. subsidiary.",
        "This Agreement starts on the Effective Date.",
        "Either Party may terminate it on ninety days notice.",
    ]


def test_segments_index_the_text_and_carry_their_heading(make_pdf):
    doc = open_pdf(make_pdf([CONTRACT]))
    for s in doc.segments():
        assert doc.text[s.start:s.end] == s.text and s.page == 1
    last = doc.segments()[-1]
    assert " ".join((last.heading or "").split()) == "ARTICLE 2 TERM AND TERMINATION"
    assert " ".join((doc.heading_at(last.start) or "").split()) == "ARTICLE 2 TERM AND TERMINATION"
    assert doc.heading_at(0) is None or doc.heading_at(0).startswith("ARTICLE 1")


def test_larger_font_line_is_a_heading(tmp_path: Path):
    import pymupdf

    pdf = pymupdf.open()
    page = pdf.new_page()
    page.insert_text((72, 80), "Scope of the guidance", fontsize=16)
    page.insert_textbox(pymupdf.Rect(72, 100, 540, 400), "This guidance applies to all operators. It replaces the "
                        "2019 edition.", fontsize=10)
    path = tmp_path / "h.pdf"
    pdf.save(path)
    doc = open_pdf(path)
    assert [h.text for h in doc.headings()] == ["Scope of the guidance"]
    assert [s.text for s in doc.segments() if s.kind == "sentence"][0] == "This guidance applies to all operators."


def test_running_headers_are_not_segments(make_unicode_pdf):
    things = ["records", "logs", "manuals", "checklists", "invoices"]
    bodies = [f"Operators shall keep {t}. The {t} are kept for years." for t in things]
    doc = open_pdf(make_unicode_pdf(bodies, header="ACME Manual – Confidential", footer="Page {n}"))
    assert "ACME Manual" in doc.text
    assert not any("ACME" in s.text or "Page" in s.text for s in doc.segments())
    assert [s.text for s in doc.segments()][:2] == ["Operators shall keep records.", "The records are kept for years."]
    assert len(doc.segments()) == 10


def test_rotated_side_text_is_neither_heading_nor_repeated_segment(corpus: Path):
    doc = open_pdf(corpus / "pdfs/regulatory/NIST.SP.800-171r2.pdf")
    assert "available free of charge" in doc.text  # kept in the text, skipped as page furniture
    assert not any("available free of charge" in h.text for h in doc.headings())
    assert sum("available free of charge" in s.text for s in doc.segments()) <= 3  # it stands beside nearly every page


def test_same_size_title_case_headings_of_a_three_column_rule(corpus: Path):
    doc = open_pdf(corpus / "pdfs/regulatory/fedreg-2020-17221_FAA-AD-Boeing737MAX-NPRM.pdf")
    titles = [h.text for h in doc.headings()]
    for expected in ("Background", "Proposed Design Changes", "Emergency Order of Prohibition", "Costs of Compliance"):
        assert expected in titles
    start = next(h.start for h in doc.headings() if h.text == "Emergency Order of Prohibition")
    after = next(s for s in doc.segments() if s.start > start)
    assert after.kind == "sentence" and after.text.startswith("On March 13, 2019")


def test_body_lines_are_no_headings_when_tables_of_small_print_outnumber_them(corpus: Path):
    """The IRS instructions end in tax tables: many short lines in small print. Measured per line,
    the body's own size read as a heading's and 764 body lines were headings ("21. Use Form 8812
    to see if you can", "AGI is less than $63,000 …"); measured per character it is the body."""
    doc = open_pdf(corpus / "pdfs/regulatory/i1040nr_IRS-instructions.pdf")
    titles = [" ".join(h.text.split()) for h in doc.headings()]
    for expected in ("Who Must File", "When To File", "Where To File", "Green Card Test"):
        assert expected in titles
    assert not any(t.startswith(("21. Use Form 8812", "AGI is less than")) for t in titles)
    assert not any(t.startswith("\u2022") for t in titles)  # a bullet's taller glyph is no heading's size
    assert len(titles) < 200


def test_article_label_and_title_on_separate_blocks_make_one_heading(corpus: Path):
    pdf = next((corpus / "cuad" / "pdf").glob("AimmuneTherapeuticsInc_20200205*"))
    heads = [h.heading for h in open_pdf(pdf).headings()]
    assert "ARTICLE 2 LICENSES" in heads and "2.4 Restrictive Covenants." in heads


def test_a_section_number_on_its_own_line_heads_the_title_below_it(corpus: Path):
    """Goosehead's "2" / "TERM AND RENEWAL" sit inside a body block with no outline: the number and
    its title are one numbered heading, and run-in headings mid-block ("1.4 Limits on …") count."""
    doc = open_pdf(corpus / "pdfs/contract/CUAD_GOOSEHEAD-Franchise-Agreement.pdf")
    heads = [h.heading for h in doc.headings()]
    assert "2 TERM AND RENEWAL" in heads and "1.4 Limits on Where You May Operate." in heads
    term = _seg_with(doc, "will expire ten (10) years from the Effective Date")
    assert term.heading == "2.1 Term." and term.text.startswith("The term of this Agreement")
    item = _seg_with(doc, "You agree to give us written notice of your choice to renew")
    assert item.text.startswith("2.2.1") and item.kind == "sentence"  # a clause number stays with its clause


def test_every_segment_has_something_to_quote(make_unicode_pdf):
    doc = open_pdf(make_unicode_pdf(["The royalty is [***]. [***]. • The term is five years."]))
    texts = [s.text for s in doc.segments()]
    assert texts == ["The royalty is [***].", "The term is five years."]
    assert all(doc.locate(t) is not None for t in texts)


def _seg_with(doc, words: str):
    return next(s for s in doc.segments() if words in " ".join(s.text.split()))


def test_a_sentence_cut_by_a_page_break_is_one_segment_over_both_pages(corpus: Path):
    doc = open_pdf(corpus / "pdfs/contract/CUAD_GOOSEHEAD-Franchise-Agreement.pdf")
    seg = _seg_with(doc, "would not be enforced as written under")
    said = " ".join(seg.text.split())
    assert said.endswith("Texas law, then the parties agree that those covenants will instead be interpreted and "
                         "construed under the laws of the state in which the Franchised Business is located.")
    assert "Page 55 of 80" in said  # the text is the document's own, offsets index it
    assert not any(" ".join(s.text.split()).startswith("Texas law, then") for s in doc.segments())
    span = doc.span(seg.start, seg.end)
    assert len(span.pages) == 2 and span.text == seg.text


def test_a_rule_drawn_in_text_under_the_running_header_does_not_cut_a_sentence(corpus: Path):
    """NIST SP 800-171 draws a line of underscores under its running header: between the halves of
    a sentence over a page break, it kept them apart ("… established by the" | "organization")."""
    doc = open_pdf(corpus / "pdfs/regulatory/NIST.SP.800-171r2.pdf")
    from workbench.pipeline.compose import statement

    seg = _seg_with(doc, "automatic lockouts initiated by systems are")
    assert seg.text.rstrip().endswith("organization (i.e., a delay algorithm).")
    assert doc.span(seg.start, seg.end).pages == [24, 25]
    assert statement(seg.text).endswith("release after a predetermined period established by the organization "
                                        "(i.e., a delay algorithm)")  # the answer leaves header and rule out
    # a bullet between is no rule: a lead-in and its first bulleted item stay apart
    fips = open_pdf(corpus / "pdfs/regulatory/NIST.FIPS.201-2.pdf")
    assert _seg_with(fips, "Incorporation of security features shall").text.rstrip().endswith("shall—")


def test_a_sentence_cut_by_a_column_break_is_one_segment(corpus: Path):
    doc = open_pdf(corpus / "pdfs/regulatory/WHO-HCV-guidelines-2022.pdf")
    seg = _seg_with(doc, "However, effective linkage to hepatitis care")
    assert " ".join(seg.text.split()).startswith("However, effective linkage to hepatitis care and treatment following")


def test_a_list_item_ending_in_and_is_not_joined_to_the_next_item(corpus: Path):
    doc = open_pdf(corpus / "pdfs/contract/CUAD_GOOSEHEAD-Franchise-Agreement.pdf")
    seg = _seg_with(doc, "in addition to licenses we may have already granted to existing franchisees")
    assert seg.text.rstrip().endswith("and") and "To develop and establish other systems" not in seg.text  # ";" is U+037E


def test_an_unnumbered_run_in_heading_is_not_glued_to_its_paragraph(corpus: Path):
    doc = open_pdf(corpus / "pdfs/science/Qwen2-technical-report_arXiv2407.10671.pdf")
    seg = _seg_with(doc, "To expand the context window of Qwen2")
    assert " ".join(seg.text.split()).startswith("To expand the context window of Qwen2, we implement")
    assert "Dual Chunk Attention with YARN" in [" ".join(h.text.split()) for h in doc.headings()]


def test_run_in_labels_are_told_from_titles_and_item_numbers():
    from workbench.pdf.segment import run_in_label

    label = "Dual Chunk Attention with YARN To expand the context window of Qwen2, we implement DCA."
    assert label[:run_in_label(label)] == "Dual Chunk Attention with YARN"
    for whole in ["Secure Your Tax Records from Identity Theft and keep them.",  # a title in title case
                  "5.6.1 You agree to employ a qualified, licensed architect or engineer.",  # an item's number
                  "The Licensee shall pay the fee within thirty days of the invoice.",  # a sentence
                  "Exhibit A The parties agree to the terms set out below in full."]:  # a letter, not a label
        assert run_in_label(whole) == 0, whole


def test_a_typesetting_slug_of_many_pieces_on_one_row_is_page_furniture(corpus: Path):
    """The Federal Register prints a slug of nine pieces on one baseline at each page's foot
    ("VerDate Sep<11>2014", "Jkt 250001", "Frm 00003", …). Counting the edge's lines instead of its
    rows kept six pieces as text, and the next page's running header then opened an answer's quote:
    "No. 152 / Thursday, August 6, 2020 / Proposed Rules require operators to conduct …"."""
    doc = open_pdf(corpus / "pdfs/regulatory/fedreg-2020-17221_FAA-AD-Boeing737MAX-NPRM.pdf")
    opening = [s for s in doc.segments() if "require operators to conduct an AOA" in s.text]
    assert opening and all("Proposed Rules" not in s.text and "Jkt" not in s.text for s in opening)
    slug = [doc.text[ln.start:ln.end] for i, ln in enumerate(doc.lines) if ln.page == 3 and i not in doc.furniture]
    assert not any(t.startswith(("Jkt", "Frm", "Sfmt", "E:\\FR")) for t in slug)


def test_a_paragraphs_first_line_that_looks_like_a_numbered_heading_is_body(corpus: Path):
    """"Title 49 of the United States Code" opens a paragraph of the FAA rule and goes on in lower
    case ("specifies the FAA's authority …"): read as a numbered heading, it named the section of
    the rest of the rule, the AD's own paragraphs on page 14 included. A sentence goes on; a
    heading does not. The contents' "GLOSSARY" / "xii" of the WHO guideline stays a heading."""
    doc = open_pdf(corpus / "pdfs/regulatory/fedreg-2020-17221_FAA-AD-Boeing737MAX-NPRM.pdf")
    assert "Title 49 of the United States Code" not in [h.text.strip() for h in doc.headings()]
    [sentence] = [s for s in doc.segments() if s.text.startswith("Title 49 of the United States Code")]
    assert sentence.kind == "sentence" and "specifies the FAA" in sentence.text
    item = next(s for s in doc.segments() if s.text.startswith("(1) Before further flight"))
    assert item.heading == "PART 39—AIRWORTHINESS DIRECTIVES"
    who = open_pdf(corpus / "pdfs/regulatory/WHO-HCV-guidelines-2022.pdf")
    assert [h.page for h in who.headings() if h.text.strip() == "GLOSSARY"] == [4, 13]


def test_a_clause_set_in_capitals_is_one_sentence_not_a_heading(corpus: Path):
    """Disclaimers and limitations of liability are set in capitals. Read as headings, their first
    lines cut the clause in two: "4.3 LIMITATION OF LIABILITY. EXCEPT FOR … IN NO EVENT SHALL PIVX'S"
    was a heading and the liability cap began mid-sentence. A run-in title stays the heading."""
    pivx = open_pdf(next((corpus / "cuad" / "pdf").glob("ADIANUTRITION*")))
    assert "4.3 LIMITATION OF LIABILITY." in [" ".join(h.text.split()) for h in pivx.headings()]
    cap = _seg_with(pivx, "EXCEPT FOR PIVX'S OBLIGATIONS UNDER SECTION 4.2")
    assert cap.kind == "sentence" and cap.heading == "4.3 LIMITATION OF LIABILITY."
    assert " ".join(cap.text.split()).startswith("EXCEPT FOR PIVX'S OBLIGATIONS UNDER SECTION 4.2, IN NO EVENT")
    assert " ".join(cap.text.split()).endswith("HEREUNDER DURING THE PREVIOUS SIX (6) MONTHS.")
    audible = open_pdf(next((corpus / "cuad" / "pdf").glob("AudibleInc_20001113*")))
    damages = _seg_with(audible, "EXCEPT TO THE EXTENT AWARDED TO A THIRD")
    assert damages.kind == "sentence" and "NEITHER PARTY WILL BE LIABLE" in damages.text
    assert damages.heading == "8.2 No Consequential Damages."
    goose = open_pdf(corpus / "pdfs/contract/CUAD_GOOSEHEAD-Franchise-Agreement.pdf")
    law = _seg_with(goose, "THE CALIFORNIA FRANCHISE INVESTMENT LAW REQUIRES")
    assert law.kind == "sentence" and " ".join(law.text.split()).endswith("TOGETHER WITH THE DISCLOSURE DOCUMENT.")


def test_an_addendum_after_the_body_ends_its_last_numbered_section(corpus: Path):
    """Goosehead's state addenda follow clause 27 under capital headings without numbers; their
    text sat under "27.7 Must bring claims within one year." and, after "27.10 Minn." (the
    opening of "27.10 Minn. Stat. § 80C.17 prohibits …", split at "Minn."), under that."""
    doc = open_pdf(corpus / "pdfs/contract/CUAD_GOOSEHEAD-Franchise-Agreement.pdf")
    bankruptcy = _seg_with(doc, "The Franchise Agreement provides for termination upon bankruptcy.")
    assert bankruptcy.heading == ("ADDENDUM TO GOOSEHEAD INSURANCE AGENCY, LLC FRANCHISE DISCLOSURE DOCUMENT "
                                  "FOR THE STATE OF CALIFORNIA")
    [minn] = [s for s in doc.segments() if s.text.startswith("27.10 Minn.")]
    assert minn.kind == "sentence" and "Stat. § 80C.17 prohibits any action" in minn.text
    disclosed = _seg_with(doc, "Minn. Stat. § 80C.17 prohibits any action")  # the addendum's, page 96
    assert disclosed.page == 96
    assert disclosed.heading == ("ADDENDUM TO GOOSEHEAD INSURANCE AGENCY, LLC FRANCHISE DISCLOSURE DOCUMENT "
                                 "FOR THE STATE OF MINNESOTA")
    assert "27.10 Minn." not in [h.heading for h in doc.headings()]
    ny = _seg_with(doc, "INFORMATION COMPARING FRANCHISORS IS AVAILABLE")
    assert ny.heading.endswith("FOR THE STATE OF NEW YORK")


def test_a_short_numbered_sentence_is_no_run_in_heading(corpus: Path):
    """"1.4 Each SCHEDULE will at least contain the following:" is the lead-in of a list, and it
    named the section of CERES's pages 3-7; a run-in title has no verb in lower case. Titles that
    capitalise their verbs, and sentence-case titles, stay headings."""
    ceres = open_pdf(corpus / "pdfs/contract/CUAD_CERES-Collaboration-Agreement.pdf")
    lead = _seg_with(ceres, "Each SCHEDULE will at least contain the following:")
    assert lead.kind == "sentence" and lead.heading != lead.text
    heads = [" ".join(h.text.split()) for h in ceres.headings()]
    assert "15.3 Applicable law." in heads and "1.4 Each SCHEDULE will at least contain the following:" not in heads
    goose = [" ".join(h.text.split()) for h in open_pdf(corpus / "pdfs/contract/CUAD_GOOSEHEAD-Franchise-Agreement.pdf")
             .headings()]
    assert "1.4 Limits on Where You May Operate." in goose and "27.4 Parties Rights Are Cumulative." in goose


def test_a_long_numbered_title_in_capitals_is_a_heading(corpus: Path):
    """"18. SPECIAL CONDITIONS IN CONNECTION WITH DEFRA AGREEMENT NF 0426." ends with a full
    stop past six words, yet it is a title: numbered, in capitals, no verb. Its clauses sat
    under "17.6 Force Majeure."; a clause in capitals with a verb stays a sentence."""
    ceres = open_pdf(corpus / "pdfs/contract/CUAD_CERES-Collaboration-Agreement.pdf")
    clause = _seg_with(ceres, "18.2 To the extent that IGER INTELLECTUAL PROPERTY")
    assert clause.heading == "18. SPECIAL CONDITIONS IN CONNECTION WITH DEFRA AGREEMENT NF 0426."
    assert _seg_with(ceres, "8.1 CERES shall keep").heading.startswith("8. BOOKS, RECORDS AND RIGHT OF AUDIT")
    adia = open_pdf(next((corpus / "cuad" / "pdf").glob("ADIANUTRITION*")))
    cap = _seg_with(adia, "IN NO EVENT SHALL PIVX")
    assert cap.kind == "sentence" and cap.heading.startswith("4.3 LIMITATION OF LIABILITY")


def test_a_table_of_contents_names_no_section_after_it(corpus: Path):
    """Its entries list the headings; the last one ("57 EXHIBIT H", "Schedule 12.2 Initial Press
    Release") named the preamble and recitals that follow the contents."""
    ceres = open_pdf(corpus / "pdfs/contract/CUAD_CERES-Collaboration-Agreement.pdf")
    assert _seg_with(ceres, "WHEREAS, the Parties wish to establish a research program").heading is None
    assert _seg_with(ceres, "4.6 CERES and IGER shall have an undivided interest").heading == "4. INTELLECTUAL PROPERTY."
    aimmune = open_pdf(next((corpus / "cuad" / "pdf").glob("AimmuneTherapeutics*")))
    assert _seg_with(aimmune, "WHEREAS, Xencor has developed the Antibody").heading is None


def test_a_run_in_title_and_its_paragraphs_first_words_on_one_line_are_no_heading(corpus: Path):
    """"8.2 HDI Obligations. All Confidential Information of the" was read as a heading line, and
    the clause began mid-sentence at "Company shall be held in strict confidence"."""
    mall = open_pdf(next((corpus / "cuad" / "pdf").glob("AMERICASSHOPPINGMALL*")))
    clause = _seg_with(mall, "shall be held in strict confidence by HDI")
    assert " ".join(clause.text.split()).startswith("All Confidential Information of the Company shall be held")
    assert clause.heading == "8.2 HDI Obligations."
    adia = open_pdf(next((corpus / "cuad" / "pdf").glob("ADIANUTRITION*")))
    deliver = _seg_with(adia, "PivX shall electronically deliver")
    assert " ".join(deliver.text.split()) == "PivX shall electronically deliver Qwik-Fix Pro to Detto."
    assert deliver.heading == "3.5 SHIPMENT AND DELIVERY."
    venture = open_pdf(next((corpus / "cuad" / "pdf").glob("ACCELERATEDTECHNOLOGIES*")))
    clause = _seg_with(venture, "shall be authorized or empowered to mortgage")  # "… Prohibited. No Joint"
    assert " ".join(clause.text.split()).startswith("No Joint Venturer shall be authorized")
    assert clause.heading == "12. Sale or Purchase of Interest of Joint Venturer Prohibited."


@pytest.mark.parametrize(("line", "opens"), [
    ("8.2 HDI Obligations. All Confidential Information of the", True),  # a last word no heading ends on
    ("12. Sale or Purchase of Interest of Joint Venturer Prohibited. No Joint", True),  # a sentence's first word
    ("3. Confidentiality. The Receiving Party", True),
    ("5. Term. Renewal Options", False),  # two titles
    ("Part II. The Offering", False),  # a numeral's stop, then a title
    ("1.2 U.S. Patents and Trademarks", False),
    ("ARTICLE 5. MISCELLANEOUS PROVISIONS", False),
])
def test_a_line_opening_its_paragraph_after_a_title(line, opens):
    from workbench.pdf.segment import _opens_paragraph

    assert _opens_paragraph(line) is opens


def test_an_inset_page_number_inside_a_page_does_not_cut_a_sentence(corpus: Path):
    """EDGAR reprints set several letter pages on one PDF page; their page numbers ("-5-") sit
    mid-page, between the halves of a sentence. They are furniture wherever they stand: the
    sentence is one segment (its quote keeps the number, as over a page break; the answer drops it)."""
    from workbench.pipeline.compose import statement

    mall = open_pdf(next((corpus / "cuad" / "pdf").glob("AMERICASSHOPPINGMALL*")))
    appoint = _seg_with(mall, "5.4 Each of HDI and the Company shall appoint a")
    assert statement(appoint.text).startswith("5.4 Each of HDI and the Company shall appoint a General Manager of its own")
    assert not [s for s in mall.segments() if s.text.strip() in ("-5-", "-8-")]
    dragon = [" ".join(h.text.split()) for h in open_pdf(next((corpus / "cuad" / "pdf").glob("DRAGONSYSTEMS*")))
              .headings()]
    assert "13. GOVERNING LAW" in dragon and "8. LIABILITY" in dragon


def test_a_numbered_line_among_numbered_sentences_is_a_list_item_not_a_section(corpus: Path):
    """The IRS instructions number their lists, not their sections: "3. You claim an International
    Social" (a list item cut by its column's line end) named the section of pages 30-32, so the
    late-filing penalty sat under it; "5. Your income from the property." sat between items 4 and 7,
    which are sentences. A numbered title among numbered titles stays a heading."""
    irs = open_pdf(corpus / "pdfs/regulatory/i1040nr_IRS-instructions.pdf")
    penalty = _seg_with(irs, "The penalty is 15%")
    assert penalty.heading is None or not penalty.heading.startswith("3. You claim")
    assert _seg_with(irs, "5. Your income from the property.").kind == "sentence"
    assert not [h for h in irs.headings() if h.text.startswith(("3. You claim", "17. Tax on all"))]
    dmca = open_pdf(corpus / "pdfs/regulatory/dmca.pdf")
    assert _seg_with(dmca, "4. Information location tools.").kind == "sentence"
    ceres = [" ".join(h.text.split()) for h in open_pdf(corpus / "pdfs/contract/CUAD_CERES-Collaboration-Agreement.pdf")
             .headings()]
    assert "15.3 Applicable law." in ceres and "3.2.2 not-for-profit third parties." not in ceres


def test_a_margin_icon_does_not_cut_the_sentence_beside_it(corpus: Path):
    """The IRS instructions set a "!" in large type over "CAUTION" in tiny type beside a paragraph,
    in the paragraph's block: read by height, the icon's lines cut its sentence ("Nonresident
    aliens who make ! this election may forfeit the right … otherwise CAUTION available …"). The
    icon is read before the paragraph; the sentence is whole, and still found in the PDF."""
    irs = open_pdf(corpus / "pdfs/regulatory/i1040nr_IRS-instructions.pdf")
    seg = _seg_with(irs, "Nonresident aliens who make")
    assert " ".join(seg.text.split()) == ("Nonresident aliens who make this election may forfeit the right to claim "
                                          "benefits otherwise available under a U.S. tax treaty.")
    span = irs.locate(seg.text)
    assert span is not None and span.page == 4 and span.rects


def test_numbers_side_by_side_on_a_page_edge_are_table_cells_not_furniture():
    """A page number stands alone or beside words; a bottom row of numbers is a table's."""
    from workbench.pdf.furniture import furniture_lines

    words = ["Accuracy", "Recall", "Latency", "Memory", "Cost", "Energy"]
    pages = [[(10 * p, 700.0, 710.0, f"{words[p]} is shown below."), (10 * p + 1, 760.0, 770.0, "85.0"),
              (10 * p + 2, 760.5, 770.0, "77.8"), (10 * p + 3, 760.0, 770.0, "79.5"),
              (10 * p + 4, 780.0, 790.0, str(p + 1))] for p in range(6)]
    assert furniture_lines(pages) == {10 * p + 4 for p in range(6)}


NAACL = "pdfs/science/naacl06-shinyama.pdf"  # two columns under a title and an address centred over both


def test_an_address_centred_over_two_columns_does_not_join_them_into_one(corpus: Path):
    """The address block crosses the gutter: read as part of a column, it bridged both, and the
    right column's first lines were read between the abstract's heading and its text."""
    doc = open_pdf(corpus / NAACL)
    texts = [" ".join(s.text.split()) for s in doc.segments() if s.page == 1]
    abstract = texts.index("We are trying to extend the boundary of Information Extraction (IE) systems.")
    pitfall = texts.index("There is a bit of a dangerous pitfall here.")
    assert texts.index("Abstract") + 1 == abstract < pitfall
    whole = _seg_with(doc, "you need to repeat the whole process")  # from the foot of one column to the next
    assert " ".join(whole.text.split()).endswith("either manually or semi- automatically.")


def test_a_section_number_on_its_own_line_heads_the_title_in_larger_type_below_it(corpus: Path):
    """"1" / "Background", "3.1" / "Traces": the number and a short title beneath it in its block
    are one numbered heading, which names the sentences after it."""
    doc = open_pdf(corpus / NAACL)
    assert _seg_with(doc, "Every day, a large number of news articles").heading == "1 Background"
    assert _seg_with(doc, "We evaluated the obtained tables as follows").heading == "4.1 Evaluation Method"
    trace = open_pdf(corpus / "pdfs/science/tracemonkey_PLDI09.pdf")
    assert _seg_with(trace, "A trace is simply a program path").heading == "3.1 Traces"


def test_a_transcripts_margin_line_numbers_are_furniture_not_words_of_its_sentences(corpus: Path):
    """Court transcripts and pleading paper number every line down the margin: read as text, "14 15
    16" sat inside "… of the United States at 1:01 p.m.", and the numbers' column, read first,
    put the reporter's footer before the page's last line."""
    doc = open_pdf(corpus / "pdfs/legal/scotus-transcript-p1.pdf")
    texts = [" ".join(s.text.split()) for s in doc.segments()]
    argued = "The above-entitled matter came on for oral argument before the Supreme Court of the United States at 1:01 p.m."
    assert argued in texts
    assert doc.locate(argued) is not None
    assert "CHARLES M. SEVILLA, ESQ., San Diego, Cal.; on behalf of the Respondent." in texts
    assert not any(t.isdigit() for t in texts)
    contents = open_pdf(corpus / "pdfs/science/Qwen2-technical-report_arXiv2407.10671.pdf")
    assert any(" ".join(s.text.split()) == "1 Introduction 3" for s in contents.segments())  # numbered, unevenly spaced


def test_a_papers_abstract_acknowledgements_and_references_are_sections_of_their_own(corpus: Path):
    """naacl06: unnumbered "Acknowledgements" and "References" end "5 Conclusion"; before, the
    bibliography ("Kiyoshi Sudo, Satoshi Sekine, and Ralph Grishman.") sat under the conclusion and
    was offered for "What did the authors conclude?". Qwen2's outline stops at its conclusion and
    its REFERENCES end it too; the abstract names the sentences before the first numbered section."""
    doc = open_pdf(corpus / "pdfs/science/naacl06-shinyama.pdf")
    under = {}
    for s in doc.segments():
        under.setdefault(" ".join(s.text.split()), s.heading)
    assert under["In this paper we proposed Preemptive Information Extraction as a new direction of IE research."] \
        == "5 Conclusion"
    assert under["Kiyoshi Sudo, Satoshi Sekine, and Ralph Grishman."] == "References"
    assert under["We would like to thank Prof. Ralph Grishman who provided useful suggestions and dis- cussions."] \
        == "Acknowledgements"
    assert any(h == "Abstract" and t.startswith("We propose a technique called Unrestricted Relation Discovery")
               for t, h in under.items())
    qwen = open_pdf(corpus / "pdfs/science/Qwen2-technical-report_arXiv2407.10671.pdf")
    refs = [s for s in qwen.segments() if s.text.startswith("Marah Abdin, Jyoti Aneja")]
    assert refs and refs[0].heading == "REFERENCES"


def test_a_references_heading_over_no_entries_ends_no_section():
    """A contract's unnumbered "References" line followed by clauses is no bibliography."""
    from workbench.pdf.document import Segment
    from workbench.pdf.segment import _matter

    def seg(kind, text):
        return Segment(start=0, end=len(text), page=1, text=text, heading=None, kind=kind)

    refs = [seg("heading", "References"), seg("sentence", "Each party may give the other's name as a reference."),
            seg("sentence", "Neither party shall do so without consent.")]
    assert _matter(refs, 0, True) is None
    bib = [seg("heading", "References"), seg("sentence", "Smith, J. 2001. A title."), seg("sentence", "[2] Doe, A.")]
    assert _matter(bib, 0, True) == "References"
    assert _matter([seg("heading", "Abstract")], 0, True) is None  # after section 1: a body heading, not the front
    assert _matter([seg("heading", "Abstract")], 0, False) == "Abstract"


@pytest.mark.parametrize(("a", "b", "goes_on"), [
    # accepts: the sentence runs on over the break
    ("try to resolve the dispute within twenty (20)", "days from the date that a Party first gives notice", True),
    ("as set out in the Schedule [Exhibit A]", "and in each Statement of Work", True),
    ("shall pay the fees described in Section 4 and", "Exhibit B within thirty days", True),
    # rejects: a bracket, a stop or an item's end closes it
    ("the following terms shall have the meanings (as defined)", "(ii) Affiliate means", False),
    ("the Parties shall meet in good faith (see Section 9)", "The Vendor shall then", False),
    ("the Vendor shall deliver the Products on time.", "days from the date", False),
    ("each party shall bear its own costs; and", "the other party shall", False),
    ("(20)", "days from the date", False),
    ("each report lists the reader's Name (first, middle, surname)", "o Address Information and the reader's email", False),
    ("the federal program of information security [44 USC 3552]", "information system\n[44 USC 3502]", False),
])
def test_a_sentence_goes_on_over_a_break_where_the_next_block_cannot_open_one(a: str, b: str, goes_on: bool):
    """A block that ends without a sentence end runs on into the next when the next cannot open a
    sentence: "… within twenty (20)" | "days from the date …" was cut in two at the bracket."""
    assert _goes_on(a, b) is goes_on


def test_an_item_cut_after_a_number_in_brackets_is_one_sentence(corpus: Path):
    """The escalation item "(i) The contact persons … within twenty (20)" | "days from the date …"
    (a blank line between) was quoted without its period's unit; its section is 4.8 of a
    "1.0, 1.1, 2.0" numbering, not "1.2 Term of Agreement" (the last section read before 2.0)."""
    doc = open_pdf(next((corpus / "cuad" / "pdf").glob("AtnInternationalInc_20191108*")))
    item = _seg_with(doc, "The contact persons of both Parties shall work in good faith")
    assert " ".join(item.text.split()).endswith("within twenty (20) days from the date that a Party first gives "
                                                "notice that a dispute has occurred.")
    assert item.heading == "4.8 Dispute Resolution."
    tops = [s.label for s in doc.sections() if s.level == 1][:3]
    assert tops == ["1.0 Scope", "2.0 Definitions", "3.0 General Terms"]


# (line text, the line of words on its row and how far right of the number it starts, the words
# repeat on every page, furniture?)
NUMBER_BESIDE = [
    ("12", "Governing Law; Dispute Resolution.", 5.0, False, False),  # a section number beside its title
    ("4", "Intellectual Property.", 20.0, False, False),
    ("(c)", "[***] of LICENSE INCOME if the LICENSED VARIETY …", 10.0, False, False),  # an item's marker
    ("4", "Annual Report 2019", 8.0, True, True),  # a running footer's page number beside its words
    ("7", None, 0.0, False, True),  # a page number alone in the margin
    ("7", "The Supplier shall deliver the goods.", 200.0, False, True),  # far from the words on its row
]


@pytest.mark.parametrize(("number", "beside", "gap", "repeats", "furniture"), NUMBER_BESIDE)
def test_a_bare_number_beside_words_that_do_not_repeat_numbers_a_section(number: str, beside: str | None, gap: float,
                                                                           repeats: bool, furniture: bool):
    """BELLRING's master supply agreement sets "4" in the margin beside "Intellectual Property.": read
    as a page number, sections 3 to 17 lost their numbers and all sat under "2 Quality and Food Safety"."""
    from workbench.pdf.furniture import furniture_lines, numbers_beside_words

    pages, margins, beside_of = [], [], {}
    for p in range(6):
        lines = [(10 * p, 100.0, 110.0, number)]  # in the side margin, mid-page
        boxes = [(10 * p, 50.0, 58.0, 100.0, number)]
        if beside is not None:
            words = beside if repeats else f"{beside} {['Alpha', 'Beta', 'Gamma', 'Delta', 'Eta', 'Iota'][p]}"
            lines.append((10 * p + 1, 100.0, 110.0, words))
            boxes.append((10 * p + 1, 58.0 + gap, 400.0, 100.0, words))
        lines += [(10 * p + k, 60.0 + 60 * k, 70.0 + 60 * k, f"Body line {k} of page {p} says something.") for k in (2, 3, 4)]
        lines.insert(0, (10 * p + 9, 30.0, 40.0, f"Header of page {p}"))
        pages.append(lines)
        margins.append([10 * p])
        beside_of.update(numbers_beside_words(boxes))
    assert (0 in furniture_lines(pages, margins, beside_of)) is furniture


RUN_IN = [
    ("12 Governing Law; Dispute Resolution.", True),  # titles joined by a semicolon
    ("12 Governing Law\u037e Dispute Resolution.", True),  # the semicolon as U+037E
    ("3 Business Continuity/Continuous Supply Assurances.", True),
    ("16 U.S. Government Affirmative Action Regulations.", True),  # an initialism
    ("2.4 Restrictive Covenants.", True),
    ("13. Thein HH, Yi Q, Dore GJ, Krahn MD.", False),  # a reference's authors
    ("1.4 Each SCHEDULE will at least contain the following:", False),
    ("4. You have Part B benefits.", False),
]


@pytest.mark.parametrize(("text", "heading"), RUN_IN)
def test_numbered_run_in_headings(text: str, heading: bool):
    from workbench.pdf.segment import run_in_heading

    assert run_in_heading(text) is heading


@pytest.mark.parametrize(("heading", "division"), [
    ("EXHIBIT B", True), ("Schedule 2 - Fees", True), ("ADDENDUM TO THE FRANCHISE DISCLOSURE DOCUMENT", True),
    ("AMENDMENTS TO COMMERCIAL LICENSE AGREEMENT AND DEVELOPMENT AGREEMENT", True),  # a second agreement in the file
    ("Exhibits and Schedules", True), ("Annexes", True),
    ("Exhibitor Obligations", False), ("Scheduled Maintenance", False), ("Amended Terms", False),
])
def test_a_division_heading_names_a_part_of_its_own(heading, division):
    from workbench.pdf.segment import _DIVISION

    assert bool(_DIVISION.match(heading)) is division


def _segs(rows: list[tuple[int, str, str]]):
    from workbench.pdf.segment import Segment

    return [Segment(10 * i, 10 * i + 5, page, text, None, kind) for i, (page, kind, text) in enumerate(rows)]


CONTENTS = [
    (1, "heading", "MANUFACTURING AND SUPPLY AGREEMENT"),
    (1, "heading", "TABLE OF CONTENTS Page ARTICLE 1 SALE AND PURCHASE 1"),
    (1, "sentence", "1.1 Supply of Cartridge 1 1.2 [* * *] 1 1.3 Purchase of Cartridge 1"),
    (1, "heading", "ARTICLE 2 FORECASTS; INVENTORY 1"),
    (2, "sentence", "13.1 Term 15 13.2 Termination 16 13.3 Effect of Termination 17 13.4 Business Continuity 17"),
    (2, "sentence", "[* * *] = Certain confidential information contained in this document has been omitted."),
    (2, "sentence", "14.1 Definitions 18 14.2 Further Assurances 21 14.3 Governing Law 21 14.4 Dispute Resolution 21 14.5"),
    (2, "sentence", "This Manufacturing and Supply Agreement is dated January 1st, 2013, between Vapotherm and Medica."),
    (2, "sentence", "WHEREAS, Vapotherm sells systems it has developed for delivering blended medical gas therapy."),
    (2, "heading", "ARTICLE 1 SALE AND PURCHASE"),
]


def test_a_table_of_contents_ends_where_the_body_begins_on_its_last_page():
    """Entries run together on a page that also opens the body ("… 14.5" then the preamble): the
    entries are contents (one notice between them does not end it), the body is not."""
    from workbench.pdf.segment import _contents_segments

    assert _contents_segments(_segs(CONTENTS)) == set(range(7))
    assert _contents_segments(_segs([r for r in CONTENTS if "CONTENTS" not in r[2]])) == set()  # no contents heading


def test_a_contents_link_atop_every_page_is_no_table_of_contents():
    """A filing's "Table of Contents" link repeats at the top of each page: read as contents, it
    took every page's sections away."""
    from workbench.pdf.segment import _contents_segments

    pages = [[(p, "heading", "Table of Contents"), (p, "heading", f"{p}. DUTIES"),
              (p, "sentence", "The Executive shall serve the Company faithfully and diligently at all times."),
              (p, "sentence", "The Executive shall comply with all policies of the Company in force.")] for p in range(1, 7)]
    assert _contents_segments(_segs([row for page in pages for row in page])) == set()
    real = [(1, "heading", "Table of Contents"), (1, "heading", "1. DUTIES 3"), (1, "heading", "2. TERM 4"),
            (2, "sentence", "The Executive shall serve the Company faithfully and diligently at all times."),
            (2, "sentence", "The Executive shall comply with all policies of the Company in force.")]
    assert _contents_segments(_segs(real + [(p, "sentence", "More text of the agreement here and there, at length.")
                                            for p in range(3, 7)])) == {0, 1, 2}


@pytest.mark.parametrize(("text", "title"), [
    ("TABLE OF CONTENTS Page ARTICLE 1 SALE AND PURCHASE 1", True),
    ("Execution version TABLE OF CONTENTS: CLAUSE PAGE", True),  # a page's running header on the same line
    ("This Agreement has a TABLE OF CONTENTS for convenience only.", False),  # inside a sentence
    ("The table of contents is for convenience only.", False),
])
def test_a_contents_title_may_follow_a_running_header(text, title):
    from workbench.pdf.segment import _CONTENTS_RUN_IN

    assert bool(_CONTENTS_RUN_IN.match(text)) is title


def test_a_contents_title_after_a_running_header_keeps_its_entries_out_of_the_sections():
    """"Execution version TABLE OF CONTENTS: CLAUSE PAGE": its last entry, with the next page's
    header glued on ("6. MISCELLANEOUS 8 AZUL-ATR … Page 2/9"), had named every clause after it."""
    from workbench.pdf.segment import _contents_segments

    rows = [(1, "sentence", "Execution version"), (1, "sentence", "Execution version TABLE OF CONTENTS: CLAUSE PAGE"),
            (1, "heading", "1. DEFINITIONS 4"), (1, "heading", "2. AMENDMENT 4"),
            (1, "heading", "6. MISCELLANEOUS 8 AZUL-ATR Amendment N° 1 Global Maintenance Agreement Page 2/9"),
            (1, "sentence", "This amendment (hereinafter referred to as the \"Amendment\") is entered into on January 6th, 2016."),
            (1, "sentence", "WHEREAS the Repairer and the Company entered into a Global Maintenance Agreement as referenced."),
            (2, "heading", "1. DEFINITIONS")]
    assert _contents_segments(_segs(rows)) == set(range(5))


def test_the_outline_is_read_where_the_pdf_has_one_and_skipped_where_it_has_none(make_pdf, tmp_path):
    import pymupdf

    plain = open_pdf(make_pdf([CONTRACT]))
    assert plain.no_outline and plain.sections()  # numbered sections, no outline to open the bytes for
    with pymupdf.open(make_pdf([CONTRACT])) as pdf:
        pdf.set_toc([[1, "Term and Termination", 1]])
        pdf.save(tmp_path / "outlined.pdf")
    outlined = open_pdf(tmp_path / "outlined.pdf")
    assert not outlined.no_outline
    assert outlined.sections() == []  # the outline names the sections
    last = [s for s in outlined.segments() if s.kind == "sentence"][-1]
    assert last.heading == "Term and Termination"
