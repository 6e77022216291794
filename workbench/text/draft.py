"""A drafted answer (plain text or Markdown) → the sentences to check, in order (seed 004's
validate step). Markdown is read as structure, never rendered: headings, code blocks, tables'
rule lines and horizontal rules are not claims and are skipped; list markers, block quotes,
emphasis, inline code and link syntax are removed, keeping the words a reader sees. Each
paragraph or list item is split into sentences separately (a list item is never glued to the
next one)."""

from __future__ import annotations

import re

from workbench.text.sentences import split_sentences

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_RULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_EMPH = re.compile(r"(\*\*|__|\*|_|~~)(?=\S)(.+?)(?<=\S)\1")
_CODE = re.compile(r"`([^`]*)`")
_HTML = re.compile(r"</?[A-Za-z][^>]*>")


def _inline(line: str) -> str:
    line = _IMAGE.sub(r"\1", line)
    line = _LINK.sub(r"\1", line)
    line = _CODE.sub(r"\1", line)
    for _ in range(2):  # **_nested_** emphasis
        line = _EMPH.sub(r"\2", line)
    return _HTML.sub("", line)


def draft_blocks(text: str, markdown: bool = True) -> list[str]:
    """Paragraphs and list items of the draft, Markdown syntax removed, whitespace collapsed."""
    blocks: list[str] = []
    cur: list[str] = []
    in_fence = False
    quoted = False  # the previous line was a block quote's

    def flush() -> None:
        if cur:
            joined = " ".join(" ".join(cur).split())
            if joined:
                blocks.append(joined)
            cur.clear()

    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if not raw.strip():
            flush()
            quoted = False
            continue
        if not markdown:
            cur.append(raw)
            continue
        if _FENCE.match(raw):
            flush()
            in_fence = not in_fence
            continue
        if in_fence or _HEADING.match(raw) or _RULE.match(raw) or _TABLE_RULE.match(raw):
            flush()
            continue
        if _SETEXT.match(raw) and cur:  # the paragraph above was a heading
            cur.clear()
            continue
        line = _QUOTE.sub("", raw)
        if (line != raw) != quoted:  # a block quote starts or ends: a new block
            flush()
            quoted = line != raw
        if _ITEM.match(line):
            flush()
            line = _ITEM.sub("", line)
        if line.strip().startswith("|"):  # a table row: its cells, as one block
            flush()
            cur.append(" ".join(c.strip() for c in line.strip().strip("|").split("|")))
            flush()
            continue
        cur.append(_inline(line))
    flush()
    return blocks


def draft_sentences(text: str, markdown: bool = True) -> list[str]:
    """The draft's sentences, in order: each one a claim to check."""
    return [s for b in draft_blocks(text, markdown) for s in split_sentences(b) if any(ch.isalnum() for ch in s)]
