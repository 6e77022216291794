"""Question-free mode: every requirement of a document, quoted and anchored, with stable IDs
(a checklist to review, or the evidence set a question list draws on)."""

from __future__ import annotations

from typing import Any

from workbench.backends.base import Chunk
from workbench.models import Evidence
from workbench.pipeline.anchor import anchor
from workbench.pipeline.context import DocsContext
from workbench.pipeline.ids import IdAssigner


def page_chunks(doc: Any) -> list[Chunk]:
    """One chunk per page with text, offsets into doc.text."""
    return [Chunk(chunk_id=f"{doc.document.id[:8]}-p{p.number:04d}", document_id=doc.document.id, start=p.start,
                  end=p.end, text=doc.text[p.start:p.end], page=p.number)
            for p in doc.pages if p.end > p.start]


def inventory(docs: list[Any], *, backend, ids: IdAssigner, source_type: str | None = None) -> list[Evidence]:
    """All requirement quotes of the documents in reading order (backend.extract with no
    question), each anchored; quotes that cannot be anchored are left out."""
    chunks = [c for d in docs for c in page_chunks(d)]
    candidates = backend.extract(None, chunks, DocsContext(docs))
    evidence, _ = anchor(candidates, {d.document.id: d for d in docs}, ids, source_type)
    return [e for e in evidence if e.span is not None]
