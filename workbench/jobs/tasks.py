"""What each kind of job does: the same body in this process and in a `workbench worker`.

A job's runs get ids derived from the job id (`<job id>-<n>`), and a question whose run is
already stored is not run again: a job started twice (its first worker died) stores each run
exactly once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from workbench.models import JobInfo, StageEvent

STAGES = ["retrieval", "extract", "verify", "compose", "quality_review", "finalize"]


def run_ids_for(job_id: str, n: int) -> list[str]:
    return [f"{job_id}-{i + 1}" for i in range(n)]


def progress_of(ev: StageEvent) -> float:
    """A run's stage event as a share of the whole job (questions in order, six stages each)."""
    stage = STAGES.index(ev.stage) if ev.stage in STAGES else 0
    within = (stage + (1.0 if ev.status in ("done", "skipped") else 0.5)) / len(STAGES)
    return min(1.0, (ev.question_index + within) / max(1, ev.question_total))


def describe(ev: StageEvent) -> str:
    head = f"question {ev.question_index + 1}/{ev.question_total}: " if ev.question_total > 1 else ""
    return head + (ev.message or f"{ev.stage} {ev.status}")


def perform(wb, info: JobInfo, payload: dict[str, Any], event: Callable[[StageEvent], None],
            update: Callable[..., None]) -> JobInfo:
    """Run one job with the workspace `wb`; `event` persists stage events, `update(**fields)`
    the job's progress. Returns the finished JobInfo (errors propagate to the caller)."""
    kind = info.kind
    if kind in ("ingest", "index"):
        paths = list(payload.get("paths") or [])
        if paths:
            update(progress=0.0, message=f"ingesting {', '.join(Path(p).name for p in paths)}")
        ids = _documents(wb, payload, update)
        for n, did in enumerate(ids):
            parsed = wb.parsed(did)
            update(progress=(n + 0.5) / max(1, len(ids)), message=f"indexing {parsed.document.filename}",
                   document_ids=ids)
            wb.retriever.index(parsed)
        return info.model_copy(update={"document_ids": ids, "progress": 1.0})
    doc_ids = _documents(wb, payload)
    if kind in ("ask", "cell"):  # a cell: one question over a review table's document (and its amendments)
        questions = payload["questions"]

        def on_event(ev: StageEvent) -> None:
            event(ev)
            update(progress=progress_of(ev), message=describe(ev))

        runs = wb.ask(questions, doc_ids, backend=payload.get("backend") or wb.settings.backend,
                      source_type=None if payload.get("source_type") == "auto" else payload.get("source_type"),
                      on_event=on_event,
                      run_ids=run_ids_for(info.job_id, len(questions)))
        return info.model_copy(update={"document_ids": doc_ids, "run_ids": [r.run_id for r in runs], "progress": 1.0})
    if kind == "verify":
        update(progress=0.1, message=f"checking {len(payload['claims'])} claim(s)", document_ids=doc_ids)
        checks = wb.check_claims(payload["claims"], doc_ids, backend=payload.get("backend") or "rules")
        rows = [{"claim": c.claim, "verdict": c.verdict, "supported": c.supported, "score": c.score, "reason": c.reason,
                 "evidence": [{"page": e.page, "start": e.start, "end": e.end, "text": e.text} for e in c.evidence]}
                for c in checks]
        return info.model_copy(update={"document_ids": doc_ids, "result": rows, "progress": 1.0})
    raise ValueError(f"unknown job kind {kind!r}")


def ocr_progress(update: Callable[..., None], name: str, n: int, files: int) -> Callable[[int, int], None]:
    """on_ocr for ingesting file n of `files`: pages read by OCR as the job's progress and message
    (reading is the first half of a file's share, indexing the second)."""
    def on_ocr(done: int, total: int) -> None:
        update(progress=(n + 0.5 * done / max(1, total)) / max(1, files),
               message=f"reading {name} by OCR: page {done} of {total}")
    return on_ocr


def _documents(wb, payload: dict[str, Any], update: Callable[..., None] | None = None) -> list[str]:
    """The payload's stored document ids plus its PDF paths, ingested here when not stored yet
    (pages read by OCR reported through `update`)."""
    ids = list(payload.get("document_ids") or [])
    paths = list(payload.get("paths") or [])
    for n, p in enumerate(paths):
        on_ocr = ocr_progress(update, Path(p).name, n, len(paths)) if update is not None else None
        ids.append(wb.ingest(Path(p), source_type=payload.get("source_type"), on_ocr=on_ocr).id)  # no password is ever queued
    return list(dict.fromkeys(ids))
