"""Quote anchoring: exact (normalised) matches only, with boxes that hug the quoted words."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pdf.conftest import words_under
from workbench.models import sha256_text
from workbench.pdf import open_pdf
from workbench.pdf.normalize import key

LOREM = ("Each Party shall keep the other Party informed of all material developments relating to the "
         "Product in the Territory, including regulatory filings, safety reports and commercial plans, "
         "and shall respond within thirty days to any reasonable written request for information. ")


def reads_back(pdf: Path, quote: str, rects: list) -> bool:
    got, want = key(words_under(pdf, rects)), key(quote)
    return bool(want) and want in got and len(got) <= len(want) * 1.15 + 12


def test_words_index_the_text_exactly(make_pdf):
    doc = open_pdf(make_pdf([LOREM * 3, LOREM]))
    assert doc.words and all(doc.text[w.start:w.end] == w.text for w in doc.words)
    assert [p.number for p in doc.pages] == [1, 2]
    assert doc.page_at(doc.words[0].start) == 1 and doc.page_at(doc.words[-1].start) == 2


def test_quote_wrapping_over_lines_gets_one_box_per_line_hugging_its_words(make_pdf):
    path = make_pdf([LOREM * 2])
    doc = open_pdf(path)
    quote = "developments relating to the Product in the Territory, including regulatory filings, safety reports"
    span = doc.locate(quote)
    assert span is not None
    assert key(span.text) == key(quote) and span.text_sha256 == sha256_text(span.text)
    assert span.text == doc.text[span.start:span.end]
    lines = {(w.page, w.block, w.line) for w in doc.words if span.start <= w.start < span.end}
    assert len(span.rects) == len(lines) >= 2
    first_word = next(w for w in doc.words if w.start == span.start)
    assert span.rects[0][1] == pytest.approx(first_word.x0, abs=0.01)  # starts mid-line, not at the margin
    assert reads_back(path, quote, span.rects)


def test_whitespace_case_and_punctuation_differences_still_match(make_pdf):
    doc = open_pdf(make_pdf([LOREM]))
    assert doc.locate("EACH  party shall keep\nthe other party informed") is not None


def test_end_of_line_hyphenation_matches_joined_and_hyphenated_forms(make_unicode_pdf):
    path = make_unicode_pdf(["Operators of safety-\ncritical systems shall log every change."])
    doc = open_pdf(path)
    assert "safety-\ncritical" in doc.text
    for quote in ("safety-critical systems", "safetycritical systems", "safety critical systems"):
        span = doc.locate(quote)
        assert span is not None, quote
        assert len(span.rects) == 2 and reads_back(path, quote, span.rects)


def test_ligatures_curly_quotes_and_dashes_match_plain_ascii(make_unicode_pdf):
    path = make_unicode_pdf(["The veriﬁcation of the “Licensed Product” – as deﬁned above – is ﬁnal."])
    doc = open_pdf(path)
    assert "ﬁ" in doc.text
    span = doc.locate('The verification of the "Licensed Product" - as defined above - is final.')
    assert span is not None and "veriﬁcation" in span.text
    assert reads_back(path, "The verification of the Licensed Product as defined above is final", span.rects)


def test_quote_across_page_break_skips_running_header_and_footer(make_unicode_pdf):
    filler = "Background paragraph that fills the page. " * 8
    pages = [f"{filler}\n\nThe Licensee shall indemnify the Licensor against all claims",
             "arising from the use of the Licensed Product in the Territory.\n\n" + filler,
             filler, filler]
    path = make_unicode_pdf(pages, header="ACME CONFIDENTIAL – Licence Agreement", footer="Page {n} of 4")
    doc = open_pdf(path)
    quote = "The Licensee shall indemnify the Licensor against all claims arising from the use of the Licensed Product"
    span = doc.locate(quote)
    assert span is not None
    assert span.pages == [1, 2] and {r[0] for r in span.rects} == {1, 2}
    assert "Page 1 of 4" in span.text  # the document's own text keeps the footer ...
    under = words_under(path, span.rects)
    assert "Page" not in under and "ACME" not in under  # ... but no box covers it
    assert reads_back(path, quote, span.rects)


def test_superscript_inside_a_line_is_left_outside_the_boxes(tmp_path):
    import pymupdf

    pdf = pymupdf.open()
    page = pdf.new_page()
    page.insert_text((72, 100), "entered into on the 31    day of July, 2019 by the parties", fontsize=11)
    page.insert_text((182, 95), "st", fontsize=6)  # drawn last, as in the CUAD contract it mimics
    path = tmp_path / "sup.pdf"
    pdf.save(path)
    doc = open_pdf(path)
    span = doc.locate("31 day of July, 2019")
    assert span is not None
    assert words_under(path, span.rects).split() == ["31", "day", "of", "July,", "2019"]
    assert len(span.rects) == 2  # one line, split around the superscript


def test_not_found_is_none_and_closest_is_flagged_with_similarity(make_pdf):
    doc = open_pdf(make_pdf([LOREM]))
    assert doc.locate("shall respond within sixty days to any reasonable written request") is None
    assert doc.locate("   ") is None
    near = doc.closest("shall respond within sixty days to any reasonable written request")
    assert near is not None and 0.8 < near.similarity < 1.0
    assert "thirty days" in near.span.text
    assert doc.closest("zebra quantum xylophone marmalade") is None


def test_prefers_an_occurrence_on_word_boundaries(make_pdf):
    doc = open_pdf(make_pdf(["The partner hereby agrees. The art of contract drafting is old."]))
    span = doc.locate("art")
    assert span is not None and doc.text[span.start - 1] == " "


def test_parsed_document_survives_the_cache_file_with_same_answers(make_pdf):
    from workbench.pdf.cache import CachedDocument

    doc = open_pdf(make_pdf([LOREM, LOREM]))
    before = doc.locate("material developments relating to the Product")
    clone = CachedDocument.model_validate_json(CachedDocument.of(doc).model_dump_json()).parsed()
    assert clone.locate("material developments relating to the Product") == before
    assert clone.document == doc.document and clone.text == doc.text


def test_quote_with_footer_and_page_number_inside_it_is_found_across_pages(corpus: Path):
    """CUAD's text of this contract has the page footer inside a clause; the PDF puts it elsewhere."""
    pdf = next((corpus / "cuad" / "pdf").glob("AimmuneTherapeuticsInc_20200205*"))
    doc = open_pdf(pdf)
    quote = ("Aimmune hereby covenants and agrees that it shall not (and shall cause the other Aimmune Agreement "
             "Entities not to), either directly or indirectly, 14 Source: AIMMUNE THERAPEUTICS, INC., 8-K, "
             "2/5/2020 Develop, Manufacture, or Commercialize the Product for use outside the Licensed Field.")
    span = doc.locate(quote)
    assert span is not None and span.pages == [16, 17]
    heading_quote = "Upon the termination of this Agreement: 14.1.1 all rights and licenses granted to Aimmune"
    span = doc.locate(heading_quote)  # a centred ARTICLE heading sits between the two parts
    assert span is not None and reads_back(pdf, heading_quote, span.rects)


