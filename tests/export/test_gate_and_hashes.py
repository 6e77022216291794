"""Seed 003's safety gate and the hash re-check, through `render` (the one export entry point)."""

from __future__ import annotations

import json

import pytest

from workbench.errors import ExportBlockedError, HashMismatchError
from workbench.export import render
from workbench.export.gate import evaluate
from workbench.models import NO_AUTHORITATIVE_EVIDENCE, Answer

GATE = {"min_coverage": 0.7, "min_support": 0.75}


def test_human_rejecting_cited_evidence_blocks_the_answer_with_reasons(reviewed):
    bundle, _ = reviewed
    with pytest.raises(ExportBlockedError) as err:
        render(bundle, "md", **GATE)
    reasons = err.value.reasons
    assert reasons[0] == ("needs human check: evidence coverage 50% is below 70% "
                          "(1 of 2 sentences cite supported evidence)")
    assert any("sentence 2" in r and "REQ-S002 is unsupported (human: alice)" in r for r in reasons)
    assert all(r.startswith("needs human check") for r in reasons)
    assert "\n" not in str(err.value) and "--force" not in str(err.value)  # each front end words the remedy


def test_same_answer_passes_when_the_verifier_is_not_overridden(reviewed):
    bundle, _ = reviewed
    st = bundle.runs[0].statuses[1]
    bundle.runs[0].statuses[1] = st.model_copy(update={"human_label": None, "final_status": "supported"})
    d = evaluate(bundle.runs[0], **GATE)
    assert d.passed and d.evidence_coverage == 1.0 and d.support_ratio == 1.0
    assert json.loads(render(bundle, "json", **GATE).data)["export"]["forced"] is None


def test_low_support_blocks_even_with_full_coverage(passing):
    bundle, _ = passing
    rb = bundle.runs[0]
    rb.answer = rb.run.answer.model_copy(update={"sentences": [rb.run.answer.sentences[0].model_copy(
        update={"supported": False, "reason": "adds a condition the quote lacks"})]})
    d = evaluate(rb, **GATE)
    assert not d.passed and d.evidence_coverage == 1.0 and d.support_ratio == 0.0
    assert any("support 0% is below 75%" in r for r in d.needs_human_check)
    assert any("adds a condition the quote lacks" in r for r in d.needs_human_check)


def test_forced_export_records_reason_who_and_the_overridden_decision(reviewed):
    bundle, _ = reviewed
    res = render(bundle, "json", **GATE, force=True, reason="partner asked for the draft", by="dana")
    forced = json.loads(res.data)["export"]["forced"]
    assert forced["reason"] == "partner asked for the draft" and forced["by"] == "dana" and forced["at"]
    assert forced["overridden"][0]["run_id"] == "run-1" and not forced["overridden"][0]["passed"]
    md = render(bundle, "md", **GATE, force=True, reason="partner asked for the draft", by="dana").data.decode()
    assert "**Forced export** by dana" in md and "partner asked for the draft" in md and "BLOCKED" in md


def test_force_without_a_reason_is_refused(reviewed):
    bundle, _ = reviewed
    with pytest.raises(ExportBlockedError, match="forced export needs a reason") as err:
        render(bundle, "html", **GATE, force=True, reason="  ")
    assert err.value.needs_reason


def test_evidence_level_formats_are_not_gated_but_carry_nothing_false(reviewed):
    bundle, _ = reviewed
    res = render(bundle, "csv", **GATE)
    assert not res.gate[0].passed and res.forced is None
    assert "unsupported" in res.data.decode()


def test_no_authoritative_evidence_passes_the_gate(reviewed):
    bundle, _ = reviewed
    bundle.runs[0].answer = Answer(result=NO_AUTHORITATIVE_EVIDENCE, message="Nothing found.")
    res = render(bundle, "md", **GATE)
    assert res.gate[0].passed and res.gate[0].no_authoritative_evidence
    assert "no claims made" in res.data.decode()


def test_answer_without_sentences_is_blocked(passing):
    bundle, _ = passing
    bundle.runs[0].answer = Answer(final_answer="")
    with pytest.raises(ExportBlockedError, match="no sentences"):
        render(bundle, "json", **GATE)


def test_tampered_quote_hash_stops_every_format(passing):
    bundle, _ = passing
    st = bundle.runs[0].statuses[0]
    bad = st.evidence.span.model_copy(update={"text_sha256": "0" * 64})
    bundle.runs[0].statuses[0] = st.model_copy(update={"evidence": st.evidence.model_copy(update={"span": bad})})
    for fmt in ("csv", "pdf", "jsonl"):
        with pytest.raises(HashMismatchError, match="REQ-S001 .*page 1.*no longer matches its SHA-256"):
            render(bundle, fmt, **GATE)


def test_changed_document_text_at_the_offsets_stops_the_export(passing):
    bundle, pdf = passing
    sp = bundle.runs[0].statuses[0].evidence.span
    changed = pdf.text[:sp.start] + pdf.text[sp.start:sp.end].replace("shall", "may") + pdf.text[sp.end:]
    bundle.document_text = lambda _d: changed
    with pytest.raises(HashMismatchError, match=f"text at {sp.start}-{sp.end} no longer matches"):
        render(bundle, "csv", **GATE)


def test_stored_pdf_bytes_that_changed_stop_the_export(passing):
    bundle, pdf = passing
    bundle.pdf_bytes = lambda _d: pdf.data + b"\n%tampered"
    with pytest.raises(HashMismatchError, match="stored PDF .* no longer has the SHA-256"):
        render(bundle, "pdf", **GATE)


def test_store_flag_hash_ok_false_stops_the_export(passing):
    bundle, _ = passing
    bundle.runs[0].statuses[0].hash_ok = False
    with pytest.raises(HashMismatchError, match="no longer matches its SHA-256 in the stored PDF"):
        render(bundle, "webannotation", **GATE)


@pytest.mark.parametrize("fmt", ["json", "csv", "md", "html", "bibtex", "csljson", "webannotation", "pdf", "jsonl"])
def test_every_format_renders_a_passing_run(passing, fmt):
    bundle, _ = passing
    res = render(bundle, fmt, **GATE)
    assert res.data and res.gate[0].passed and res.hashes_checked == 1
