"""run_question end to end on PDFs made with PyMuPDF: integrity, citations, fail-safe,
stable IDs, events, and what quality review does to bad drafts."""

from __future__ import annotations

import pytest

from tests.pipeline.helpers import (
    OFF_TOPIC_Q,
    POLICY,
    REMOTE_Q,
    FabricatingBackend,
    PagesRetriever,
    ScriptedComposeBackend,
)
from workbench.backends.rules import RulesBackend
from workbench.config import Settings
from workbench.errors import BackendError
from workbench.models import NO_AUTHORITATIVE_EVIDENCE, STAGES, sha256_text
from workbench.pdf import open_pdf
from workbench.pipeline import MemoryIds, run_question
from workbench.text import ID_RE


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(data_dir=tmp_path / "data")


@pytest.fixture
def policy(make_pdf):
    doc = open_pdf(make_pdf(POLICY, name="policy.pdf"))
    doc.document = doc.document.model_copy(update={"source_type": "policy"})
    return doc


def ask(question, docs, settings, backend=None, ids=None, events=None, **kw):
    return run_question(question, docs, retriever=PagesRetriever(), backend=backend or RulesBackend(settings),
                        ids=ids or MemoryIds(), settings=settings,
                        on_event=events.append if events is not None else None, **kw)


def test_every_extracted_quote_is_the_documents_text_at_its_offsets_with_matching_hash(policy, settings):
    run = ask(REMOTE_Q, [policy], settings)
    assert run.evidence
    for e in run.evidence:
        s = e.span
        assert policy.text[s.start:s.end] == e.exact_quote == s.text
        assert s.text_sha256 == sha256_text(e.exact_quote)
        assert s.rects and {r[0] for r in s.rects} <= set(s.pages)
    trail = run.audit_trail()
    for row in trail["extracted_requirements"]:
        assert row["text_sha256"] == sha256_text(row["exact_quote"])


def test_answer_cites_only_verified_ids_and_every_sentence_cites(policy, settings):
    run = ask(REMOTE_Q, [policy], settings)
    verified = {v.requirement_id for v in run.verifications if v.verified}
    cited = set(ID_RE.findall(run.answer.final_answer))
    assert cited and cited <= verified
    assert all(s.citations for s in run.answer.sentences)
    assert "virtual private network" in run.answer.final_answer
    assert "cafeteria" not in run.answer.final_answer
    assert run.answer.result is None
    assert set(run.answer.unused_requirements) == verified - cited


def test_off_topic_question_gives_no_authoritative_evidence(policy, settings):
    events = []
    run = ask(OFF_TOPIC_Q, [policy], settings, events=events)
    trail = run.audit_trail()
    assert trail["result"] == NO_AUTHORITATIVE_EVIDENCE
    assert trail["grounding_confidence"] == "insufficient"
    assert trail["final_answer"] == ""
    assert trail["missing_evidence"] and OFF_TOPIC_Q in trail["missing_evidence"][0]
    assert trail["message"].startswith("No authoritative requirement found")
    assert not any(v.verified for v in run.verifications)
    assert [(e.stage, e.status) for e in events if e.status == "skipped"] == [("compose", "skipped"),
                                                                           ("quality_review", "skipped")]


def test_ids_are_stable_across_runs_and_new_spans_continue_the_sequence(policy, settings):
    ids = MemoryIds()
    first = ask(REMOTE_Q, [policy], settings, ids=ids)
    again = ask(REMOTE_Q, [policy], settings, ids=ids)
    key = {(e.span.start, e.span.end): e.requirement_id for e in first.evidence}
    assert key == {(e.span.start, e.span.end): e.requirement_id for e in again.evidence}
    assert all(i.startswith("REQ-P") for i in key.values())  # policy prefix
    other = ask("How long must customer transaction records be retained?", [policy], settings, ids=ids)
    numbers = sorted(int(e.requirement_id[5:]) for e in first.evidence)
    assert numbers == list(range(1, len(numbers) + 1))
    for e in other.evidence:
        if (e.span.start, e.span.end) in key:
            assert e.requirement_id == key[(e.span.start, e.span.end)]
    assert len({e.requirement_id for e in first.evidence + other.evidence}) == len(
        {(e.span.start, e.span.end) for e in first.evidence + other.evidence})


def test_source_type_argument_sets_the_id_prefix(policy, settings):
    run = ask(REMOTE_Q, [policy], settings, source_type="statute")
    assert run.evidence and all(e.requirement_id.startswith("REQ-S") and e.source_type == "statute"
                                for e in run.evidence)