def test_three_column_page_reads_column_by_column(corpus: Path):
    pdf = corpus / "pdfs/regulatory/fedreg-2020-17221_FAA-AD-Boeing737MAX-NPRM.pdf"
    doc = open_pdf(pdf)
    quote = ("The flight control system for 737 MAX airplanes includes two flight control computers, "
             "FCC A and FCC B, which process inputs from the pilots and aircraft sensors")
    span = doc.locate(quote)
    assert span is not None and span.pages == [2]
    assert all(r[3] < 215 for r in span.rects)  # all in the left column
    assert reads_back(pdf, quote, span.rects)


def test_columns_a_pdf_draws_row_by_row_are_read_column_by_column(corpus: Path):
    """The IRS instructions draw each three-column page row by row: the text layer's blocks hold
    one line of each column in turn. Read as given, "If you c. Your income is exempt from U.S.
    earlier for the tax year, …" was quoted, verified and cited."""
    pdf = corpus / "pdfs/regulatory/i1040nr_IRS-instructions.pdf"
    doc = open_pdf(pdf)
    quote = ("Form 1040NR-EZ. You may be able to use Form 1040NR-EZ if your only income from U.S. sources is "
             "wages, salaries, tips, taxable refunds of state and local income taxes, and scholarship or "
             "fellowship grants.")
    span = doc.locate(quote)
    assert span is not None and span.pages == [2]
    assert all(r[3] < 215 for r in span.rects)  # all in the left column
    assert reads_back(pdf, quote, span.rects)
    # a column's sentence is one run of the text, not three columns' lines in turn
    assert "Form 1040NR-EZ. You may be able\nto use Form 1040NR-EZ if your only\nincome" in doc.text
    # the middle column runs on into the right one, though the page's footer sits under both
    across = ("Generally, you are treated as present in the United States on any day that you are physically "
              "present in the country at any time during the day.")
    span = doc.locate(across)
    assert span is not None and key(span.text) == key(across)
    assert span.rects[0][2] > 700 and span.rects[-1][2] < 40 and span.rects[-1][1] > 400  # (page, x0, y0, x1, y1)


