"""A small reader of .xlsx files for the tests, written against the format (ECMA-376), not against
workbench.export.xlsx: the workbook's sheets by name, each cell's value as a spreadsheet shows it
(the `_xHHHH_` escapes resolved), its fill colour, whether it is a formula, and its quotePrefix."""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from io import BytesIO
from xml.etree import ElementTree as ET

M = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
PR = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_ESCAPE = re.compile(r"_x([0-9A-Fa-f]{4})_")
_REF = re.compile(r"([A-Z]+)(\d+)")


@dataclass
class XCell:
    value: str | int | float | None
    fill: str | None  # the solid fill's ARGB, None without one
    formula: bool
    quote_prefix: bool


def _unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)


def _col(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n - 1


class Workbook:
    def __init__(self, data: bytes):
        self.zip = zipfile.ZipFile(BytesIO(data))
        for name in self.zip.namelist():  # every part is well-formed XML
            ET.fromstring(self.zip.read(name))
        book = ET.fromstring(self.zip.read("xl/workbook.xml"))
        rels = {r.get("Id"): r.get("Target") for r in ET.fromstring(self.zip.read("xl/_rels/workbook.xml.rels"))
                .iter(f"{PR}Relationship")}
        self.sheet_paths = {s.get("name"): "xl/" + rels[s.get(f"{R}id")] for s in book.iter(f"{M}sheet")}
        styles = ET.fromstring(self.zip.read("xl/styles.xml"))
        fills = []
        for f in styles.find(f"{M}fills"):
            fg = f.find(f"{M}patternFill/{M}fgColor")
            fills.append(fg.get("rgb") if fg is not None else None)
        self.xfs = [(fills[int(x.get("fillId", 0))], x.get("quotePrefix") == "1")
                    for x in styles.find(f"{M}cellXfs")]

    @property
    def sheet_names(self) -> list[str]:
        return list(self.sheet_paths)

    def xml(self, sheet: str) -> str:
        return self.zip.read(self.sheet_paths[sheet]).decode("utf-8")

    def cells(self, sheet: str) -> dict[str, XCell]:
        """A1 reference → the cell."""
        out = {}
        for c in ET.fromstring(self.xml(sheet)).iter(f"{M}c"):
            fill, qp = self.xfs[int(c.get("s", 0))]
            kind = c.get("t")
            if kind == "inlineStr":
                value = _unescape("".join(t.text or "" for t in c.iter(f"{M}t")))
            elif c.find(f"{M}v") is not None:
                raw = c.find(f"{M}v").text
                value = raw if kind in ("str", "s") else float(raw) if "." in raw else int(raw)
            else:
                value = None
            out[c.get("r")] = XCell(value, fill, c.find(f"{M}f") is not None, qp)
        return out

    def rows(self, sheet: str) -> list[list]:
        """The sheet's values as a grid (None where no cell)."""
        cells = self.cells(sheet)
        at = {(int(m.group(2)) - 1, _col(m.group(1))): c.value for ref, c in cells.items() if (m := _REF.fullmatch(ref))}
        if not at:
            return []
        h, w = max(r for r, _ in at) + 1, max(c for _, c in at) + 1
        return [[at.get((r, c)) for c in range(w)] for r in range(h)]

    def records(self, sheet: str) -> list[dict]:
        """Rows under the header as dicts keyed by the header."""
        head, *rest = self.rows(sheet)
        return [dict(zip(head, r, strict=False)) for r in rest if any(v is not None for v in r)]
