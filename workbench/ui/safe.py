"""Untrusted strings shown as text, never as Markdown: the one place the app enforces it.

Everything that came from a document (text, title, section heading), a file name, a URL query
parameter, a reviewer or a model goes through `text()` before it reaches st.markdown, st.caption,
st.warning/error/success/info, st.write, widget labels, progress/status labels or st.table cells
(all of which Streamlit renders as Markdown). Long untrusted passages that must read character
for character (the quote) are shown with `plain()`, a text element Streamlit does not parse.

Why more than backslash escapes: Streamlit's renderer runs some extensions on the parsed text,
after escapes are resolved: GFM literal autolinks (http://…, www.…, a@b.c), emoji and
`:streamlit:` shortcodes, `:material_…:` icons and `->`-style typography. Those are broken with an
invisible WORD JOINER (U+2060) inside the trigger, so they stay the characters they were.
"""

from __future__ import annotations

import re

import streamlit as st

WJ = "\u2060"  # WORD JOINER: invisible, zero width, breaks the patterns below
# Characters that start Markdown anywhere in a line (CommonMark lets any ASCII punctuation be
# escaped; these are the ones that act mid-line), and those that start a block at a line's start.
_INLINE = re.compile(r"([\\`*_\[\]!<&~$:|])")
_BLOCK_START = re.compile(r"^(\d*)([#>+=.)-])")
_LINE_BREAKS = re.compile(r"\s*[\r\n\u2028\u2029]+\s*")
# Patterns Streamlit's renderer acts on after escapes are gone (see the module docstring).
_AFTER_PARSE = [
    (re.compile(r":"), ":" + WJ),  # :shortcode:, :material_x:, :streamlit:, http://
    (re.compile(r"(?i)(w{3})(?=\.)"), r"\1" + WJ),  # www.example.com
    (re.compile(r"@"), "@" + WJ),  # a@b.example
    (re.compile(r"(?<!\S)([<>~=-])(?=[<>=-](?:>)?(?:\s|$))"), r"\1" + WJ),  # -> <- <-> -- >= <= ~=
]


def text(value: object) -> str:
    """Markdown source that Streamlit displays as exactly the characters of `value`: no link,
    image, badge, colour, icon, emoji, LaTeX, HTML or heading can come out of it. Line breaks
    become single spaces and outer blanks go (a value is shown inline, in the app's own sentence)."""
    s = _LINE_BREAKS.sub(" ", "" if value is None else str(value)).strip()  # no indented code block
    for pattern, repl in _AFTER_PARSE:
        s = pattern.sub(repl, s)
    s = _INLINE.sub(r"\\\1", s)
    return _BLOCK_START.sub(r"\1\\\2", s)  # "# x", "- x", "1. x" would open a heading or a list


def plain(value: object, **kwargs) -> None:
    """Show an untrusted passage as a text element: no Markdown at all, every character kept."""
    st.text("" if value is None else str(value), **kwargs)


def plotly(value: object) -> str:
    """A label for a plotly chart: plotly reads <a href>, <b>, <br> and entities in its text."""
    s = "" if value is None else str(value)
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
