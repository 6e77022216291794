"""Sentence boundaries of PDF text: list items numbered on lines of their own."""

from __future__ import annotations

from workbench.text import sentence_spans


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
