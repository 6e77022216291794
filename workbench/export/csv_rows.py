"""CSV: one row per evidence item per run, both verdicts and the final status. Cells are the
stored values, except that a text cell a spreadsheet would evaluate as a formula (it starts with
=, +, -, @, a tab or a carriage return) gets a leading apostrophe, so `=HYPERLINK(…)` in a quote,
a note or a reviewer name is shown as text. The text_sha256 column is still the hash of the
document's own text: strip that one apostrophe before comparing a quote with it. A quote on a
page read by OCR says so (read_by_ocr True, with the mean and the lowest confidence of its words,
0..1): its words are what the machine read, not characters the PDF holds."""

from __future__ import annotations

import csv
import io

from workbench.export.bundle import ExportBundle
from workbench.export.common import evidence_row

COLUMNS = [
    "run_id", "requirement_id", "document_id", "document", "source_type", "section_heading", "page", "page_label",
    "pages", "quote", "start", "end", "text_sha256", "read_by_ocr", "ocr_confidence", "ocr_min_confidence",
    "verifier_verdict", "rejection_reason", "verification_rationale",
    "verifier_score", "human_label", "reviewer", "note", "reviewed_at", "final_status", "human_added",
]


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def cell(value: object) -> object:
    """The value as written to the CSV: None empty, a formula-looking string defused."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def to_csv(bundle: ExportBundle) -> bytes:
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\r\n")
    w.writeheader()
    for rb in bundle.runs:
        for st in rb.statuses:
            row = evidence_row(rb, st, bundle)
            w.writerow({k: cell(row[k]) for k in COLUMNS})
    return buf.getvalue().encode("utf-8")
