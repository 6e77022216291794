"""A review table as CSV (one line per cell: the short answer, its normalised form, status, review
and every citation with its deep link), JSON (the TableView as the service builds it) or XLSX (the
table as a reviewer reads it: one row per document, one column per question, each cell its answer
and citation IDs, coloured when stale, corrected or not found; a sheet of every citation; the audit
trail of every cell; a legend). Text a spreadsheet would evaluate as a formula is defused as in
csv_rows (CSV) and export.xlsx (XLSX)."""

from __future__ import annotations

import csv
import io
from urllib.parse import urlencode

from workbench.export.common import ocr_note
from workbench.export.csv_rows import cell as csv_cell
from workbench.export.xlsx import MEDIA_TYPE as XLSX_MEDIA_TYPE
from workbench.models import (
    CELL_ID,
    NO_AUTHORITATIVE_EVIDENCE,
    CellCitation,
    ReviewEvent,
    TableCell,
    TableView,
    cite_page,
)

COLUMNS = ["table_id", "document", "document_id", "column", "question", "status", "stale", "short_answer",
           "normalized", "machine_short_answer", "result", "grounding_confidence", "review", "reviewed_by",
           "review_note", "citations", "evidence_links", "answer", "run_id"]


def deep_link(run_id: str | None, requirement_id: str | None) -> str:
    """The app path that opens a cell's evidence on the Review page, highlighted."""
    return "/review?" + urlencode({k: v for k, v in (("run", run_id), ("evidence", requirement_id)) if v})


def _ocr(c: CellCitation) -> str:
    """" (read by OCR, confidence 0.87, lowest word 0.41)" after the page of a quote OCR read."""
    note = ocr_note(c)
    return f" ({note})" if note else ""


def cell_row(c: TableCell) -> dict:
    return {
        "table_id": c.table_id, "document": c.filename, "document_id": c.document_id, "column": c.column_key,
        "question": c.question, "status": c.status, "stale": "; ".join(c.stale), "short_answer": c.short_answer,
        "normalized": c.normalized, "machine_short_answer": c.machine_short_answer, "result": c.result,
        "grounding_confidence": c.grounding_confidence if c.run_id else None, "review": c.review,
        "reviewed_by": c.reviewed_by, "review_note": c.review_note,
        "citations": " | ".join(f"[{x.requirement_id}]{' amendment,' if x.amendment else ''} "
                                f"{cite_page(x.page, x.page_label) if x.page else 'not located'}"
                                f"{_ocr(x)}: \u201c{x.quote}\u201d" for x in c.citations),
        "evidence_links": " ".join(deep_link(c.run_id, x.requirement_id) for x in c.citations),
        "answer": c.answer, "run_id": c.run_id,
    }


MEDIA_TYPES = {"xlsx": XLSX_MEDIA_TYPE, "csv": "text/csv", "json": "application/json"}  # the file extension is the format's name


def render_table(view: TableView, fmt: str,
                 trail: dict[tuple[str, str], list[ReviewEvent]] | None = None) -> tuple[bytes, str, str]:
    """(bytes, media type, extension). `trail`: each cell's review events, for the XLSX audit sheet."""
    if fmt == "json":
        return view.model_dump_json(indent=2).encode("utf-8"), MEDIA_TYPES["json"], "json"
    if fmt == "xlsx":
        return table_xlsx(view, trail or {}), MEDIA_TYPES["xlsx"], "xlsx"
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\r\n")
    w.writeheader()
    for c in view.cells:
        w.writerow({k: csv_cell(v) for k, v in cell_row(c).items()})
    return buf.getvalue().encode("utf-8-sig"), MEDIA_TYPES["csv"], "csv"


def cli_row(c: TableCell) -> dict:
    """One cell as `workbench table --json` prints it (the issue's shape, plus status and review)."""
    return {"document": c.filename, "document_id": c.document_id, "question": c.question,
            "short_answer": c.short_answer, "normalized": c.normalized, "answer": c.answer, "result": c.result,
            "grounding_confidence": c.grounding_confidence if c.run_id else None,
            "citations": [{"requirement_id": x.requirement_id, "page": x.page, "page_label": x.page_label,
                           "quote": x.quote, **({"amendment": True} if x.amendment else {})} for x in c.citations],
            "run_id": c.run_id, "table_id": c.table_id, "column": c.column_key, "status": c.status, "stale": c.stale,
            "review": c.review}



# --- XLSX ------------------------------------------------------------------------------------------
SHEETS = ("Table", "Citations", "Audit trail", "Legend")
NOT_ANSWERED = ("not_run", "queued", "running", "failed")
# a cell's mark → its fill (ARGB) and what the legend says; one mark a cell, the first that applies
MARKS: dict[str, tuple[str, str]] = {
    "stale": ("FFFFEB9C", "Stale: its document, question or the engine changed since it was answered; run the "
                          "table again"),
    "not_answered": ("FFFFC7CE", "Not answered: not run yet, queued, running or failed"),
    "corrected": ("FFBDD7EE", "Corrected: a reviewer's answer, which wins over the engine's"),
    "not_found": ("FFE7E6E6", f"Not found ({NO_AUTHORITATIVE_EVIDENCE}): no verified evidence in the document; "
                              "never read as \"No\""),
}
CITATION_COLUMNS = ["Cell", "Document", "Question", "Evidence ID", "Page", "PDF page", "Quote", "Quote SHA-256",
                    "Start", "End", "Status", "Reviewer label", "Cell review", "Reviewer correction", "Corrected by",
                    "Reason", "Stale", "Evidence link", "Run ID", "Document SHA-256", "From an amendment"]
