"""Small model factories for store tests: documents from bytes, runs with spans and verdicts."""

from __future__ import annotations

import hashlib
from datetime import datetime

from workbench.models import Answer, Document, Evidence, Run, SentenceSupport, Span, Verification, sha256_text


def document(content: bytes = b"%PDF-1.7 test document", **kw) -> tuple[Document, bytes]:
    doc = Document(id=hashlib.sha256(content).hexdigest(), filename=kw.pop("filename", "t.pdf"), pages=1,
                   has_text_layer=True, size_bytes=len(content), **kw)
    return doc, content


def evidence(rid: str, document_id: str, text: str, start: int = 0) -> Evidence:
    span = Span(document_id=document_id, page=1, pages=[1], start=start, end=start + len(text), text=text,
                text_sha256=sha256_text(text), rects=[(1, 72.0, 72.0, 300.0, 84.0)])
    return Evidence(requirement_id=rid, source_type="statute", document_id=document_id, exact_quote=text,
                    chunk_id="c1", span=span)


def run(run_id: str, document_id: str, verdicts: dict[str, bool], *, created_at: datetime | None = None,
        question: str = "What must be done?") -> Run:
    """A run with one evidence item per entry of verdicts (ID → verified) and one answer
    sentence citing each verified item."""
    evs = [evidence(rid, document_id, f"The operator shall do thing {i}.", start=i * 40)
           for i, rid in enumerate(verdicts)]
    vs = [Verification(requirement_id=rid, verified=ok, rejection_reason=None if ok else "requires_inference",
                       score=0.9 if ok else 0.2) for rid, ok in verdicts.items()]
    sentences = [SentenceSupport(text=f"Do thing [{rid}].", citations=[rid], supported=True)
                 for rid, ok in verdicts.items() if ok]
    answer = Answer(final_answer=" ".join(s.text for s in sentences), sentences=sentences,
                    support_ratio=1.0 if sentences else 0.0, grounding_confidence="medium")
    extra = {"created_at": created_at} if created_at else {}
    return Run(run_id=run_id, question=question, document_ids=[document_id], evidence=evs, verifications=vs,
               answer=answer, **extra)
