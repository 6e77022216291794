"""The held-out typesetter (bench/render_cuad_train.py): every source word reaches the page; the
test and train splits it typesets name different contracts."""

from __future__ import annotations

import pytest

from bench.render_cuad_train import break_lines, lost_words, paragraphs, render, split_names


def chars(s: str) -> float:
    return float(len(s))


@pytest.mark.parametrize("words, width, lines", [
    (["a", "bb", "ccc"], 10, ["a bb ccc"]),  # fits on one line
    (["aaaa", "bbbb", "cc"], 9, ["aaaa bbbb", "cc"]),  # breaks before the word that overflows
    (["abcdefghij", "k"], 4, ["abcd", "efgh", "ij k"]),  # a word wider than a line is cut, not dropped
    ([], 10, []),
])
def test_lines_are_greedy_and_lose_no_character(words, width, lines):
    assert break_lines(words, width, chars) == lines
    assert "".join(lines).replace(" ", "") == "".join(words)


def test_paragraphs_are_the_non_empty_lines_with_control_characters_as_spaces():
    assert paragraphs("1. Term.\r\n\r\nThe term\x0bis one year.\n  \n") == [["1.", "Term."], ["The", "term", "is", "one", "year."]]


def test_a_paragraph_longer_than_a_page_comes_back_whole(tmp_path):
    text = "Heading\n" + " ".join(f"word{i}" for i in range(2500)) + "\nLast line.\n"
    pdf = tmp_path / "long.pdf"
    assert render(text, pdf, "long") >= 3
    assert lost_words(text, pdf) == 0
    assert lost_words(text + "Extra words never rendered\n", pdf) == 4


def test_the_train_and_test_splits_name_different_contracts(corpus):
    test, train = split_names(corpus), split_names(corpus, "train")
    assert test and train and not set(test) & set(train)
    assert test == split_names(corpus, "test") == sorted(test)  # the default is the test split
    with pytest.raises(ValueError):
        split_names(corpus, "calib")
