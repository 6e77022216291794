"""JSON: seed 000's audit trail per run, with each extracted requirement's final (human-overridden)
status, the review history, the answer as reviewed, and the export's own provenance (gate
decisions, forced reason)."""

from __future__ import annotations

import json
from typing import Any

from workbench.export.bundle import ExportBundle, RunBundle
from workbench.models import label_status


def run_audit(rb: RunBundle) -> dict[str, Any]:
    trail = rb.run.audit_trail(answer=rb.effective_answer)
    by_id = {s.evidence.requirement_id: s for s in rb.statuses}
    for item in trail["extracted_requirements"]:
        st = by_id.get(item["requirement_id"])
        if st is None:
            continue
        item.update(
            verifier_verdict=st.verifier_verdict,
            human_label=st.human_label,
            final_status=st.final_status,
            reviewer=st.reviewer,
            review_note=st.note,
            reviewed_at=st.reviewed_at.isoformat() if st.reviewed_at else None,
            hash_ok=st.hash_ok,
        )
    trail["final_statuses"] = {s.evidence.requirement_id: s.final_status for s in rb.statuses}
    trail["human_overrides"] = [
        {"requirement_id": s.evidence.requirement_id, "verifier_verdict": s.verifier_verdict,
         "human_label": s.human_label, "reviewer": s.reviewer, "note": s.note}
        for s in rb.statuses if s.human_label is not None and label_status(s.human_label) != s.verifier_verdict
    ]
    trail["review_history"] = [e.model_dump(mode="json") for e in rb.history]
    trail["reviewed_answer"] = rb.effective_answer.model_dump(mode="json")
    trail["created_at"] = rb.run.created_at.isoformat()
    return trail


def to_json(bundle: ExportBundle) -> bytes:
    out = {"export": bundle.export_meta(), "runs": [run_audit(rb) for rb in bundle.runs]}
    return json.dumps(out, ensure_ascii=False, indent=2, default=str).encode("utf-8")
