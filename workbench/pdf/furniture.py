"""Running headers, footers and page numbers: lines at the top or bottom of a page that repeat
across pages (digits ignored) or are bare page numbers; and the line numbers down the margin of
a transcript or pleading paper. They are skipped only when matching a
quote across a page break and when segmenting; doc.text keeps them."""

from __future__ import annotations

import re
from collections import Counter

from workbench.pdf.normalize import key

_PAGE_NO = re.compile(r"^\s*(page\s*)?[-–—(\[]?\s*([0-9]{1,4}|[ivxlcdm]{1,7})\s*[-–—)\]]?\s*(of\s*[0-9]{1,4})?\s*$", re.I)
# "-8-" anywhere on a page: the page number of an original page set inside a reprint's page
# (EDGAR filings put several letter pages on one), between the halves of a sentence
_INSET_PAGE_NO = re.compile(r"^\s*[-–—]\s*[0-9]{1,4}\s*[-–—]\s*$")
# "2.", "3.8": a section number set in the margin beside its title, on many pages; repeated, it
# still numbers a section (ASIANDRAGON's reseller agreement lost every top-level number to this)
_SECTION_NO = re.compile(r"^\s*[0-9]{1,2}(?:\.[0-9]{1,2}){0,3}\.\s*$|^\s*[0-9]{1,2}(?:\.[0-9]{1,2}){1,3}\s*$")
EDGE_LINES = 3  # rows of lines looked at on each edge of a page
ROW_TOLERANCE = 3.0  # points: lines this close in height sit on one row


_LETTER = re.compile(r"[^\W\d_]")


def _edge_rows(lines: list, at) -> list:
    """The lines of the EDGE_LINES rows nearest an edge (`at`: a line's distance from it). A row
    may hold several lines: the Federal Register's typesetting slug at the foot of each page is
    nine ("VerDate …", "Jkt 250001", "Frm 00003", …) on one baseline; counting lines, not rows,
    kept six of them in the text, where they glued the page's first sentence to the last one.
    Numbers side by side on a row are a table's cells, never furniture (`furniture_lines`): a
    page number stands alone or beside words."""
    out: list = []
    rows: list[float] = []
    for ln in sorted(lines, key=at):
        v = at(ln)
        if not rows or v - rows[-1] > ROW_TOLERANCE:
            if len(rows) == EDGE_LINES:
                break
            rows.append(v)
        out.append(ln)
    return out


_DIGITS = re.compile(r"[0-9]+")


def signature(text: str) -> str:
    return _DIGITS.sub("#", key(text))


def furniture_lines(pages: list[list[tuple[int, float, float, str]]],
                    margins: list[list[int]] | None = None, beside: dict[int, str] | None = None) -> set[int]:
    """pages: per page, its lines as (line id, top y, bottom y, text); margins: per page, ids of
    lines standing in the left/right margin (side text); beside: bare numbers set just left of a
    line of words on their row -> that line's text. Returns furniture line ids.

    A bare number beside words is a page number only when the words repeat from page to page (a
    running footer's "4  Annual Report"); beside words that do not, it numbers a section set with
    its title in the margin ("12" / "Governing Law; Dispute Resolution."), on any line of the page."""
    candidates: list[list[tuple[int, str]]] = []
    for pno, lines in enumerate(pages):
        if not lines:
            candidates.append([])
            continue
        edge = {ln[0]: ln for ln in _edge_rows(lines, lambda ln: ln[1]) + _edge_rows(lines, lambda ln: -ln[2])}
        if margins:
            side = set(margins[pno])
            edge.update({ln[0]: ln for ln in lines if ln[0] in side})
        cells = [v for v in edge.values() if not _LETTER.search(v[3])]
        candidates.append([(lid, v[3]) for lid, v in edge.items() if len(v[3]) <= 160
                           and not (v in cells and any(c is not v and abs(c[1] - v[1]) <= ROW_TOLERANCE for c in cells))])
    sigs = {t: signature(t) for cands in candidates for _, t in cands}  # each text keyed once, read twice
    counts: Counter[str] = Counter()
    for cands in candidates:
        counts.update({sigs[t] for _, t in cands})
    n_pages = sum(1 for p in pages if p)
    need = max(3, int(0.3 * n_pages)) if n_pages >= 4 else 10**9
    out: set[int] = {ln[0] for lines in pages for ln in lines if _INSET_PAGE_NO.match(ln[3])}
    beside = beside or {}
    for cands in candidates:
        for lid, text in cands:
            sig = sigs[text]
            if lid in beside and counts[signature(beside[lid])] < need:
                continue
            if _PAGE_NO.match(text) or (sig and counts[sig] >= need and not _SECTION_NO.match(text)):
                out.add(lid)
    return out


BESIDE_GAP = 36.0  # points (half an inch): how far right of a bare number its title may start


def numbers_beside_words(boxes: list[tuple[int, float, float, float, str]]) -> dict[int, str]:
    """One page's bare numbers (as a page number is written) each with the text of the line of words
    that starts within BESIDE_GAP right of it on its row. boxes: (line id, x0, x1, top y, text)."""
    out: dict[int, str] = {}
    for lid, _x0, x1, y, text in boxes:
        if len(text) <= 8 and _PAGE_NO.match(text):
            mate = next((b for b in boxes if b[0] != lid and abs(b[3] - y) <= ROW_TOLERANCE
                         and 0 <= b[1] - x1 <= BESIDE_GAP and _LETTER.search(b[4])), None)
            if mate is not None:
                out[lid] = mate[4]
    return out


_LINE_NO = re.compile(r"^\s*([0-9]{1,2})\s*$")
LINE_NUMBERS_MIN = 5  # numbers counting up, one under the other, before a margin's numbers are furniture
ALIGN = 3.0  # points: the numbers are set flush right (or left) on one edge


def margin_line_numbers(lines: list[tuple[int, float, float, float, str]], text_left: float) -> set[int]:
    """Ids of the line numbers down a page's left margin (court transcripts, pleading paper):
    bare numbers set on one edge, left of where the text starts, counting up by one from top to
    bottom, evenly spaced, at least LINE_NUMBERS_MIN of them. lines: (line id, x0, x1, top y, text). Read as
    text they fall between the halves of sentences ("came on for oral argument … 14 15 16 at
    1:01 p.m.")."""
    nums = [(ln, int(m.group(1))) for ln in lines if (m := _LINE_NO.match(ln[4])) and ln[2] <= text_left + ALIGN]
    out: set[int] = set()

    def keep(run: list) -> None:
        gaps = [b[0][3] - a[0][3] for a, b in zip(run, run[1:], strict=False)]
        if len(run) >= LINE_NUMBERS_MIN and max(gaps) <= 1.5 * min(gaps):  # evenly spaced, unlike a contents page's
            out.update(ln[0] for ln, _n in run)

    for edge in (2, 1):  # flush right, then flush left
        groups: dict[int, list[tuple[tuple[int, float, float, float, str], int]]] = {}
        for ln, n in nums:
            groups.setdefault(round(ln[edge] / ALIGN), []).append((ln, n))
        for group in groups.values():
            group.sort(key=lambda t: t[0][3])
            run = [group[0]] if group else []
            for prev, cur in zip(group, group[1:], strict=False):
                if cur[1] == prev[1] + 1:
                    run.append(cur)
                    continue
                keep(run)
                run = [cur]
            keep(run)
    return out
