"""workbench.ui.safe.text: Markdown source whose characters are the value's, with every construct
Streamlit would act on (escapes first, then its after-parse extensions) disarmed."""

from __future__ import annotations

import re

import pytest

from tests.ui.conftest import shown
from workbench.ui.safe import plotly, text

CASES = [
    "![x](http://203.0.113.5/t.png)", ":green-badge[VERIFIED]", ":red[x]", ":material/home:", ":smile:", ":streamlit:",
    "$x^2$", "<img src=x>", "&lt;b&gt;", "**bold** _it_ ~~s~~ `c`", "www.example.com", "mail a@b.example",
    "# heading", "- item", "1. item", "> quote", "a -> b <- c -- d", "| a | b |", "back\\slash", "[^1]",
]


@pytest.mark.parametrize("value", CASES)
def test_text_shows_the_same_characters(value):
    assert shown(text(value)) == value


@pytest.mark.parametrize("value", CASES)
def test_no_markdown_trigger_survives_unescaped(value):
    md = text(value)
    unescaped = re.sub(r"\\.", "", md)  # what is left once escaped characters are set aside
    assert not re.search(r"[\[\]!<&$:`*_~|]", unescaped), md
    assert not re.match(r"\s*([#>+=-]|\d+[.)])", unescaped), md
    # after the parser resolves escapes, the text-level extensions find no trigger
    resolved = re.sub(r"\\(.)", r"\1", md)  # keeps the word joiners, as the renderer does
    assert not re.search(r"https?://|www\.|:[\w+-]+:|@\w|(^|\s)(->|<-|--)(\s|$)", resolved), resolved


def test_line_breaks_become_spaces_so_no_block_starts_mid_value():
    assert shown(text("a\n\n# b\n- c")) == "a # b - c"


def test_plotly_labels_are_entity_escaped():
    assert plotly('<a href="http://x">q</a>') == '&lt;a href="http://x"&gt;q&lt;/a&gt;'
