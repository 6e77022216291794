"""Use-cases the UI and the CLI share. Pages and commands call these; nothing above this
module touches the store, the index or PyMuPDF directly.

Sections are owned by area (pdf/ingest, pipeline, store/review, export); each method's
docstring is its contract."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from workbench.config import Settings, get_settings
from workbench.models import ClaimCheck, Document, EvidenceStatus, ReviewEvent, Run, StageEvent


class Workbench:
    """One workspace: settings, the store, caches of parsed documents and indexes."""

    def __init__(self, settings: Settings | None = None):
        self.settings = settings or get_settings()
        self.settings.ensure_dirs()

    # --- documents ---------------------------------------------------------------------
    def ingest(self, source: bytes | str | Path, filename: str | None = None, *, password: str | None = None,
               source_type: str = "other") -> Document:
        """Open, validate and keep a PDF (content-addressed). Raises workbench.errors.PdfError
        subclasses with a user-facing message for bad input."""
        raise NotImplementedError

    def documents(self) -> list[Document]:
        raise NotImplementedError

    def document(self, document_id: str) -> Document:
        raise NotImplementedError

    def pdf_bytes(self, document_id: str) -> bytes:
        raise NotImplementedError

    def parsed(self, document_id: str):
        """The ParsedDocument for a stored document, cached by its SHA-256."""
        raise NotImplementedError

    # --- runs --------------------------------------------------------------------------
    def ask(self, questions: list[str], document_ids: list[str], *, backend: str = "rules",
            source_type: str | None = None, on_event: Callable[[StageEvent], None] | None = None) -> list[Run]:
        """Run each question through the pipeline over the documents and store the runs."""
        raise NotImplementedError

    def check_claims(self, claims: list[str], document_ids: list[str], *, backend: str = "rules") -> list[ClaimCheck]:
        raise NotImplementedError

    # --- store, review, metrics ----------------------------------------------------------
    def runs(self) -> list[Run]:
        raise NotImplementedError

    def run(self, run_id: str) -> Run:
        raise NotImplementedError

    def evidence_status(self, run_id: str) -> list[EvidenceStatus]:
        raise NotImplementedError

    def review(self, run_id: str, requirement_id: str, label: str, reviewer: str, note: str = "") -> ReviewEvent:
        raise NotImplementedError

    def history(self, run_id: str, requirement_id: str | None = None) -> list[ReviewEvent]:
        raise NotImplementedError
