"""JSONL relabel dataset: one line per item a human has labelled (the current label; reset items
are not labelled), for training and calibrating verifiers. Evidence items pair the run's
question with the quote; answer-sentence reviews ("SENT-<n>") pair the sentence (a claim) with
the quotes it cites. Labels are "supported" / "unsupported" / "contradicted" (the documents say
otherwise); `human_supported` is the label as a binary target (contradicted is not supported)."""

from __future__ import annotations

import json
import re
from typing import Any

from workbench.export.bundle import ExportBundle, RunBundle
from workbench.export.gate import answer_sentences

_SENT = re.compile(r"SENT-(\d+)$")


def _evidence_lines(rb: RunBundle) -> list[dict[str, Any]]:
    lines = []
    for st in rb.statuses:
        if st.human_label is None:
            continue
        ev, sp, v = st.evidence, st.evidence.span, st.verification
        lines.append({
            "question": rb.run.question,
            "evidence": sp.text if sp else ev.exact_quote,
            "document_id": ev.document_id,
            "page": sp.page if sp else None,
            "page_label": sp.page_label if sp else None,
            "start": sp.start if sp else None,
            "end": sp.end if sp else None,
            "verifier_label": st.verifier_verdict,
            "human_label": st.human_label,
            "human_supported": st.human_label == "supported",
            "reviewer": st.reviewer,
            "timestamp": st.reviewed_at.isoformat() if st.reviewed_at else None,
            "run_id": rb.run.run_id,
            "requirement_id": ev.requirement_id,
            "note": st.note or "",
            "verifier_score": v.score if v else None,
            "rejection_reason": v.rejection_reason if v else None,
            "text_sha256": sp.text_sha256 if sp else None,
            "read_by_ocr": bool(sp and sp.read_by_ocr),  # the evidence is what OCR read: it may hold misread words
            "ocr_confidence": sp.ocr_confidence if sp else None,
            "human_added": st.human_added,  # a positive the pipeline missed (verifier_label unsupported)
        })
    return lines


def _sentence_lines(rb: RunBundle) -> list[dict[str, Any]]:
    """Current human label per answer sentence, derived from the append-only history."""
    current: dict[str, Any] = {}
    for e in sorted(rb.history, key=lambda e: (e.timestamp, e.id or 0)):
        if _SENT.match(e.requirement_id):
            current[e.requirement_id] = e if e.label != "reset" else None
    sentences = answer_sentences(rb)
    lines = []
    for sid, e in current.items():
        if e is None:
            continue
        n = int(_SENT.match(sid).group(1))
        if not 1 <= n <= len(sentences):
            continue
        sent = sentences[n - 1]
        cited = [rb.status_for(c) for c in sent.citations]
        cited = [c for c in cited if c is not None]
        first = cited[0].evidence.span if cited and cited[0].evidence.span else None
        lines.append({
            "claim": sent.text,
            "evidence": " ".join((c.evidence.span.text if c.evidence.span else c.evidence.exact_quote) for c in cited),
            "document_id": cited[0].evidence.document_id if cited else None,
            "page": first.page if first else None,
            "page_label": first.page_label if first else None,
            "start": first.start if first else None,
            "end": first.end if first else None,
            "verifier_label": e.verifier_verdict or ("supported" if sent.supported else "unsupported"),
            "human_label": e.label,
            "human_supported": e.label == "supported",
            "reviewer": e.reviewer,
            "timestamp": e.timestamp.isoformat(),
            "run_id": rb.run.run_id,
            "requirement_id": sid,
            "note": e.note,
            "citations": sent.citations,
        })
    return lines


def to_jsonl(bundle: ExportBundle) -> bytes:
    lines = [line for rb in bundle.runs for line in _evidence_lines(rb) + _sentence_lines(rb)]
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode("utf-8")
