"""W3C Web Annotation (JSON-LD): an AnnotationCollection with one Annotation per evidence item.
The target is the PDF (named by its SHA-256, RFC 6920 `ni:` URI) with three alternative
selectors: TextQuoteSelector (exact + 32 characters of context), TextPositionSelector (offsets
into the document text as the workbench extracts it: all pages joined) and a FragmentSelector
`page=N` conforming to the PDF fragment spec (RFC 3778). Bodies carry the verdicts and note, and
for a quote read by OCR a describing body that says so and how sure it was ("read by OCR,
confidence 0.87, lowest word 0.41") with a tagging body "read-by-ocr" to filter on: the exact text
is what the machine read on a scan, not characters the PDF holds."""

from __future__ import annotations

import base64
import json
from typing import Any

from workbench.export.bundle import ExportBundle, RunBundle
from workbench.export.common import ocr_note
from workbench.models import EvidenceStatus

CONTEXT = "http://www.w3.org/ns/anno.jsonld"
PDF_FRAGMENT_SPEC = "http://tools.ietf.org/rfc/rfc3778"
AFFIX = 32


def ni_uri(sha256_hex: str) -> str:
    """RFC 6920 Named Information URI for a SHA-256 (our document ids are SHA-256 hex)."""
    try:
        raw = bytes.fromhex(sha256_hex)
    except ValueError:
        return f"urn:workbench:document:{sha256_hex}"
    return "ni:///sha-256;" + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def annotation(bundle: ExportBundle, rb: RunBundle, st: EvidenceStatus, text: str | None) -> dict[str, Any]:
    ev, sp = st.evidence, st.evidence.span
    doc = bundle.document(ev.document_id)
    exact = sp.text if sp else ev.exact_quote
    quote: dict[str, Any] = {"type": "TextQuoteSelector", "exact": exact}
    selectors: list[dict[str, Any]] = [quote]
    if sp is not None:
        if text is not None:
            quote["prefix"] = text[max(0, sp.start - AFFIX):sp.start]
            quote["suffix"] = text[sp.end:sp.end + AFFIX]
        selectors.append({"type": "TextPositionSelector", "start": sp.start, "end": sp.end})
        selectors.append({"type": "FragmentSelector", "conformsTo": PDF_FRAGMENT_SPEC, "value": f"page={sp.page}"})
    source: dict[str, Any] = {"id": ni_uri(ev.document_id), "format": "application/pdf"}
    if doc is not None:
        source["label"] = doc.title or doc.filename
    bodies: list[dict[str, Any]] = [
        {"type": "TextualBody", "purpose": "tagging", "value": f"final:{st.final_status}"},
        {"type": "TextualBody", "purpose": "assessing", "value": f"verifier:{st.verifier_verdict}"
         + (f" ({st.verification.rejection_reason})" if st.verification and st.verification.rejection_reason else "")},
    ]
    if st.human_label:
        human: dict[str, Any] = {"type": "TextualBody", "purpose": "assessing", "value": f"human:{st.human_label}"}
        if st.reviewer:
            human["creator"] = {"type": "Person", "name": st.reviewer}
        bodies.append(human)
    read = ocr_note(sp)
    if read:
        bodies += [{"type": "TextualBody", "purpose": "tagging", "value": "read-by-ocr"},
                   {"type": "TextualBody", "purpose": "describing", "value": read, "format": "text/plain"}]
    if st.note:
        bodies.append({"type": "TextualBody", "purpose": "commenting", "value": st.note, "format": "text/plain"})
    bodies.append({"type": "TextualBody", "purpose": "identifying", "value": ev.requirement_id})
    anno: dict[str, Any] = {
        "id": f"urn:workbench:run:{rb.run.run_id}:evidence:{ev.requirement_id}",
        "type": "Annotation",
        "motivation": "assessing",
        "created": rb.run.created_at.isoformat(),
        "generator": {"type": "Software", "name": bundle.generator},
        "body": bodies,
        "target": {"type": "SpecificResource", "source": source,
                   "selector": selectors if len(selectors) > 1 else quote},
    }
    if st.reviewed_at:
        anno["modified"] = st.reviewed_at.isoformat()
    return anno


def to_webannotation(bundle: ExportBundle) -> bytes:
    texts: dict[str, str | None] = {}
    items = []
    for rb in bundle.runs:
        for st in rb.statuses:
            doc_id = st.evidence.document_id
            if doc_id not in texts:
                texts[doc_id] = bundle.text(doc_id)
            items.append(annotation(bundle, rb, st, texts[doc_id]))
    run_ids = ",".join(rb.run.run_id for rb in bundle.runs)
    out = {
        "@context": CONTEXT,
        "id": f"urn:workbench:export:{run_ids}",
        "type": "AnnotationCollection",
        "label": "Evidence Workbench: " + "; ".join(rb.run.question for rb in bundle.runs),
        "total": len(items),
        "first": {"type": "AnnotationPage", "startIndex": 0, "items": items},
    }
    return json.dumps(out, ensure_ascii=False, indent=2).encode("utf-8")
