"""A cell as a reader sees it, and when it no longer answers its row and column as they are.

A cell is stale when its run read another version of the row's document, asked another question
than the column asks now, or was answered by another engine version (engine_version: the
workbench and parser versions, the backend and the settings a run records, the calibration in
force). A stale cell keeps its answer, marked so, until it is run again."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from workbench.models import (
    CELL_ID,
    ReviewedRun,
    ReviewEvent,
    TableCell,
    TableCellRecord,
    TableColumn,
    TableRow,
)
from workbench.table.short_answer import normalize_text, short_answer

TABLE_FORMAT = 1  # bump when the way a cell is answered changes (cells of older formats go stale)


def engine_version(settings_used: dict[str, Any], calibration: str | None) -> str:
    """'0.1.0-p22-1a2b3c4d5e': the workbench and parser versions and a hash of what else decides a
    run's answer (the run settings of pipeline.run.settings_used, the calibration in force)."""
    from workbench import __version__
    from workbench.pdf.cache import PARSER_VERSION

    blob = json.dumps({"settings": settings_used, "calibration": calibration, "table_format": TABLE_FORMAT},
                      sort_keys=True, default=str)
    return f"{__version__}-p{PARSER_VERSION}-{hashlib.sha256(blob.encode()).hexdigest()[:10]}"


def stale_reasons(record: TableCellRecord, row: TableRow, column: TableColumn, engine: str,
                  read: list[str] | None = None) -> list[str]:
    """Why a cell's run no longer answers its row and column as they are now ([] when it does).
    `read`: the documents the cell's run read, when it is stored (the row's and its related ones)."""
    out = []
    if record.document_id != row.document_id:
        out.append(f"the document changed (a new version of {row.filename} was added)")
    elif read is not None and set(read) != {row.document_id, *row.related}:
        out.append("the related documents changed (an amendment was linked or unlinked)")
    if " ".join(record.question.split()) != " ".join(column.question.split()):
        out.append("the question changed")
    if record.engine_version != engine:
        out.append(f"the engine changed ({record.engine_version} → {engine})")
    return out


def latest_records(records: Iterable[TableCellRecord]) -> dict[tuple[str, str], TableCellRecord]:
    """(row key, column key) → the newest record (records oldest first)."""
    out: dict[tuple[str, str], TableCellRecord] = {}
    for r in records:
        out[(r.row_key, r.column_key)] = r
    return out


def current_correction(events: Iterable[ReviewEvent]) -> ReviewEvent | None:
    """The correction in force among cell events (in order): the latest, unless reset since."""
    current = None
    for e in events:
        if e.kind == "correction" and e.requirement_id == CELL_ID:
            current = None if e.label == "reset" else e
    return current


def answered_cell(base: TableCell, rr: ReviewedRun, column: TableColumn,
                  correction: ReviewEvent | None, amendments: Iterable[str] = ()) -> TableCell:
    """The cell's answer from its run as reviewed, an amendment's fact first (`amendments`: the
    documents related to the row's); a reviewer's correction (the value it states) wins over the
    engine's short answer, which stays beside it."""
    sa = short_answer(rr, column.kind, column.question, column.key, frozenset(amendments))
    basis = rr.status_for(sa.basis) if sa.basis else None
    review, by, note, at = "unreviewed", None, None, None
    if basis is not None and basis.human_label is not None:
        review = "accepted" if basis.human_label == "supported" else "rejected"
        by, note, at = basis.reviewer, basis.note, basis.reviewed_at
    elif sa.basis is None:  # not found: rejected items are why, if a reviewer rejected what there was
        rejected = [s for s in rr.statuses if s.human_label in ("unsupported", "contradicted")]
        if rejected:
            review, by, note, at = "rejected", rejected[-1].reviewer, rejected[-1].note, rejected[-1].reviewed_at
    cell = base.model_copy(update=dict(
        short_answer=sa.text, normalized=sa.normalized, machine_short_answer=sa.text,
        answer=rr.answer.final_answer, result=sa.result or rr.answer.result,
        grounding_confidence=rr.answer.grounding_confidence, badge=rr.badge, citations=sa.citations,
        basis=sa.basis, review=review, reviewed_by=by, review_note=note, reviewed_at=at,
        record_problems=list(rr.record_problems)))
    if correction is not None:
        value = correction.value or ""
        cell = cell.model_copy(update=dict(
            short_answer=value, normalized=normalize_text(value, column.kind), review="corrected",
            reviewed_by=correction.reviewer, review_note=correction.note, reviewed_at=correction.timestamp,
            result=None if value.strip().lower() != "not found" else cell.result))
    return cell
