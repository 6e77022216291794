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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pymupdf

# One left-to-right pass, linear in the stream whatever it holds (a regex for whole strings
# rescans from every "(" of an unclosed string: quadratic on a hostile stream).
_TOKEN = re.compile(rb"\\[\s\S]|[()]|<[0-9A-Fa-f\s]*>|[^()\\<]+|<")
_WS = re.compile(rb"\s+")
_BI = re.compile(rb"\bBI\b")
_ID = re.compile(rb"\bID\s")
_EI = re.compile(rb"\sEI\b")
BYTES_PER_GLYPH_MAX = 4
_MAX_DEPTH = 12  # nested forms; deeper nesting is not drawn by MuPDF either


def _without_inline_images(content: bytes) -> bytes:
    """The stream with inline images (BI … ID binary EI) cut out: their binary data is not text."""
    parts: list[bytes] = []
    pos = 0
    for m in _BI.finditer(content):
        if m.start() < pos:
            continue
        data = _ID.search(content, m.end())
        if data is None:
            break
        end = _EI.search(content, data.end())
        parts.append(content[pos:m.start()])
        pos = end.end() if end else len(content)
        if end is None:
            break
    parts.append(content[pos:])
    return b" ".join(parts)


def string_bytes(content: bytes) -> int:
    """Bytes the strings in a content stream decode to: a literal string's characters (an escape
    is one byte, `\\ddd` included, a backslash before a line break none; nested parentheses are
    characters) and a hex string's digit pairs."""
    if b"BI" in content:
        content = _without_inline_images(content)
    n = depth = octal = 0
    for tok in _TOKEN.findall(content):
        first = tok[:1]
        if depth:
            if first == b"(":
                depth += 1
                n += 1
            elif first == b")":
                depth -= 1
                n += 1 if depth else 0
            elif first == b"\\":
                n += 0 if tok[1:] in (b"\n", b"\r") else 1
                octal = 2 if tok[1:].isdigit() else 0
                continue
            else:
                digits = len(tok) - len(tok.lstrip(b"01234567"))
                n += len(tok) - min(octal, digits)  # the rest of a \ddd escape is not a byte of its own
        elif first == b"(":
            depth = 1
        elif first == b"<" and len(tok) > 1:
            n += len(_WS.sub(b"", tok[1:-1])) // 2
        octal = 0
    return n


def _invocations(content: bytes, name: str) -> int:
    return len(re.findall(rb"/" + re.escape(name.encode("latin-1", "replace")) + rb"\s+Do\b", content))


def shown_glyphs_floor(doc: pymupdf.Document, page: pymupdf.Page, *, cap: int | None = None) -> int:
    """At least this many glyphs are shown by the page's text operators (see the module doc).

    With `cap`, a page content stream too short to show more than cap glyphs is not scanned
    (it counts 0: still a floor); most pages take that path, so the check costs one read of
    the content stream."""
    content = page.read_contents()
    forms: dict[int, list[tuple[str, int]]] = {}  # invoker xref (0 = the page) -> [(name, form xref)]
    if b"Do" in content:  # else the page draws no form (_invocations finds no "/name Do"): none is read
        for xref, name, invoker, _bbox in page.get_xobjects():
            forms.setdefault(invoker, []).append((name, xref))
    n = _total(doc, forms, {}, cap, content, 0, 0, frozenset())
    for annot in page.annots() or []:
        kind, value = doc.xref_get_key(annot.xref, "AP/N")
        if kind == "xref":
            n += string_bytes(doc.xref_stream(int(value.split()[0])) or b"")
    return n // BYTES_PER_GLYPH_MAX


def _total(doc: pymupdf.Document, forms: dict[int, list[tuple[str, int]]], memo: dict[int, int], cap: int | None,
           content: bytes, invoker: int, depth: int, seen: frozenset[int]) -> int:
    """String bytes shown by `content` and the forms it draws (memo: per form xref, its total). A
    function of the module, not a closure calling itself: that closure was a reference cycle a
    page, left for the collector, which open_pdf pauses while it reads the pages."""
    short = invoker == 0 and cap is not None and len(content) <= BYTES_PER_GLYPH_MAX * cap
    n = 0 if short else string_bytes(content)
    if depth >= _MAX_DEPTH:
        return n
    for name, xref in forms.get(invoker, []):
        calls = _invocations(content, name)
        if not calls or xref in seen:
            continue
        if xref not in memo:
            memo[xref] = _total(doc, forms, memo, cap, doc.xref_stream(xref) or b"", xref, depth + 1, seen | {xref})
        n += calls * memo[xref]
    return n
