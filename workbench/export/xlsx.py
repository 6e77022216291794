"""XLSX (Office Open XML SpreadsheetML) written with the standard library: zipfile and a few XML
parts, no spreadsheet package to install. Enough for exports a reviewer opens in Excel or
LibreOffice: several sheets, a bold header row, frozen panes, column widths, an autofilter, solid
fills that mark cells, wrapped text.

Every value is untrusted text and stays text:
- strings are inline strings (`t="inlineStr"`), never formulas: the writer has no `<f>` element,
  so "=HYPERLINK(…)" in a quote is shown as written. A string a spreadsheet would read as a
  formula when typed (=, +, -, @, tab, CR first) also gets the `quotePrefix` style, so editing
  the cell keeps it text; unlike the CSV export, no apostrophe is added, and the quote's
  characters (and so its SHA-256) are the document's own.
- XML special characters are escaped; characters XML 1.0 cannot hold (controls, CR) are written
  as the format's `_xHHHH_` escapes, and a literal "_xHHHH_" in the text is escaped too, so a
  reader gets back exactly the characters given.
- a string longer than Excel's cell limit (32,767 characters) is cut, and says so.

The bytes are the same for the same sheets (fixed zip timestamps): an export can be hashed."""

from __future__ import annotations

import io
import itertools
import re
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import BinaryIO
from xml.sax.saxutils import escape, quoteattr

MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
MAX_CELL_CHARS = 32_767  # Excel's limit on the characters of one cell
TRUNCATED = " … [cut: longer than a spreadsheet cell holds]"
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_BAD_SHEET_NAME = re.compile(r"[\[\]:*?/\\]")
_LITERAL_ESCAPE = re.compile(r"_(?=x[0-9A-Fa-f]{4}_)")
_NOT_XML = re.compile("[\x00-\x08\x0b-\x1f\ufffe\uffff]")  # \t and \n are kept; CR is escaped
_SURROGATE = re.compile("[\ud800-\udfff]")
_NEEDS_WORK = re.compile("_x|[\x00-\x08\x0b-\x1f\ufffe\uffff\ud800-\udfff]")
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)

NS_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
NS_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
NS_PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'

Value = str | int | float | None


@dataclass(frozen=True)
class Cell:
    """A value with its look: `fill`, a name from the workbook's fills; `bold`."""

    value: Value
    fill: str | None = None
    bold: bool = False


@dataclass
class Sheet:
    """One worksheet: a header row (bold), then rows of values or Cells. `widths`: characters per
    column; the header row (and the first `freeze_columns` columns) stays in view."""

    name: str
    header: list[str]
    rows: Iterable[Sequence[Value | Cell]] = field(default_factory=list)  # a generator is read once
    widths: list[float] = field(default_factory=list)
    freeze_columns: int = 0
    autofilter: bool = False


def column_letter(index: int) -> str:
    """0 → A, 25 → Z, 26 → AA."""
    out = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        out = chr(65 + rem) + out
    return out


def cell_ref(row: int, column: int) -> str:
    """(0, 0) → A1: 0-based row and column to the A1 reference."""
    return f"{column_letter(column)}{row + 1}"


def xml_text(value: str) -> str:
    """A string as the XML text of an inline string: cut to the cell limit, OOXML `_xHHHH_`
    escapes for the characters XML cannot hold, then &, < and > escaped."""
    if len(value) > MAX_CELL_CHARS:
        value = value[: MAX_CELL_CHARS - len(TRUNCATED)] + TRUNCATED
    if not _NEEDS_WORK.search(value):  # the common case: only &, < and > to escape
        return escape(value)
    value = _LITERAL_ESCAPE.sub("_x005F_", value)
    value = _SURROGATE.sub("\ufffd", value)
    value = _NOT_XML.sub(lambda m: f"_x{ord(m.group()):04X}_", value)
    return escape(value)


