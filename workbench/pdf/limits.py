"""How much text a page shows, counted before MuPDF extracts it.

Extraction costs about 90 bytes per character inside MuPDF and about 1 KB per word once the
words are Python objects; an 86 KB file can hold a page of 2 M words (a compressed content
stream repeating `(word word …) Tj`). So before a page is extracted, open_pdf reads its content
streams and counts the bytes of the strings its text operators show: a glyph takes 1 to 4 bytes
of a string (PDF code spaces are at most 4 bytes wide), so more than 4 × max_page_chars string
bytes means more than max_page_chars characters and the page is refused without extracting it.
What passes is extracted with bounded memory and then counted exactly (characters and words).

Counted: the page's content streams, the Form XObjects it draws (times the number of `Do`
calls that draw them, nested forms multiplied through), and its annotations' normal
appearances. Not counted: Type 3 glyph procedures (they draw shapes, not text). Text drawn
outside the page is counted though MuPDF would drop it: a page that hides more than the cap off
the page is refused, which errs on the safe side."""

from __future__ import annotations

import re

import pymupdf

# Literal strings (one level of nested parentheses, escapes) and hex strings.
_LITERAL = re.compile(rb"\((?:[^()\\]|\\[\s\S]|\((?:[^()\\]|\\[\s\S])*\))*\)")
_HEX = re.compile(rb"<([0-9A-Fa-f\s]*)>")
_INLINE_IMAGE = re.compile(rb"\bBI\b[\s\S]*?\bID\b[\s\S]*?\bEI\b")
_WS = re.compile(rb"\s+")
BYTES_PER_GLYPH_MAX = 4
_MAX_DEPTH = 12  # nested forms; deeper nesting is not drawn by MuPDF either


def string_bytes(content: bytes) -> int:
    """Bytes the strings in a content stream decode to, never more (an escape `\\ddd` is 4 raw
    bytes for 1; counting 1 less per raw byte after a backslash keeps the figure a floor)."""
    if b"BI" in content:
        content = _INLINE_IMAGE.sub(b" ", content)
    n = 0
    for lit in _LITERAL.findall(content):
        n += len(lit) - 2 - 3 * lit.count(b"\\")
    if b"<" in content:
        for h in _HEX.findall(content):
            n += len(_WS.sub(b"", h)) // 2
    return max(n, 0)


def _invocations(content: bytes, name: str) -> int:
    return len(re.findall(rb"/" + re.escape(name.encode("latin-1", "replace")) + rb"\s+Do\b", content))


def shown_glyphs_floor(doc: pymupdf.Document, page: pymupdf.Page, *, cap: int | None = None) -> int:
    """At least this many glyphs are shown by the page's text operators (see the module doc).

    With `cap`, a page content stream too short to show more than cap glyphs is not scanned
    (it counts 0: still a floor); most pages take that path, so the check costs one read of
    the content stream."""
    forms: dict[int, list[tuple[str, int]]] = {}  # invoker xref (0 = the page) -> [(name, form xref)]
    for xref, name, invoker, _bbox in page.get_xobjects():
        forms.setdefault(invoker, []).append((name, xref))
    memo: dict[int, int] = {}

    def total(content: bytes, invoker: int, depth: int, seen: frozenset[int]) -> int:
        short = invoker == 0 and cap is not None and len(content) <= BYTES_PER_GLYPH_MAX * cap
        n = 0 if short else string_bytes(content)
        if depth >= _MAX_DEPTH:
            return n
        for name, xref in forms.get(invoker, []):
            calls = _invocations(content, name)
            if not calls or xref in seen:
                continue
            if xref not in memo:
                memo[xref] = total(doc.xref_stream(xref) or b"", xref, depth + 1, seen | {xref})
            n += calls * memo[xref]
        return n

    n = total(page.read_contents(), 0, 0, frozenset())
    for annot in page.annots() or []:
        kind, value = doc.xref_get_key(annot.xref, "AP/N")
        if kind == "xref":
            n += string_bytes(doc.xref_stream(int(value.split()[0])) or b"")
    return n // BYTES_PER_GLYPH_MAX
