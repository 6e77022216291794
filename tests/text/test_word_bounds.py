"""word_bounds: the whole words around a span, so a quote cut inside a word is seen as cut."""

from __future__ import annotations

import pytest

from workbench.text.terms import word_bounds

TEXT = "The monitor flags unauthorized system activity at once; non-compliant items don't pass."


@pytest.mark.parametrize(("cut", "whole"), [
    ("authorized system activity", "unauthorized system activity"),  # starts inside a word
    ("unauthorized system activ", "unauthorized system activity"),  # ends inside a word
    ("compliant items", "non-compliant items"),  # a hyphen joins a word
    ("t pass", "don't pass"),  # so does an apostrophe
    ("monitor flags", "monitor flags"),  # whole words: unchanged
    ("once;", "once;"),  # punctuation is no part of a word
])
def test_a_span_widens_to_the_whole_words_it_touches(cut, whole):
    i = TEXT.index(cut)
    a, b = word_bounds(TEXT, i, i + len(cut))
    assert TEXT[a:b] == whole


def test_the_ends_of_the_text_are_word_boundaries():
    assert word_bounds(TEXT, 0, len(TEXT)) == (0, len(TEXT))