HASH_NOTE = ("SHA-256 (UTF-8) of the quote's characters in the document's text, from Start to End, as the workbench "
             "extracted it; the Quote column shows them with each run of whitespace as one space")
TRAIL_COLUMNS = ["Cell", "Document", "Question", "When (UTC)", "Reviewer", "Kind", "Evidence ID", "Label", "Before",
                 "Verifier", "Correction", "Note", "Run ID", "Event ID"]


def cell_mark(c: TableCell) -> str | None:
    """The one mark a cell's fill shows (MARKS), or None for a current, unreviewed or accepted answer."""
    if c.status == "stale":
        return "stale"
    if c.status in NOT_ANSWERED:
        return "not_answered"
    if c.review == "corrected":
        return "corrected"
    if c.result == NO_AUTHORITATIVE_EVIDENCE:
        return "not_found"
    return None


def xlsx_cell_text(c: TableCell) -> str:
    """A grid cell as text: the short answer (its normal form beside it when it reads otherwise)
    and its citation IDs; a correction says whose it is and what the engine said; stale says so."""
    if c.status in NOT_ANSWERED:
        return f"failed: {c.error or ''}".strip() if c.status == "failed" else c.status.replace("_", " ")
    ids = f" [{', '.join(x.requirement_id for x in c.citations)}]" if c.citations else ""
    if c.review == "corrected":
        machine = " ".join((c.machine_short_answer or "").split())
        text = f"{c.short_answer} (corrected by {c.reviewed_by}; the engine said: {machine}{ids})"
    else:
        short = " ".join((c.short_answer or "").split())
        if c.normalized and c.normalized.lower() != short.lower():
            short = f"{short} → {c.normalized}"
        text = short + ids
    return ("stale: " if c.status == "stale" else "") + text


def table_xlsx(view: TableView, trail: dict[tuple[str, str], list[ReviewEvent]]) -> bytes:
    """The workbook: Table (a row per document, a column per question), Citations (every citation
    of every cell, with its quote's SHA-256 and any correction), Audit trail (every review event of
    every cell's runs), Legend (the fills, the questions, the table). Rows are generated as the
    sheets are written, so a large table is never all in memory twice."""
    from workbench.export.xlsx import Cell, Sheet, cell_ref, workbook

    t = view.table
    col_of = {c.key: i + 1 for i, c in enumerate(t.columns)}
    row_of = {r.key: i + 1 for i, r in enumerate(t.rows)}
    by_row: dict[str, dict[str, TableCell]] = {}
    for c in view.cells:
        by_row.setdefault(c.row_key, {})[c.column_key] = c

    def where(c: TableCell) -> str:
        return cell_ref(row_of[c.row_key], col_of[c.column_key])

    def grid_rows():
        for r in t.rows:
            cells = by_row.get(r.key, {})
            yield [r.filename, *[Cell(xlsx_cell_text(cells[c.key]), fill=cell_mark(cells[c.key]))
                                 if c.key in cells else None for c in t.columns], r.document_id]

    def citation_rows():
        for c in view.cells:
            mark, fix = cell_mark(c), c.review == "corrected"
            for x in c.citations:
                yield [Cell(v, fill=mark) for v in (
                    where(c), c.filename, c.column_key, x.requirement_id, x.page_label or x.page, x.page, x.quote,
                    x.text_sha256, x.start, x.end, x.final_status, x.human_label, c.review,
                    c.short_answer if fix else None, c.reviewed_by if fix else None, c.review_note if fix else None,
                    "; ".join(c.stale), deep_link(c.run_id, x.requirement_id), c.run_id, x.document_id,
                    "yes" if x.amendment else None)]

    def trail_rows():
        for c in view.cells:
            for e in trail.get((c.row_key, c.column_key), []):
                yield [where(c), c.filename, c.column_key, e.timestamp.strftime("%Y-%m-%d %H:%M:%S"), e.reviewer,
                       e.kind, None if e.requirement_id == CELL_ID else e.requirement_id, e.label, e.previous_label,
                       e.verifier_verdict, e.value, e.note, e.run_id, e.id]

    grid = Sheet(SHEETS[0], ["Document", *[c.key for c in t.columns], "Document SHA-256"], grid_rows(),
                 widths=[34, *[36] * len(t.columns), 30], freeze_columns=1, autofilter=True)
    cites = Sheet(SHEETS[1], CITATION_COLUMNS, citation_rows(), autofilter=True,
                  widths=[7, 28, 20, 12, 8, 8, 60, 24, 8, 8, 10, 12, 12, 24, 14, 24, 20, 30, 14, 24])
    audit = Sheet(SHEETS[2], TRAIL_COLUMNS, trail_rows(), autofilter=True,
                  widths=[7, 28, 20, 20, 14, 11, 12, 11, 11, 11, 24, 40, 14, 8])
    legend = Sheet(SHEETS[3], ["Fill", "Meaning"], widths=[24, 90])
    legend.rows = [[Cell(name.replace("_", " "), fill=name), text] for name, (_, text) in MARKS.items()]
    legend.rows += [["(no fill)", "Answered from verified evidence, current; accepted or not yet reviewed"], [],
                    [Cell("Question", bold=True), Cell("Asked of every document", bold=True)],
                    *[[c.key, c.question] for c in t.columns], [],
                    ["Table", f"{t.name} ({t.table_id})"], ["Engine version", view.engine_version],
                    ["Cells", ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in sorted(view.counts.items()))],
                    ["Cell text", "short answer → normalised form [citation IDs]; see Citations for each quote"],
                    ["Quote SHA-256", HASH_NOTE]]
    return workbook([grid, cites, audit, legend], fills={k: fill for k, (fill, _) in MARKS.items()})
