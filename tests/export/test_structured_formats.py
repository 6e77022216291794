"""JSON audit trail, CSV, JSONL relabel set and W3C Web Annotation, each read back with an
independent parser; human overrides must show up in every one."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime

from workbench.export.audit_json import to_json
from workbench.export.csv_rows import to_csv
from workbench.export.relabel_jsonl import to_jsonl
from workbench.export.web_annotation import PDF_FRAGMENT_SPEC, ni_uri, to_webannotation
from workbench.models import ReviewEvent

# The JSON-LD @context the W3C Web Annotation model requires: an identifier, never fetched.
WEB_ANNOTATION_CONTEXT = "http://www.w3.org/ns/anno.jsonld"


def test_json_is_the_seed_000_audit_trail_with_final_statuses_and_review_history(reviewed):
    bundle, _ = reviewed
    out = json.loads(to_json(bundle))
    (run,) = out["runs"]
    assert run["run_id"] == "run-1"
    assert {"extracted_requirements", "verified_requirements", "rejected_requirements", "final_answer",
            "evidence_audit_trail", "grounding_confidence"} <= set(run)
    items = {i["requirement_id"]: i for i in run["extracted_requirements"]}
    assert items["REQ-S002"]["verifier_verdict"] == "supported"
    assert items["REQ-S002"]["human_label"] == "unsupported"
    assert items["REQ-S002"]["final_status"] == "unsupported"
    assert items["REQ-S002"]["reviewer"] == "alice"
    assert items["REQ-S002"]["review_note"] == "talks about storage, not transit"
    assert run["final_statuses"] == {"REQ-S001": "supported", "REQ-S002": "unsupported", "REQ-S003": "unsupported"}
    assert [o["requirement_id"] for o in run["human_overrides"]] == ["REQ-S002"]
    assert [(e["requirement_id"], e["label"], e["reviewer"]) for e in run["review_history"]] == [
        ("REQ-S001", "supported", "bob"), ("REQ-S002", "unsupported", "alice")]
    assert out["export"]["run_ids"] == ["run-1"]


def test_csv_has_one_row_per_evidence_item_with_both_verdicts_and_the_final_status(reviewed):
    bundle, pdf = reviewed
    rows = list(csv.DictReader(io.StringIO(to_csv(bundle).decode("utf-8"), newline="")))
    assert [r["requirement_id"] for r in rows] == ["REQ-S001", "REQ-S002", "REQ-S003"]
    s2 = rows[1]
    assert (s2["verifier_verdict"], s2["human_label"], s2["final_status"]) == ("supported", "unsupported", "unsupported")
    assert s2["reviewer"] == "alice" and s2["note"] == "talks about storage, not transit"
    assert s2["document"] == "requirements.pdf" and s2["page"] == "1"
    start, end = int(s2["start"]), int(s2["end"])
    assert " ".join(pdf.text[start:end].split()) == s2["quote"]
    assert len(s2["text_sha256"]) == 64
    assert rows[2]["rejection_reason"] == "does_not_address_question" and rows[2]["human_label"] == ""


def test_jsonl_has_one_line_per_human_labelled_item_only(reviewed):
    bundle, pdf = reviewed
    lines = [json.loads(line) for line in to_jsonl(bundle).decode().splitlines()]
    assert [(x["requirement_id"], x["verifier_label"], x["human_label"], x["reviewer"]) for x in lines] == [
        ("REQ-S001", "supported", "supported", "bob"), ("REQ-S002", "supported", "unsupported", "alice")]
    first = lines[0]
    assert first["question"] == bundle.runs[0].run.question
    assert first["evidence"] == pdf.text[first["start"]:first["end"]]
    assert first["document_id"] == pdf.document.id and first["page"] == 1
    assert datetime.fromisoformat(first["timestamp"]).tzinfo is not None


def test_jsonl_sentence_review_becomes_a_claim_line_and_reset_removes_it(reviewed):
    bundle, _ = reviewed
    rb = bundle.runs[0]
    t = datetime(2026, 11, 22, 13, 0, tzinfo=UTC)
    rb.history += [ReviewEvent(run_id="run-1", requirement_id="SENT-1", label="supported", reviewer="carol", timestamp=t),
                   ReviewEvent(run_id="run-1", requirement_id="SENT-2", label="unsupported", reviewer="carol",
                               timestamp=t),
                   ReviewEvent(run_id="run-1", requirement_id="SENT-2", label="reset", reviewer="carol",
                               timestamp=t.replace(minute=5))]
    claims = [json.loads(line) for line in to_jsonl(bundle).decode().splitlines() if "claim" in json.loads(line)]
    assert len(claims) == 1
    assert claims[0]["claim"].startswith("Access is limited") and claims[0]["human_label"] == "supported"
    assert claims[0]["evidence"] == rb.statuses[0].evidence.span.text


def test_web_annotation_selectors_locate_the_quote_in_the_document_text(reviewed):
    bundle, pdf = reviewed
    out = json.loads(to_webannotation(bundle))
    assert out["@context"] == WEB_ANNOTATION_CONTEXT and out["type"] == "AnnotationCollection"
    items = out["first"]["items"]
    assert out["total"] == len(items) == 3
    for anno, st in zip(items, bundle.runs[0].statuses, strict=True):
        assert anno["type"] == "Annotation"
        target = anno["target"]
        assert target["source"]["id"] == ni_uri(pdf.document.id) and target["source"]["format"] == "application/pdf"
        sel = {s["type"]: s for s in target["selector"]}
        q, pos, frag = sel["TextQuoteSelector"], sel["TextPositionSelector"], sel["FragmentSelector"]
        assert pdf.text[pos["start"]:pos["end"]] == q["exact"]
        assert pdf.text[pos["start"] - len(q["prefix"]):pos["end"] + len(q["suffix"])] == q["prefix"] + q["exact"] + q["suffix"]
        assert frag == {"type": "FragmentSelector", "conformsTo": PDF_FRAGMENT_SPEC, "value": f"page={st.evidence.span.page}"}
    bodies = {b["value"] for b in items[1]["body"]}
    assert {"final:unsupported", "verifier:supported", "human:unsupported", "talks about storage, not transit",
            "REQ-S002"} <= bodies


def test_ni_uri_is_rfc6920_sha256_of_the_document():
    assert ni_uri("00" * 32) == "ni:///sha-256;" + "A" * 43