def _check_names(sheets: Sequence[Sheet]) -> None:
    seen: set[str] = set()
    for s in sheets:
        if not s.name or len(s.name) > 31 or _BAD_SHEET_NAME.search(s.name) or s.name.casefold() in seen:
            raise ValueError(f"bad or repeated sheet name {s.name!r}")
        seen.add(s.name.casefold())


class _Styles:
    """cellXfs: 0 the default, then every (bold, fill, quotePrefix) with wrapped, top-aligned text."""

    def __init__(self, fills: Mapping[str, str]):
        self.fills = list(fills.items())
        self.fill_index = {name: i + 1 for i, (name, _) in enumerate(self.fills)}

    def index(self, fill: str | None, bold: bool, quote_prefix: bool) -> int:
        f = self.fill_index[fill] if fill else 0
        return 1 + ((int(bold) * (len(self.fills) + 1) + f) * 2 + int(quote_prefix))

    def xml(self) -> str:
        fills = ['<fill><patternFill patternType="none"/></fill>', '<fill><patternFill patternType="gray125"/></fill>']
        fills += [f'<fill><patternFill patternType="solid"><fgColor rgb={quoteattr(rgb)}/><bgColor indexed="64"/>'
                  f"</patternFill></fill>" for _, rgb in self.fills]
        xfs = ['<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>']
        for bold in (False, True):
            for f in range(len(self.fills) + 1):
                for qp in (False, True):
                    fill_id = f + 1 if f else 0  # fills 0 and 1 are the two the format reserves
                    prefix = ' quotePrefix="1"' if qp else ""
                    xfs.append(f'<xf numFmtId="0" fontId="{int(bold)}" fillId="{fill_id}" borderId="0" xfId="0" '
                               f'applyFont="1" applyFill="1" applyAlignment="1"{prefix}>'
                               '<alignment wrapText="1" vertical="top"/></xf>')
        return (f'{_HEAD}<styleSheet xmlns="{NS_MAIN}">'
                '<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font>'
                '<font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>'
                f'<fills count="{len(fills)}">{"".join(fills)}</fills>'
                '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
                '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
                f'<cellXfs count="{len(xfs)}">{"".join(xfs)}</cellXfs>'
                '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>'
                "</styleSheet>")


def _cell_xml(ref: str, item: Value | Cell, styles: _Styles, bold: bool = False) -> str:
    c = item if isinstance(item, Cell) else Cell(item)
    value, is_text = c.value, isinstance(c.value, str)
    style = styles.index(c.fill, bold or c.bold, is_text and value.startswith(FORMULA_START))
    if value is None or value == "":
        return f'<c r="{ref}" s="{style}"/>' if c.fill or bold or c.bold else ""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        value, is_text = str(value), True
    if not is_text:
        return f'<c r="{ref}" s="{style}"><v>{value!r}</v></c>'
    return f'<c r="{ref}" s="{style}" t="inlineStr"><is><t xml:space="preserve">{xml_text(value)}</t></is></c>'


def _write_sheet(out: BinaryIO, sheet: Sheet, styles: _Styles, selected: bool) -> int:
    """Write the worksheet part row by row (rows may be a generator: a large table is never one
    string in memory); returns the number of rows under the header."""
    fx = sheet.freeze_columns
    pane = "bottomRight" if fx else "bottomLeft"
    tab = ' tabSelected="1"' if selected else ""
    split = f' xSplit="{fx}"' if fx else ""
    top = cell_ref(1, fx)
    cols = "".join(f'<col min="{i + 1}" max="{i + 1}" width="{w:g}" customWidth="1"/>' for i, w in enumerate(sheet.widths))
    out.write((f'{_HEAD}<worksheet xmlns="{NS_MAIN}" xmlns:r="{NS_REL}">'
               f'<sheetViews><sheetView workbookViewId="0"{tab}><pane{split} ySplit="1" topLeftCell="{top}" '
               f'activePane="{pane}" state="frozen"/><selection pane="{pane}" activeCell="{top}" sqref="{top}"/>'
               f'</sheetView></sheetViews><sheetFormatPr defaultRowHeight="15"/>'
               f'{f"<cols>{cols}</cols>" if cols else ""}<sheetData>').encode())
    letters: list[str] = []
    chunk: list[str] = []
    n = 0
    for r, values in enumerate(itertools.chain([sheet.header], sheet.rows)):
        while len(letters) < len(values):
            letters.append(column_letter(len(letters)))
        cells = "".join(_cell_xml(f"{letters[c]}{r + 1}", v, styles, bold=r == 0) for c, v in enumerate(values))
        chunk.append(f'<row r="{r + 1}">{cells}</row>')
        n = r
        if len(chunk) >= 500:
            out.write("".join(chunk).encode("utf-8"))
            chunk.clear()
    autofilter = f'<autoFilter ref="{_filter_range(sheet, n)}"/>' if sheet.autofilter else ""
    out.write(("".join(chunk) + f"</sheetData>{autofilter}</worksheet>").encode("utf-8"))
    return n


