"""A review table as CSV (one line per cell: the short answer, its normalised form, status, review
and every citation with its deep link) or JSON (the TableView as the service builds it). Text a
spreadsheet would evaluate as a formula is defused as in csv_rows."""

from __future__ import annotations

import csv
import io
from urllib.parse import urlencode

from workbench.export.common import ocr_note
from workbench.export.csv_rows import cell as csv_cell
from workbench.models import CellCitation, TableCell, TableView, cite_page

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
        "citations": " | ".join(f"[{x.requirement_id}] {cite_page(x.page, x.page_label) if x.page else 'not located'}"
                                f"{_ocr(x)}: \u201c{x.quote}\u201d" for x in c.citations),
        "evidence_links": " ".join(deep_link(c.run_id, x.requirement_id) for x in c.citations),
        "answer": c.answer, "run_id": c.run_id,
    }


def render_table(view: TableView, fmt: str) -> tuple[bytes, str, str]:
    if fmt == "json":
        return view.model_dump_json(indent=2).encode("utf-8"), "application/json", "json"
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\r\n")
    w.writeheader()
    for c in view.cells:
        w.writerow({k: csv_cell(v) for k, v in cell_row(c).items()})
    return buf.getvalue().encode("utf-8-sig"), "text/csv", "csv"


def cli_row(c: TableCell) -> dict:
    """One cell as `workbench table --json` prints it (the issue's shape, plus status and review)."""
    return {"document": c.filename, "document_id": c.document_id, "question": c.question,
            "short_answer": c.short_answer, "normalized": c.normalized, "answer": c.answer, "result": c.result,
            "grounding_confidence": c.grounding_confidence if c.run_id else None,
            "citations": [{"requirement_id": x.requirement_id, "page": x.page, "page_label": x.page_label,
                           "quote": x.quote} for x in c.citations],
            "run_id": c.run_id, "table_id": c.table_id, "column": c.column_key, "status": c.status, "stale": c.stale,
            "review": c.review}

