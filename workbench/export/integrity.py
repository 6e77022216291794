"""The hash re-check every export starts with: each located quote must still be what the stored
PDF says at its offsets (seed 001). One mismatch stops the export: a citation whose text has
drifted is no longer evidence."""

from __future__ import annotations

import hashlib

from workbench.errors import HashMismatchError, RecordProblemError
from workbench.export.bundle import ExportBundle
from workbench.models import sha256_text


def recheck_hashes(bundle: ExportBundle) -> int:
    """Raise HashMismatchError naming every drifted item (RecordProblemError, first, for a review
    record with forged or erased events); return how many spans were checked."""
    recorded = [f"run {rb.run.run_id}: {p}" for rb in bundle.runs for p in rb.record_problems]
    if recorded:
        shown = "; ".join(recorded[:5]) + (f"; and {len(recorded) - 5} more" if len(recorded) > 5 else "")
        raise RecordProblemError(f"export stopped, the review record cannot be trusted: {shown}. "
                                 "docs/security/record.md says what to do; nothing was written", recorded)
    problems: list[str] = []
    checked = 0
    pdf_ok: dict[str, bool] = {}
    texts: dict[str, str | None] = {}
    for rb in bundle.runs:
        for st in rb.statuses:
            ev, sp = st.evidence, st.evidence.span
            if sp is None:
                continue
            where = f"{ev.requirement_id} (run {rb.run.run_id}, page {sp.page})"
            doc_id = sp.document_id
            if bundle.pdf_bytes is not None and doc_id not in pdf_ok:
                pdf_ok[doc_id] = hashlib.sha256(bundle.pdf(doc_id)).hexdigest() == doc_id
                if not pdf_ok[doc_id]:
                    problems.append(f"the stored PDF of document {doc_id[:12]} no longer has the SHA-256 it was filed under")
            if doc_id not in texts:
                texts[doc_id] = bundle.text(doc_id)
            text = texts[doc_id]
            checked += 1
            if not st.hash_ok:
                problems.append(f"{where}: its quote no longer matches its SHA-256 in the stored PDF (re-verified on load)")
            elif sha256_text(sp.text) != sp.text_sha256:
                problems.append(f"{where}: its recorded text no longer matches its SHA-256")
            elif text is not None and sha256_text(text[sp.start:sp.end]) != sp.text_sha256:
                problems.append(f"{where}: the document text at {sp.start}-{sp.end} no longer matches its SHA-256")
    if problems:
        shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
        raise HashMismatchError(
            f"export stopped, evidence no longer matches the stored PDF: {shown}. "
            "Re-ingest the original PDF and re-run the question; nothing was written"
        )
    return checked