def test_stages_emit_started_then_done_in_order_with_counts(policy, settings):
    events = []
    run = ask(REMOTE_Q, [policy], settings, events=events, question_index=1, question_total=3)
    order = [e.stage for e in events if e.status == "started"]
    assert order == list(STAGES)
    for stage in STAGES:
        mine = [e.status for e in events if e.stage == stage]
        assert mine[0] == "started" and mine[-1] == "done"
    done = {e.stage: e.counts for e in events if e.status == "done"}
    assert done["retrieval"]["chunks"] == run.chunks_retrieved == 2
    assert done["extract"]["extracted"] == len(run.evidence)
    assert done["verify"]["verified"] + done["verify"]["rejected"] == len(run.evidence)
    assert done["verify"]["rejected"] == sum(v for k, v in done["verify"].items() if k.startswith("rejected_"))
    progress = [e.counts for e in events if e.stage == "verify" and e.status == "progress"]
    assert progress and progress[-1]["checked"] == progress[-1]["total"] == len(run.evidence)
    assert all(e.question_index == 1 and e.question_total == 3 for e in events)
    assert set(run.stage_timings) == set(STAGES)


def test_fabricated_quote_is_rejected_quote_not_found_and_never_cited(policy, settings):
    run = ask(REMOTE_Q, [policy], settings, backend=FabricatingBackend(settings))
    fab = [e for e in run.evidence if e.exact_quote == FabricatingBackend.fabricated]
    assert len(fab) == 1 and fab[0].span is None
    v = run.verification_for(fab[0].requirement_id)
    assert not v.verified and v.rejection_reason == "quote_not_found"
    assert fab[0].requirement_id not in run.answer.final_answer
    assert fab[0].requirement_id in [r["requirement_id"] for r in run.audit_trail()["rejected_requirements"]]


def test_quality_review_removes_an_invalid_id_and_reports_it(policy, settings):
    backend = ScriptedComposeBackend(settings, [
        "Employees must use the approved virtual private network for every remote access session [{ID}, REQ-P999]."])
    run = ask(REMOTE_Q, [policy], settings, backend=backend)
    assert "REQ-P999" not in run.answer.final_answer
    checks = {q.check: q for q in run.answer.quality}
    assert any("REQ-P999" in q.detail for q in run.answer.quality if not q.passed)
    assert "cited_ids_verified" in checks


def test_revise_loop_is_bounded_and_drops_uncited_and_speculative_sentences(policy, settings):
    settings = settings.model_copy(update={"max_revisions": 2})
    backend = ScriptedComposeBackend(settings, [
        "Employees must use the approved virtual private network [{ID}]. Remote work is likely to grow. "
        "Staff will probably like it [{ID}]."])
    run = ask(REMOTE_Q, [policy], settings, backend=backend)
    assert len(backend.feedback) == 3  # first draft + max_revisions
    assert backend.feedback[0] is None
    assert any(f.startswith("uncited:") for f in backend.feedback[1])
    assert any(f.startswith("speculative:") and "probably" in f for f in backend.feedback[1])
    assert run.answer.revisions == 2
    assert "likely" not in run.answer.final_answer and "probably" not in run.answer.final_answer
    assert run.answer.final_answer.startswith("Employees must use the approved virtual private network")
    failed = [q.check for q in run.answer.quality if not q.passed]
    assert "revision_2_every_sentence_cites" in failed and "revision_2_no_speculation" in failed


def test_a_failing_verifier_is_recorded_and_the_run_fails_safe(policy, settings):
    class Broken(RulesBackend):
        def verify(self, question, evidence):
            raise BackendError("verifier timed out", raw="<html>504</html>")

    run = ask(REMOTE_Q, [policy], settings, backend=Broken(settings))
    assert run.answer.result == NO_AUTHORITATIVE_EVIDENCE
    assert run.failures and run.failures[0].stage == "verify" and run.failures[0].raw == "<html>504</html>"
    assert {v.rejection_reason for v in run.verifications} == {"backend_error"}


def test_unsupported_sentences_lower_the_grounding_confidence(policy, settings):
    backend = ScriptedComposeBackend(settings, [
        "Employees must use the approved virtual private network [{ID}]. "
        "Managers approve new laptops on Fridays [{ID}]. Printers are serviced every month [{ID}]."])
    run = ask(REMOTE_Q, [policy], settings, backend=backend)
    assert 2 <= sum(v.verified for v in run.verifications) <= 4  # by count alone: medium
    assert [s.supported for s in run.answer.sentences] == [True, False, False]
    assert run.answer.support_ratio == pytest.approx(1 / 3, abs=1e-3)
    assert run.answer.grounding_confidence == "low"  # below 0.40 supported: at most low
    assert any(q.check == "sentences_supported" and not q.passed for q in run.answer.quality)


def test_empty_question_or_no_documents_is_a_user_error(policy, settings):
    from workbench.errors import WorkbenchError

    with pytest.raises(WorkbenchError, match="question is empty"):
        ask("   ", [policy], settings)
    with pytest.raises(WorkbenchError, match="No documents"):
        ask(REMOTE_Q, [], settings)


