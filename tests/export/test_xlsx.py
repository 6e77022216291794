"""XLSX without a spreadsheet package: the file opens as a zip of well-formed SpreadsheetML, every
value reads back as the exact characters given (untrusted text is text: escaped, never a formula),
and a review table exports as a reviewer reads it — a row per document, a column per question,
each cell its answer and citation IDs, stale / corrected / not-found cells filled as the legend
says — with every citation and every review event on their own sheets."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.export.xlsx_read import Workbook
from workbench.export.table import table_xlsx
from workbench.export.xlsx import MAX_CELL_CHARS, Cell, Sheet, workbook
from workbench.models import (
    CELL_ID,
    NO_AUTHORITATIVE_EVIDENCE,
    CellCitation,
    ReviewEvent,
    ReviewTable,
    TableCell,
    TableColumn,
    TableRow,
    TableView,
    sha256_text,
)

HOSTILE = [
    "<b>bold</b> & <script>alert(1)</script> ]]> &amp;",
    "\"double\" and 'single' quotes",
    "two\nlines\tand a tab",
    "bell\x07 nul\x00 vertical tab\x0b CR\r\nLF",
    "_x0041_ is literal text, not an escaped A",
    "emoji 😀 and ümlaut",
]
FORMULAS = ['=HYPERLINK("http://evil.example","click")', "+1+1", "-2+3", "@SUM(A1:A2)", "\t=1", "\r=1"]


def _one_sheet(values: list) -> Workbook:
    return Workbook(workbook([Sheet("S", ["value"], rows=[[v] for v in values])]))


def test_untrusted_text_is_escaped_and_reads_back_character_for_character():
    book = _one_sheet(HOSTILE)
    assert [r[0] for r in book.rows("S")] == ["value", *HOSTILE]
    assert "<script>" not in book.xml("S") and "&lt;script&gt;" in book.xml("S")


def test_a_lone_surrogate_cannot_be_written_and_becomes_the_replacement_character():
    assert _one_sheet(["a\ud800b"]).rows("S")[1] == ["a\ufffdb"]


def test_text_that_looks_like_a_formula_is_a_string_never_a_formula():
    book = _one_sheet([*FORMULAS, "plain text"])
    cells = book.cells("S")
    assert "<f>" not in book.xml("S") and not any(c.formula for c in cells.values())
    # stored as written (no apostrophe added: a quote keeps its SHA-256), marked text-as-typed
    assert [cells[f"A{i + 2}"].value for i in range(len(FORMULAS))] == FORMULAS
    assert all(cells[f"A{i + 2}"].quote_prefix for i in range(len(FORMULAS)))
    assert not cells[f"A{len(FORMULAS) + 2}"].quote_prefix


def test_numbers_stay_numbers_and_empty_values_leave_no_cell():
    book = Workbook(workbook([Sheet("S", ["n", "x", "e"], rows=[[3, 2.5, None]])]))
    assert book.rows("S") == [["n", "x", "e"], [3, 2.5, None]]
    assert "C2" not in book.cells("S")


def test_a_value_longer_than_a_cell_holds_is_cut_and_says_so():
    (value,) = _one_sheet(["x" * (MAX_CELL_CHARS + 10)]).rows("S")[1]
    assert len(value) == MAX_CELL_CHARS and value.endswith("longer than a spreadsheet cell holds]")


def test_fills_header_and_frozen_panes():
    book = Workbook(workbook([Sheet("S", ["a", "b"], rows=[[Cell("x", fill="warn"), "y"]], freeze_columns=1)],
                             fills={"warn": "FFFFEB9C"}))
    cells = book.cells("S")
    assert (cells["A2"].fill, cells["B2"].fill) == ("FFFFEB9C", None)
    assert 'state="frozen"' in book.xml("S") and 'xSplit="1"' in book.xml("S")


def test_the_same_sheets_give_the_same_bytes_and_bad_sheet_names_are_refused():
    sheets = [Sheet("One", ["a"], rows=[["x"]]), Sheet("Two", ["b"], rows=[[1]])]
    assert workbook(sheets) == workbook(sheets)
    assert Workbook(workbook(sheets)).sheet_names == ["One", "Two"]
    for bad in ("a/b", "x" * 32, ""):
        with pytest.raises(ValueError):
            workbook([Sheet(bad, ["a"])])
    with pytest.raises(ValueError):
        workbook([Sheet("Same", ["a"]), Sheet("same", ["a"])])


# --- a review table -------------------------------------------------------------------------------
DOC_A, DOC_B = "a" * 64, "b" * 64
QUOTE_A = "This Agreement shall be governed by the laws of the State of Delaware."
QUOTE_B = "=HYPERLINK(\"http://evil.example\",\"x\") governed by the laws of <b>Texas</b>"
WHEN = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def _cite(rid: str, doc: str, quote: str, page: int, label: str | None = None) -> CellCitation:
    return CellCitation(requirement_id=rid, document_id=doc, page=page, page_label=label, quote=quote,
                        text_sha256=sha256_text(quote))


def _view() -> tuple[TableView, dict]:
    table = ReviewTable(table_id="t1", name="Falcon",
                        rows=[TableRow(key="a.pdf", document_id=DOC_A, filename="a.pdf"),
                              TableRow(key="b.pdf", document_id=DOC_B, filename="b.pdf")],
                        columns=[TableColumn(key="Governing law", question="Which law governs?", kind="jurisdiction"),
                                 TableColumn(key="Notice", question="What notice period?", kind="duration")])
    base = dict(table_id="t1", question="q", status="done", grounding_confidence="medium")
    cells = [
        TableCell(**base, row_key="a.pdf", column_key="Governing law", document_id=DOC_A, filename="a.pdf",
                  short_answer="Delaware", normalized="Delaware", machine_short_answer="Delaware", run_id="run-1",
                  citations=[_cite("REQ-C001", DOC_A, QUOTE_A, 3, "2")], basis="REQ-C001"),
        TableCell(**base, row_key="a.pdf", column_key="Notice", document_id=DOC_A, filename="a.pdf",
                  short_answer="60 days", normalized="60 days", machine_short_answer="thirty (30) days",
                  review="corrected", reviewed_by="dana", review_note="the side letter says 60", run_id="run-2",
                  citations=[_cite("REQ-C002", DOC_A, "on thirty (30) days' notice", 1)], basis="REQ-C002"),
        TableCell(**{**base, "status": "stale"}, row_key="b.pdf", column_key="Governing law", document_id=DOC_B,
                  filename="b.pdf", short_answer="Texas", normalized="Texas", stale=["the question changed"],
                  run_id="run-3", citations=[_cite("REQ-C003", DOC_B, QUOTE_B, 5)], basis="REQ-C003"),
        TableCell(**base, row_key="b.pdf", column_key="Notice", document_id=DOC_B, filename="b.pdf",
                  short_answer="not found", result=NO_AUTHORITATIVE_EVIDENCE, run_id="run-4"),
    ]
    trail = {("a.pdf", "Notice"): [ReviewEvent(id=7, run_id="run-2", requirement_id=CELL_ID, label="supported",
                                               reviewer="dana", note="the side letter says 60", timestamp=WHEN,
                                               kind="correction", value="60 days")]}
    return TableView(table=table, cells=cells, engine_version="0.1.0-p1-abc", counts={"done": 3, "stale": 1}), trail


@pytest.fixture
def book() -> Workbook:
    view, trail = _view()
    return Workbook(table_xlsx(view, trail))


def test_a_table_is_a_row_per_document_and_a_column_per_question_each_cell_its_answer_and_ids(book):
    assert book.sheet_names == ["Table", "Citations", "Audit trail", "Legend"]
    assert book.rows("Table") == [
        ["Document", "Governing law", "Notice", "Document SHA-256"],
        ["a.pdf", "Delaware [REQ-C001]", "60 days (corrected by dana; the engine said: thirty (30) days [REQ-C002])",
         DOC_A],
        ["b.pdf", "stale: Texas [REQ-C003]", "not found", DOC_B],
    ]


def test_stale_corrected_and_not_found_cells_are_filled_as_the_legend_says(book):
    legend = {r[0]: r for r in book.rows("Legend")[1:] if r and r[0]}
    fill_of = {name: c.fill for name, c in ((v.value, v) for v in book.cells("Legend").values()) if name in legend}
    assert {"stale", "corrected", "not found"} <= set(fill_of)
    assert NO_AUTHORITATIVE_EVIDENCE in legend["not found"][1]
    cells = book.cells("Table")
    assert (cells["B2"].fill, cells["C2"].fill, cells["B3"].fill, cells["C3"].fill) == (
        None, fill_of["corrected"], fill_of["stale"], fill_of["not found"])
    assert len({fill_of["corrected"], fill_of["stale"], fill_of["not found"]}) == 3


def test_every_citation_is_listed_with_its_cell_quote_page_hash_status_and_correction(book):
    law_a, notice_a, law_b = book.records("Citations")
    assert (law_a["Cell"], law_a["Evidence ID"], law_a["Page"], law_a["PDF page"], law_a["Quote"]) == (
        "B2", "REQ-C001", "2", 3, QUOTE_A)
    assert law_a["Quote SHA-256"] == sha256_text(QUOTE_A) and law_a["Status"] == "supported"
    assert law_a["Evidence link"] == "/review?run=run-1&evidence=REQ-C001" and law_a["Reviewer correction"] is None
    assert (notice_a["Cell"], notice_a["Reviewer correction"], notice_a["Corrected by"], notice_a["Reason"]) == (
        "C2", "60 days", "dana", "the side letter says 60")
    # a hostile quote is the document's characters, hash intact, and not a formula
    assert (law_b["Cell"], law_b["Quote"], law_b["Stale"]) == ("B3", QUOTE_B, "the question changed")
    assert law_b["Quote SHA-256"] == sha256_text(QUOTE_B)
    assert "<f>" not in book.xml("Citations") and "<b>Texas" not in book.xml("Citations")


def test_the_audit_trail_lists_every_review_event_of_every_cell(book):
    (event,) = book.records("Audit trail")
    assert (event["Cell"], event["Reviewer"], event["Kind"], event["Correction"], event["Note"], event["When (UTC)"],
            event["Event ID"]) == ("C2", "dana", "correction", "60 days", "the side letter says 60",
                                   "2025-03-01 12:00:00", 7)
    assert event["Evidence ID"] is None  # a correction is of the cell, not of one evidence item


def test_rows_may_be_a_generator_and_the_autofilter_spans_every_row_written():
    book = Workbook(workbook([Sheet("S", ["n"], rows=([i] for i in range(3)), autofilter=True)]))
    assert book.rows("S") == [["n"], [0], [1], [2]]
    assert "'S'!$A$1:$A$4" in book.zip.read("xl/workbook.xml").decode() and 'ref="A1:A4"' in book.xml("S")