def test_a_contents_page_and_a_signature_block_keep_their_rows(corpus: Path):
    """Side by side but not running text: a contents line's title and page number, the two
    parties' signature lines. Their rows are read as rows."""
    pdf = corpus / "pdfs/contract/CUAD_CERES-Collaboration-Agreement.pdf"
    doc = open_pdf(pdf)
    contents = doc.text[doc.pages[1].start:doc.pages[1].end]
    assert "1. RESEARCH PROJECTS\n3\n2. MANAGEMENT COMMITTEE\n7\n" in contents
    signatures = doc.text[doc.pages[28].start:doc.pages[28].end]
    assert "By: /s/ MERVYN HUMPHREYS\nBy:\n/s/ RICHARD FLAVELL\nName: Professor Mervyn Humphreys" in signatures


def test_two_column_paper_with_ligatures_and_split_diaeresis(corpus: Path):
    pdf = corpus / "pdfs/science/tracemonkey_PLDI09.pdf"
    doc = open_pdf(pdf)
    span = doc.locate("In a naïve implementation, inner loops would become hot first")
    assert span is not None and span.pages == [2]
    assert "na¨ıve" in span.text and "ﬁrst" in span.text  # the document's own glyphs
    assert span.rects[0][1] > 280 and span.rects[1][1] < 60  # ends one column's line, starts the next


def test_repeated_quote_gives_first_occurrence_or_the_one_near_an_offset(make_pdf):
    doc = open_pdf(make_pdf(["Notices must be in writing. " + LOREM, LOREM + " Notices must be in writing."]))
    first = doc.locate("notices must be in writing")
    assert first is not None and first.page == 1
    later = doc.locate("notices must be in writing", near=len(doc.text))
    assert later is not None and later.page == 2 and later.start > first.start


def _cuad_pieces(corpus: Path, prefix: str) -> tuple[Path, list[str]]:
    import ast
    import csv

    csv.field_size_limit(10**9)
    with open(corpus / "cuad/master_clauses_subset.csv", newline="", encoding="utf-8") as fh:
        row = next(r for r in csv.DictReader(fh) if r["Filename"].startswith(prefix))
    pieces = [" ".join(p.split()) for col, v in row.items() if col != "Filename" and "Answer" not in col
              and v.startswith("[") for c in ast.literal_eval(v) for p in c.split("<omitted>") if len(p.split()) >= 3]
    return next((corpus / "cuad/pdf").glob(prefix + "*")), list(dict.fromkeys(pieces))


@pytest.mark.parametrize("prefix", ["AimmuneTherapeuticsInc", "ADAMSGOLFINC", "ASIANDRAGONGROUPINC"])
def test_every_cuad_clause_piece_of_hard_contracts_is_found(corpus: Path, prefix: str):
    """Footers inside clauses, margin labels between lines, a price table read row by row."""
    pdf, pieces = _cuad_pieces(corpus, prefix)
    doc = open_pdf(pdf)
    assert pieces
    missing = [q[:60] for q in pieces if doc.locate(q) is None]
    assert missing == []


def test_an_ascii_key_is_its_letters_and_digits_lower_cased():
    every = "".join(map(chr, range(128)))
    assert key(every) == "".join(filter(str.isalnum, every.lower())) == "0123456789" + "abcdefghijklmnopqrstuvwxyz" * 2
    assert key("Section 4.2(b) — Term") == "section42bterm"  # not ASCII: read a character at a time
    assert key("Section 4.2(b) - Term") == "section42bterm"