def test_a_draft_that_only_forgets_to_list_unused_ids_is_not_revised(policy, settings):
    class NoUnused(ScriptedComposeBackend):
        def compose(self, question, verified, feedback=None):
            return super().compose(question, verified, feedback).model_copy(update={"unused_requirements": []})

    backend = NoUnused(settings, ["Employees must use the approved virtual private network [{ID}]."])
    run = ask(REMOTE_Q, [policy], settings, backend=backend)
    assert len(backend.feedback) == 1 and run.answer.revisions == 0
    coverage = next(q for q in run.answer.quality if q.check == "coverage")
    assert not coverage.passed
    verified = {v.requirement_id for v in run.verifications if v.verified}
    assert set(run.answer.unused_requirements) == verified - set(ID_RE.findall(run.answer.final_answer))


def test_no_evidence_names_pages_without_a_text_layer_as_missing(make_pdf, settings):
    doc = open_pdf(make_pdf([POLICY[0], ""], name="half-scanned.pdf"))
    assert doc.document.pages_without_text == [2]
    run = ask(OFF_TOPIC_Q, [doc], settings)
    assert run.answer.result == NO_AUTHORITATIVE_EVIDENCE
    assert any("half-scanned.pdf" in m and "without readable text" in m and m.endswith("again.")
               for m in run.answer.missing_evidence)


def test_usage_is_recorded_per_run_not_accumulated_across_questions(policy, settings):
    backend = RulesBackend(settings)
    first = ask(REMOTE_Q, [policy], settings, backend=backend)
    second = ask(REMOTE_Q, [policy], settings, backend=backend)
    assert first.usage["extract"].calls == second.usage["extract"].calls == 1
    assert second.usage["verify"].calls == 1
    assert backend.usage()["extract"].calls == 2


def test_identical_spans_are_one_evidence_item_whether_given_by_offsets_or_by_quote(policy, settings):
    class Twice(RulesBackend):
        def extract(self, question, chunks, context):
            out = super().extract(question, chunks, context)
            # the same quotes again, once without offsets (as an LLM returns them), once re-spaced
            return out + [c.model_copy(update={"start": None, "end": None}) for c in out] + \
                [c.model_copy(update={"start": None, "end": None, "exact_quote": "  ".join(c.exact_quote.split())})
                 for c in out]

    plain = ask(REMOTE_Q, [policy], settings)
    twice = ask(REMOTE_Q, [policy], settings, backend=Twice(settings))
    assert [(e.span.start, e.span.end) for e in twice.evidence] == [(e.span.start, e.span.end) for e in plain.evidence]


def test_conflicting_requirements_in_two_documents_are_presented_together(make_pdf, settings):
    a = open_pdf(make_pdf(["Laptop Policy\n\nContractors must store customer records on encrypted company laptops "
                           "during every field visit."], name="policy.pdf"))
    b = open_pdf(make_pdf(["Records Statute\n\nContractors must not store customer records on company laptops "
                           "during any field visit."], name="statute.pdf"))
    run = ask("Where must contractors store customer records during field visits?", [a, b], settings)
    verified = [v.requirement_id for v in run.verifications if v.verified]
    assert len(verified) == 2
    sentences = run.answer.sentences
    assert len(sentences) == 1 and sorted(sentences[0].citations) == sorted(verified)
    assert "must not store" in sentences[0].text and "must store" in sentences[0].text


def test_verify_runs_in_batches_with_progress_and_a_failing_batch_only_fails_its_items(policy, settings, monkeypatch):
    monkeypatch.setattr("workbench.pipeline.run.VERIFY_BATCH", 2)

    class SecondBatchFails(RulesBackend):
        calls = 0

        def verify(self, question, evidence):
            type(self).calls += 1
            if type(self).calls == 2:
                raise BackendError("rate limited")
            return super().verify(question, evidence)

    events = []
    run = ask(REMOTE_Q, [policy], settings, backend=SecondBatchFails(settings), events=events)
    checked = [e.counts["checked"] for e in events if e.stage == "verify" and e.status == "progress"]
    n = len([e for e in run.evidence if e.span is not None])
    assert n > 4 and checked == [*range(2, n, 2), n]
    reasons = [v.rejection_reason for v in run.verifications]
    assert reasons[2:4] == ["backend_error", "backend_error"]
    assert "backend_error" not in reasons[:2] + reasons[4:]
    assert len(run.failures) == 1 and run.failures[0].message == "rate limited"


def test_the_judgment_that_decided_is_in_the_audit_trail_and_each_item_carries_its_unit_facts(policy, settings):
    """Issue 38: an auditor sees the thresholds and gates that decided every verdict; each item
    carries what the verdict read about its unit, so a later process judges it the same way."""
    from workbench.models import Run

    run = ask(REMOTE_Q, [policy], settings)
    trail_settings = run.settings["judgment"]
    assert trail_settings == settings.judgment.model_dump() and trail_settings["gates"][0] == "relevance"
    assert run.audit_trail()["evidence_audit_trail"]["settings"]["judgment"] == trail_settings
    assert all(e.unit is not None for e in run.evidence if e.span is not None)
    again = Run.model_validate_json(run.model_dump_json())  # as stored and loaded in another process
    assert [e.unit for e in again.evidence] == [e.unit for e in run.evidence]
