"""Sentence boundaries of PDF text: list items numbered on lines of their own."""

from __future__ import annotations

import pytest

from workbench.text import clause_bounds, sentence_spans


def test_an_item_number_on_its_own_line_opens_the_next_item():
    text = ("The limitations are based on the following four categories of conduct:\n\n1.\nTransitory "
            "communications;\n2.\nSystem caching;\n3.\nInformation location tools.\n\nThe fee is set in Section\n2. "
            "The Licensee shall pay.")
    assert [" ".join(text[a:b].split()) for a, b in sentence_spans(text)] == [
        "The limitations are based on the following four categories of conduct:",
        "1. Transitory communications;", "2. System caching;", "3. Information location tools.",
        "The fee is set in Section 2.", "The Licensee shall pay."]


def test_an_answer_sentence_opening_with_an_ellipsis_is_a_sentence_of_its_own():
    """An answer marks a quoted part with "… "; read as one with the sentence before, the two shared
    their citations and one support verdict."""
    from workbench.text import split_sentences

    answer = ("The Buyer shall pay each invoice within sixty days [REQ-C002]. … do all applicable actions "
              "identified as RC [REQ-S003].")
    assert split_sentences(answer) == ["The Buyer shall pay each invoice within sixty days [REQ-C002].",
                                       "… do all applicable actions identified as RC [REQ-S003]."]


@pytest.mark.parametrize(("text", "clauses"), [
    # bounds after , ; : and before and/or, unless, provided that
    ("Either party may terminate on notice, and the other shall pay; unless waived",
     ["Either party may terminate on notice,", "and the other shall pay;", "unless waived"]),
    # none inside brackets: a parenthetical is one node
    ("Obligations (including those in “Laws,” “Construction,” and “Taxes”) will survive, and the rest ends",
     ["Obligations (including those in “Laws,” “Construction,” and “Taxes”) will survive,", "and the rest ends"]),
    ("Fees [as adjusted, and net of credits] are due; interest accrues",
     ["Fees [as adjusted, and net of credits] are due;", "interest accrues"]),
    # a stray closing bracket opens nothing
    ("ii) the Vendor shall deliver, and AT&T shall pay", ["ii) the Vendor shall deliver,", "and AT&T shall pay"]),
])
def test_a_clause_begins_after_a_comma_or_a_conjunction_but_never_inside_brackets(text: str, clauses: list[str]):
    cuts = [0, *clause_bounds(text), len(text)]
    assert [text[a:b].strip() for a, b in zip(cuts, cuts[1:], strict=False)] == clauses


@pytest.mark.parametrize(("text", "sentences"), [
    ("13. Entire Agreement. This is all.   14.. Notices. All notices in writing.",
     ["13. Entire Agreement.", "This is all.", "14.. Notices.", "All notices in writing."]),  # "14.." is no sentence
    ("The price is 14. Delivery is free.", ["The price is 14.", "Delivery is free."]),
])
def test_a_number_with_a_doubled_stop_is_an_enumerator(text, sentences):
    assert [text[a:b] for a, b in sentence_spans(text)] == sentences


@pytest.mark.parametrize(("text", "sentences"), [
    # "ARTICLE I." is a number, not an initial: the article opens after the lead-in's colon
    ("The parties agree as follows:\nARTICLE I. SCOPE OF ALLIANCE. A. COOL TECH shall market generators.",
     ["The parties agree as follows:", "ARTICLE I. SCOPE OF ALLIANCE.", "A. COOL TECH shall market generators."]),
    ("John A. Smith signed it on behalf of Acme.", ["John A. Smith signed it on behalf of Acme."]),  # an initial
])
def test_a_labelled_roman_number_is_no_initial(text, sentences):
    assert [text[a:b] for a, b in sentence_spans(text)] == sentences
