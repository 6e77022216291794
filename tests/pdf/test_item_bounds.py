"""Structure-node boundaries read where the PDF is read (issue 39): an enumerated list inside one
sentence is its lead-in and its items, a lettered heading is a heading, and an item's marker
always opens its own item, never ends the one before it."""

from __future__ import annotations

import pytest

from workbench.pdf.structure import item_spans, item_starts, lettered_heading, may_hold_lists
from workbench.text.sentences import sentence_spans

TRIGGERS = ("This Agreement may be terminated upon the occurrence of any of the following events: (i) a material "
            "breach; (ii) insolvency of the other party; or (iii) an intellectual property claim.")


def _pieces(text: str) -> list[str]:
    return [text[a:b].strip() for a, b in item_spans(text, 0, len(text))]


@pytest.mark.parametrize(("text", "pieces"), [
    (TRIGGERS, ["This Agreement may be terminated upon the occurrence of any of the following events:",
                "(i) a material breach;", "(ii) insolvency of the other party; or",
                "(iii) an intellectual property claim."]),
    # ";" read as U+037E, as in the CUAD reseller agreement
    ("Terminated upon any of the following events: (a) breach\u037e (b) insolvency\u037e or (c) a claim.",
     ["Terminated upon any of the following events:", "(a) breach\u037e", "(b) insolvency\u037e or", "(c) a claim."]),
    # a reference to another item is no item's start
    ("The party may terminate as follows: (A) as to a default under clause (i) above, if payment is not made within "
     "ten (10) days; or (B) as to a default under clause (ii) above, if not cured within thirty (30) days.",
     ["The party may terminate as follows:",
      "(A) as to a default under clause (i) above, if payment is not made within ten (10) days; or",
      "(B) as to a default under clause (ii) above, if not cured within thirty (30) days."]),
    ("Either party may terminate upon: i. a material breach; or ii. insolvency.",
     ["Either party may terminate upon:", "i. a material breach; or", "ii. insolvency."]),
])
def test_a_list_after_its_lead_in_is_read_as_its_items(text, pieces):
    assert _pieces(text) == pieces


@pytest.mark.parametrize("text", [
    # no lead-in colon: the sentence stays whole (the engine reads no lead-in without one)
    "Berkshire may terminate if (i) Auriemma dies; (ii) Auriemma is convicted; or (iii) Auriemma disparages.",
    # one marker is no list
    "The fee is payable as follows: (i) within thirty days of the invoice date.",
    # numbers with a stop are clause numbers, not inline items
    "See Sections 1. and 2. of the following: 1. fees; 2. costs.",
    # markers that do not count up from the first
    "Payable as follows: (ii) the balance; (iv) the rest.",
])
def test_what_is_no_inline_list_is_left_whole(text):
    assert item_starts(text) == []


@pytest.mark.parametrize(("text", "sentences"), [
    # the next item's marker opens the next item ("… material breach; or ii." was one sentence)
    ("Either party may terminate upon: i. a material breach; or ii. Insolvency of the other party. The end.",
     ["Either party may terminate upon: i. a material breach; or", "ii. Insolvency of the other party.", "The end."]),
    # a lettered heading after a sentence's end is not glued to it
    ("In such event, all payments shall be automatically terminated. g. Governing Law and Forum. This Agreement is "
     "governed by the laws of California.",
     ["In such event, all payments shall be automatically terminated.", "g. Governing Law and Forum.",
      "This Agreement is governed by the laws of California."]),
    # an item on the next line ends the line before, even after an initial
    ("k. “Referral Fee” has the meaning assigned in Exhibit B.\nl. “Reseller” has the meaning assigned in the preamble.",
     ["k. “Referral Fee” has the meaning assigned in Exhibit B.", "l. “Reseller” has the meaning assigned in the preamble."]),
    # an initial inside a line is still no sentence's end, nor "i.e."
    ("Signed by John A. Smith for Acme Inc. or its affiliate, i.e. the buyer.",
     ["Signed by John A. Smith for Acme Inc. or its affiliate, i.e. the buyer."]),
])
def test_sentences_end_at_item_and_heading_boundaries(text, sentences):
    assert [text[a:b] for a, b in sentence_spans(text)] == sentences


@pytest.mark.parametrize(("text", "heading"), [
    ("g. Governing Law and Forum", True),
    ("a) TERMINATION FOR BREACH.", True),
    ("(b) Obligations.", True),
    ("a. Unless terminated earlier as provided herein, this Agreement shall have the Term.", False),
    ("b) Berkshire represents and warrants to Auriemma that:", False),
    ("(ii) if Company ceases to do business", False),
])
def test_a_lettered_heading_is_a_title_not_a_clause(text, heading):
    assert lettered_heading(text) is heading


@pytest.mark.parametrize("text", [
    TRIGGERS,
    "Fees are due monthly. The term is one year: 1. renewal; 2. notice.",
    "The Seller shall deliver: (a) the goods; and (b) the invoice.\nNo list here. None here either.",
    "Plain sentences only. Nothing enumerated: nothing at all.",
])
def test_a_block_read_as_holding_no_list_has_no_sentence_cut_into_items(text):
    cut = any(item_starts(text, a, b) for a, b in sentence_spans(text))
    assert may_hold_lists(text) or not cut
    assert may_hold_lists(text) == (text != "Plain sentences only. Nothing enumerated: nothing at all.")
