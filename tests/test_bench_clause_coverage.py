"""The held-out clause bench's measure (bench/bench_clause_whole.py): a gold clause is held whole
when its words are covered >= 90 % by verified quotes, a word counting where it sits in a run of 3+
gold words that one quote holds contiguously (pieces split at `<omitted>`)."""

import pytest

from bench.bench_clause_whole import clause_coverage

GOLD = "This Agreement shall be governed by the laws of the State of New York."  # 14 words


@pytest.mark.parametrize(("gold", "quotes", "expected"), [
    (GOLD, [GOLD], 1.0),  # quoted whole
    (GOLD, ["9.3 Governing Law. " + GOLD + " Each party submits to the courts."], 1.0),  # inside a longer quote
    (GOLD, ["This Agreement shall be governed by the laws of the State"], 11 / 14),  # cut before "of New York"
    (GOLD, ["This Agreement shall be governed", "by the laws of the State of New York."], 1.0),  # two quotes
    (GOLD, ["laws of the", "governed by"], 3 / 14),  # a 2-word run counts for nothing
    (GOLD, ["New York law applies to this Agreement."], 0.0),  # same facts, other words
    ("Either party may terminate. <omitted> Notice: 30 days", ["Either party may terminate", "notice 30 days"], 1.0),
    ("Either party may terminate. <omitted> Notice: 30 days", ["Either party may terminate"], 4 / 7),
    ("Delaware", ["the laws of Delaware"], 1.0),  # a piece shorter than a run counts only whole
    ("Delaware", ["the laws of Delawar"], 0.0),
    ("", ["anything"], 0.0),
    ("shall remain in effect for five years", ["shall remain in e\ufb00ect for \ufb01ve years"], 1.0),  # ligatures

])
def test_word_coverage(gold, quotes, expected):
    assert clause_coverage(gold, quotes) == pytest.approx(expected)
