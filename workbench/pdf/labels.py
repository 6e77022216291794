"""Printed page labels: what an auditor reads on the page ("28"), not the PDF position (40).

Two sources, in order: the PDF's own /PageLabels (PyMuPDF page.get_label()), else the folio
printed in the running header or footer, accepted only when it is consistent: the same offset
from the PDF position on at least half the pages that show one (and on three pages or more).
Pages without a label get "" (front matter before the first folio, a blank page)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pymupdf

    from workbench.pdf.document import ParsedDocument

_HEX_PREFIX = re.compile(r"<(FEFF(?:[0-9A-Fa-f]{4})*)>")
_ROMAN = re.compile(r"^(?=[mdclxvi])m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$", re.I)
# A folio alone, or "Page 28", "- 28 -", "28 of 101", possibly after a running title ("CHAPTER THREE PAGE 28").
_FOLIO = re.compile(r"(?:^|\s|page\s*)[-–—(\[]?\s*([0-9]{1,4}|[ivxlcdm]{1,7})\s*[-–—)\]]?\s*(?:of\s*[0-9]{1,4})?\s*$",
                    re.I)
# Or leading a running title on verso pages ("4 FREE CULTURE").
_LEAD = re.compile(r"^\s*([0-9]{1,4}|[ivxlcdm]{1,7})\s+\S", re.I)
_EDGE = 0.12
_NEAR = 3  # pages either side where the same offset confirms a folio  # top/bottom fraction of the page where a folio is looked for


def pdf_page_labels(doc: pymupdf.Document) -> list[str]:
    """The PDF's /PageLabels, one per page ("" when the PDF has none). Repairs a prefix that
    PyMuPDF leaves as a UTF-16 hex string ("<FEFF0043>1" → "C1")."""
    try:
        if not doc.get_page_labels():
            return []
        labels = [doc[i].get_label() or "" for i in range(doc.page_count)]
    except Exception:  # noqa: BLE001 - a damaged label tree: no labels rather than no document
        return []
    return [_HEX_PREFIX.sub(lambda m: bytes.fromhex(m.group(1)[4:]).decode("utf-16-be", "replace"), s)
            for s in labels]


def roman_value(s: str) -> int | None:
    if not s or not _ROMAN.match(s):
        return None
    vals = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
    s = s.lower()
    total = 0
    for i, ch in enumerate(s):
        v = vals[ch]
        total += -v if i + 1 < len(s) and vals[s[i + 1]] > v else v
    return total


def _to_roman(n: int) -> str:
    out = ""
    for v, r in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"),
                 (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        while n >= v:
            out += r
            n -= v
    return out


def _fmt(kind: str, value: int) -> str:
    return str(value) if kind == "arabic" else _to_roman(value)


def printed_folios(parsed: ParsedDocument) -> list[str]:
    """Folios read from the running header/footer, one per page ("" where none is reliable)."""
    n = len(parsed.pages)
    seen: list[list[tuple[str, str]]] = [[] for _ in range(n)]  # per page: (kind, token)
    furniture = parsed.furniture  # running headers/footers: a table of contents line is not a folio
    for li, ln in enumerate(parsed.lines):
        page = parsed.pages[ln.page - 1]
        if li not in furniture or not (ln.y1 <= _EDGE * page.height or ln.y0 >= (1 - _EDGE) * page.height):
            continue
        line = parsed.text[ln.start:ln.end]
        for m in (_FOLIO.search(line), _LEAD.match(line)):
            if m:
                tok = m.group(1)
                seen[ln.page - 1].append(("arabic" if tok.isdigit() else "roman", tok))
    labels = [""] * n
    for kind in ("arabic", "roman"):
        offsets: list[set[int]] = [set() for _ in range(n)]
        for i, toks in enumerate(seen):
            if labels[i]:
                continue
            for k, tok in toks:
                v = int(tok) if k == "arabic" else roman_value(tok)
                if k == kind and v is not None:
                    offsets[i].add(v - (i + 1))
        # A folio counts when a nearby page shows the same offset (inserted plates shift it).
        confirmed = {i: o for i in range(n) for o in offsets[i]
                     if any(o in offsets[j] for j in range(max(0, i - _NEAR), min(n, i + _NEAR + 1)) if j != i)}
        # ... and belongs to a run of three or more such pages (a table's numbers rarely do).
        runs: list[list[int]] = []
        for i in sorted(confirmed):
            if runs and confirmed[runs[-1][-1]] == confirmed[i] and i - runs[-1][-1] <= _NEAR:
                runs[-1].append(i)
            else:
                runs.append([i])
        confirmed = {i: confirmed[i] for r in runs if len(r) >= 3 for i in r}
        pages_with = sum(1 for o in offsets if o)
        if len(confirmed) < 3 or len(confirmed) < 0.5 * pages_with:
            continue
        ordered = sorted(confirmed)
        for i in ordered:
            labels[i] = _fmt(kind, confirmed[i] + i + 1)
        # A page between two confirmed pages with the same offset (blank, chapter opener) follows them.
        for i, j in zip(ordered, ordered[1:], strict=False):
            if confirmed[i] == confirmed[j]:
                for k in range(i + 1, j):
                    labels[k] = labels[k] or _fmt(kind, confirmed[i] + k + 1)
    return labels


def page_labels(parsed: ParsedDocument, pdf_labels: list[str] | None) -> list[str]:
    """One printed label per page: the PDF's labels when it has any, else the printed folios."""
    if pdf_labels and any(pdf_labels) and len(pdf_labels) == len(parsed.pages):
        return pdf_labels
    return printed_folios(parsed)