def workbook(sheets: Sequence[Sheet], fills: Mapping[str, str] | None = None) -> bytes:
    """The .xlsx bytes of these sheets (the first one opens). `fills`: name → ARGB colour
    ("FFFFEB9C"), the names Cell.fill may use."""
    if not sheets:
        raise ValueError("a workbook needs at least one sheet")
    _check_names(sheets)
    styles = _Styles(fills or {})
    n = len(sheets)
    content_types = (
        f'{_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        + "".join(f'<Override PartName="/xl/worksheets/sheet{i + 1}.xml" '
                  'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
                  for i in range(n))
        + '<Override PartName="/xl/styles.xml" '
          'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>')
    root_rels = (f'{_HEAD}<Relationships xmlns="{NS_PKG_REL}"><Relationship Id="rId1" '
                 f'Type="{NS_REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>')
    book_rels = (f'{_HEAD}<Relationships xmlns="{NS_PKG_REL}">'
                 + "".join(f'<Relationship Id="rId{i + 1}" Type="{NS_REL}/worksheet" Target="worksheets/sheet{i + 1}.xml"/>'
                           for i in range(n))
                 + f'<Relationship Id="rId{n + 1}" Type="{NS_REL}/styles" Target="styles.xml"/></Relationships>')
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, text in (("[Content_Types].xml", content_types), ("_rels/.rels", root_rels),
                           ("xl/_rels/workbook.xml.rels", book_rels), ("xl/styles.xml", styles.xml())):
            z.writestr(_part(name), text.encode("utf-8"))
        counts = []
        for i, s in enumerate(sheets):
            with z.open(_part(f"xl/worksheets/sheet{i + 1}.xml"), "w") as out:
                counts.append(_write_sheet(out, s, styles, i == 0))
        filters = "".join(
            f'<definedName name="_xlnm._FilterDatabase" localSheetId="{i}" hidden="1">'
            f"{escape(_quoted_sheet(s.name))}!{_filter_range(s, counts[i], absolute=True)}"
            "</definedName>" for i, s in enumerate(sheets) if s.autofilter)
        book = (f'{_HEAD}<workbook xmlns="{NS_MAIN}" xmlns:r="{NS_REL}"><bookViews><workbookView activeTab="0"/>'
                "</bookViews><sheets>" + "".join(f'<sheet name={quoteattr(s.name)} sheetId="{i + 1}" r:id="rId{i + 1}"/>'
                                                 for i, s in enumerate(sheets)) + "</sheets>"
                + (f"<definedNames>{filters}</definedNames>" if filters else "") + "</workbook>")
        z.writestr(_part("xl/workbook.xml"), book.encode("utf-8"))
    return buf.getvalue()


def _part(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)  # fixed: the same sheets give the same bytes
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _filter_range(sheet: Sheet, rows: int, *, absolute: bool = False) -> str:
    """The header row's columns down to the last of `rows` rows: what the autofilter spans."""
    col, last = column_letter(max(0, len(sheet.header) - 1)), rows + 1
    return f"$A$1:${col}${last}" if absolute else f"A1:{col}{last}"


def _quoted_sheet(name: str) -> str:
    return "'" + name.replace("'", "''") + "'"
