"""CSV: one row per evidence item per run, both verdicts and the final status. Cells are the
stored values verbatim (quotes are evidence; rewriting them would break their hashes)."""

from __future__ import annotations

import csv
import io

from workbench.export.bundle import ExportBundle
from workbench.export.common import evidence_row

COLUMNS = [
    "run_id", "requirement_id", "document_id", "document", "source_type", "section_heading", "page", "pages",
    "quote", "start", "end", "text_sha256", "verifier_verdict", "rejection_reason", "verification_rationale",
    "verifier_score", "human_label", "reviewer", "note", "reviewed_at", "final_status",
]


def to_csv(bundle: ExportBundle) -> bytes:
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\r\n")
    w.writeheader()
    for rb in bundle.runs:
        for st in rb.statuses:
            row = evidence_row(rb, st, bundle)
            w.writerow({k: "" if row[k] is None else row[k] for k in COLUMNS})
    return buf.getvalue().encode("utf-8")
