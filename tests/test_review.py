"""workbench.review.reviewed_run, a pure function of (run, events, hash problems): final
statuses with both verdicts, the answer recomposed from them with auditable revisions, two
reviewers' disagreement and its adjudication, and reviewer-added evidence."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from workbench.models import Answer, Evidence, ReviewEvent, Run, SentenceSupport, Span, Verification
from workbench.review import reviewed_run

QUOTES = [
    "The Supplier shall deliver the goods within thirty days of the order.",
    "The Buyer shall pay each invoice within sixty days of receipt.",
    "This Agreement shall be governed by the laws of the State of New York.",
]


def _span(i: int, text: str) -> Span:
    return Span(document_id="d" * 64, page=1, pages=[1], start=i * 100, end=i * 100 + len(text), text=text,
                text_sha256="0" * 64, rects=[(1, 10.0, 10.0 + i * 20, 300.0, 22.0 + i * 20)])


def _run(verdicts=(True, True, False)) -> Run:
    evs = [Evidence(requirement_id=f"REQ-C00{i + 1}", source_type="contract", document_id="d" * 64, exact_quote=q,
                    chunk_id="c", span=_span(i, q)) for i, q in enumerate(QUOTES)]
    vs = [Verification(requirement_id=e.requirement_id, verified=ok, score=0.9 - i / 10,
                       rejection_reason=None if ok else "does_not_address_question")
          for i, (e, ok) in enumerate(zip(evs, verdicts, strict=True))]
    sents = [SentenceSupport(text=f"{q[:-1]} [{e.requirement_id}].", citations=[e.requirement_id], supported=True)
             for e, q, ok in zip(evs, QUOTES, verdicts, strict=True) if ok]
    ans = Answer(final_answer=" ".join(s.text for s in sents), sentences=sents, support_ratio=1.0,
                 citation_coverage=1.0, grounding_confidence="medium")
    return Run(run_id="r1", question="What are the parties' obligations?", document_ids=["d" * 64], evidence=evs,
               verifications=vs, answer=ans)


def _ev(i: int, rid: str, label: str, who: str = "ann", kind: str = "label", evidence=None) -> ReviewEvent:
    return ReviewEvent(id=i, run_id="r1", requirement_id=rid, label=label, reviewer=who, kind=kind,
                       evidence=evidence, timestamp=datetime(2026, 1, 1, 0, 0, i, tzinfo=UTC))


def test_without_events_the_reader_sees_the_machine_answer():
    run = _run()
    rr = reviewed_run(run, [])
    assert rr.answer == run.answer and rr.revisions == [] and rr.badge == "green"
    assert [s.final_status for s in rr.statuses] == ["supported", "supported", "unsupported"]


def test_a_rejected_item_marked_supported_is_cited_and_the_revision_names_the_event():
    rr = reviewed_run(_run(), [_ev(7, "REQ-C003", "supported")])
    s = rr.status_for("REQ-C003")
    assert (s.verifier_verdict, s.human_label, s.final_status) == ("unsupported", "supported", "supported")
    assert "REQ-C003" in rr.answer.sentences[-1].citations and rr.answer.sentences[-1].supported
    assert rr.answer.support_ratio == 1.0 and rr.answer.citation_coverage == 1.0
    (rev,) = rr.revisions
    assert rev.triggered_by == [7] and rev.now_citable == ["REQ-C003"] and rev.added_sentences
    assert rr.machine_answer.final_answer.count("[REQ-") == 2  # the machine answer stays as composed


def test_rejecting_the_only_supported_items_leaves_no_authoritative_evidence():
    rr = reviewed_run(_run(), [_ev(1, "REQ-C001", "unsupported"), _ev(2, "REQ-C002", "unsupported")])
    assert rr.answer.result == "NO_AUTHORITATIVE_EVIDENCE" and not rr.answer.sentences
    assert rr.answer.grounding_confidence == "insufficient" and rr.badge == "red"
    assert [r.triggered_by for r in rr.revisions] == [[1], [2]]


def test_a_reset_restores_the_machine_answer():
    run = _run()
    rr = reviewed_run(run, [_ev(1, "REQ-C001", "unsupported"), _ev(2, "REQ-C001", "reset")])
    assert rr.answer == run.answer and len(rr.revisions) == 2


def test_hash_problems_make_an_item_unsupported_and_recompose_without_events():
    rr = reviewed_run(_run(), [], {"REQ-C001": "tampered"})
    assert rr.status_for("REQ-C001").final_status == "unsupported" and not rr.status_for("REQ-C001").hash_ok
    assert "REQ-C001" not in rr.answer.final_answer
    assert rr.revisions[0].triggered_by == [] and rr.run.verification_for("REQ-C001").rejection_reason == "hash_mismatch"


def test_two_reviewers_disagreeing_show_both_until_an_adjudicator_settles_it():
    events = [_ev(1, "REQ-C002", "supported", "ann"), _ev(2, "REQ-C002", "unsupported", "bob")]
    s = reviewed_run(_run(), events).status_for("REQ-C002")
    assert s.conflict and s.reviewer_labels == {"ann": "supported", "bob": "unsupported"}
    settled = reviewed_run(_run(), [*events, _ev(3, "REQ-C002", "supported", "cy", kind="adjudication"),
                                    _ev(4, "REQ-C002", "unsupported", "bob")]).status_for("REQ-C002")
    assert not settled.conflict and settled.adjudicated
    assert (settled.human_label, settled.reviewer) == ("supported", "cy")  # a later plain label does not undo it


def test_reviewer_added_evidence_is_a_human_supported_item_the_answer_cites():
    q = "Either party may terminate this Agreement upon ninety days written notice."
    added = Evidence(requirement_id="REQ-C009", source_type="contract", document_id="d" * 64, exact_quote=q,
                     chunk_id="reviewer", span=_span(5, q))
    rr = reviewed_run(_run(), [_ev(1, "REQ-C009", "supported", kind="added", evidence=added)])
    s = rr.status_for("REQ-C009")
    assert s.human_added and s.final_status == "supported" and s.verifier_verdict == "unsupported"
    assert any("REQ-C009" in x.citations for x in rr.answer.sentences)


def test_a_sentence_label_follows_its_sentence_through_a_revision():
    events = [_ev(1, "SENT-2", "unsupported"), _ev(2, "REQ-C001", "unsupported")]
    rr = reviewed_run(_run(), events)
    (only,) = rr.answer.sentences  # sentence 1 dropped; the labelled one is now first
    assert only.citations == ["REQ-C002"] and not only.supported and rr.answer.support_ratio == 0.0


def test_review_orders_put_the_verifier_least_sure_and_reviewers_disagreeing_first():
    import pytest

    from workbench.review import review_order

    # scores 0.9, 0.8, 0.7: C003 is nearest the verifier's boundary
    rr = reviewed_run(_run(), [])
    assert [s.evidence.requirement_id for s in review_order(rr.statuses, "uncertainty")] == [
        "REQ-C003", "REQ-C002", "REQ-C001"]
    # what a human already decided goes last; an open conflict goes first by disagreement
    rr = reviewed_run(_run(), [_ev(1, "REQ-C003", "supported", "ann"), _ev(2, "REQ-C001", "supported", "ann"),
                               _ev(3, "REQ-C001", "unsupported", "bob")])
    assert [s.evidence.requirement_id for s in review_order(rr.statuses, "uncertainty")] == [
        "REQ-C002", "REQ-C003", "REQ-C001"]
    assert [s.evidence.requirement_id for s in review_order(rr.statuses, "disagreement")] == [
        "REQ-C001", "REQ-C003", "REQ-C002"]
    assert review_order(rr.statuses, "run") == rr.statuses
    with pytest.raises(ValueError, match="unknown review order"):
        review_order(rr.statuses, "random")


def test_document_order_is_document_then_page_then_position_and_run_order_is_as_extracted():
    from workbench.review import review_order

    run = _run()
    # extracted out of reading order: C001 on page 7, C002 on page 2 late, C003 on page 2 early
    places = {"REQ-C001": (7, 900), "REQ-C002": (2, 500), "REQ-C003": (2, 100)}
    for e in run.evidence:
        page, start = places[e.requirement_id]
        e.span = e.span.model_copy(update={"page": page, "pages": [page], "start": start,
                                           "end": start + len(e.exact_quote)})
    rr = reviewed_run(run, [])
    assert [s.evidence.requirement_id for s in review_order(rr.statuses, "document")] == [
        "REQ-C003", "REQ-C002", "REQ-C001"]
    assert [s.evidence.requirement_id for s in review_order(rr.statuses, "run")] == [
        "REQ-C001", "REQ-C002", "REQ-C003"]


def _read_by_ocr(run: Run, confidences: dict[str, tuple[float, float]]) -> Run:
    """The run as if these items' quotes were read by OCR: (mean, lowest word) confidence."""
    for e in run.evidence:
        if e.requirement_id in confidences:
            mean, low = confidences[e.requirement_id]
            e.span = e.span.model_copy(update={"ocr_confidence": mean, "ocr_min_confidence": low})
    return run


def test_quotes_ocr_read_with_a_low_confidence_word_come_first_in_every_order_until_a_human_looks():
    """Issue 42: a quote whose words OCR was unsure of may be a misreading no verifier can see, so
    it goes to review first; a sure OCR reading (every word at or above the threshold) keeps its place."""
    from workbench.review import REVIEW_ORDERS, ocr_review_reason, review_order

    # C003 read surely (lowest word 0.80), C002 with one doubtful word (0.41); threshold 0.6
    run = _read_by_ocr(_run(), {"REQ-C002": (0.88, 0.41), "REQ-C003": (0.93, 0.80)})
    rr = reviewed_run(run, [])
    for order in REVIEW_ORDERS:
        plain = [s.evidence.requirement_id for s in review_order(rr.statuses, order)]
        flagged = [s.evidence.requirement_id for s in review_order(rr.statuses, order, ocr_low=0.6)]
        assert flagged == ["REQ-C002"] + [r for r in plain if r != "REQ-C002"], order
    reason = ocr_review_reason(rr.status_for("REQ-C002"), 0.6)
    assert reason is not None and "Read by OCR with low confidence" in reason and "0.41 (below 0.60" in reason
    assert ocr_review_reason(rr.status_for("REQ-C003"), 0.6) is None  # read by OCR, but surely
    assert ocr_review_reason(rr.status_for("REQ-C001"), 0.6) is None  # the PDF's own text
    assert ocr_review_reason(rr.status_for("REQ-C002"), 0.4) is None  # the threshold is the setting's
    # once a human has labelled it, someone compared it with the page: it goes back to its place
    rr = reviewed_run(run, [_ev(1, "REQ-C002", "supported")])
    assert ocr_review_reason(rr.status_for("REQ-C002"), 0.6) is None
    assert [s.evidence.requirement_id for s in review_order(rr.statuses, "document", ocr_low=0.6)] == [
        "REQ-C001", "REQ-C002", "REQ-C003"]


def test_a_reviewer_supported_part_of_a_sentence_says_where_words_were_left_out():
    """A reviewer may select part of a sentence; the answer sentence built from it says so, as the
    machine's do for the parts it quotes. A whole sentence or list item gets no ellipsis."""
    from workbench.pipeline.compose import quote_cut

    part = "the Receiving Party shall return all copies of the Confidential Information"
    added = Evidence(requirement_id="REQ-C009", source_type="contract", document_id="d" * 64, exact_quote=part,
                     chunk_id="reviewer", span=_span(5, part))
    rr = reviewed_run(_run(), [_ev(1, "REQ-C009", "supported", kind="added", evidence=added)])
    [said] = [x.text for x in rr.answer.sentences if "REQ-C009" in x.citations]
    assert said.startswith("… The Receiving Party shall return all copies") and "Information … [REQ-C009]" in said
    assert quote_cut("Either party may terminate this Agreement upon ninety days written notice.") == (False, False)
    assert quote_cut("(b) return the copies to the Disclosing Party; and") == (False, False)
    assert quote_cut("Subject to Section 4, each party shall keep the terms confidential,") == (False, True)


# --- "contradicted" (issue 40): a label that says the documents say otherwise ---------------------
@pytest.mark.parametrize(("label", "final"), [
    ("supported", "supported"),
    ("unsupported", "unsupported"),
    ("contradicted", "unsupported"),  # not supported; the human label keeps why
])
def test_an_item_label_gives_its_final_status_and_stays_visible(label, final):
    rr = reviewed_run(_run(), [_ev(1, "REQ-C001", label)])
    s = rr.status_for("REQ-C001")
    assert (s.human_label, s.final_status, s.verifier_verdict) == (label, final, "supported")
    assert ("REQ-C001" in rr.answer.final_answer) == (final == "supported")


@pytest.mark.parametrize(("label", "supported", "verdict"), [
    ("supported", True, "supported"),
    ("unsupported", False, "not_stated"),
    ("contradicted", False, "contradicted"),
])
def test_a_sentence_label_sets_supported_and_verdict_alike(label, supported, verdict):
    rr = reviewed_run(_run(), [_ev(1, "SENT-1", label)])
    s = rr.answer.sentences[0]
    assert (s.supported, s.verdict) == (supported, verdict)
    assert s.reason.startswith(f"labelled {label} by ann")
    assert rr.answer.support_ratio == (0.5 if not supported else 1.0)


def test_a_reset_withdraws_a_contradicted_sentence_label():
    run = _run()
    rr = reviewed_run(run, [_ev(1, "SENT-2", "contradicted"), _ev(2, "SENT-2", "reset")])
    assert rr.answer.sentences[1] == run.answer.sentences[1] and rr.answer.sentences[1].verdict == "supported"


def _draft(verdicts=("supported", "contradicted", "not_stated")) -> Run:
    """A checked draft: sentence i cites REQ-C00i, its machine verdict as given (an item is
    verified when its sentence was supported)."""
    evs = [Evidence(requirement_id=f"REQ-C00{i + 1}", source_type="contract", document_id="d" * 64, exact_quote=q,
                    chunk_id="c", span=_span(i, q)) for i, q in enumerate(QUOTES)]
    vs = [Verification(requirement_id=e.requirement_id, verified=v == "supported", score=0.9 if v == "supported" else 0.2,
                       verifier="claims") for e, v in zip(evs, verdicts, strict=True)]
    sents = [SentenceSupport(text=f"Claim {i + 1} [{e.requirement_id}].", citations=[e.requirement_id],
                             supported=v == "supported", verdict=v, score=0.9 if v == "supported" else 0.2,
                             reason=f"{v} by the check") for i, (e, v) in enumerate(zip(evs, verdicts, strict=True))]
    ans = Answer(final_answer=" ".join(s.text for s in sents), sentences=sents, support_ratio=round(1 / 3, 4))
    return Run(run_id="r1", question="memo", kind="draft", draft="...", document_ids=["d" * 64], evidence=evs,
               verifications=vs, answer=ans)


@pytest.mark.parametrize(("rid", "label", "verdict", "reason"), [
    # the check said supported
    ("REQ-C001", "contradicted", "contradicted", "its evidence was marked contradicted after review: REQ-C001"),
    ("REQ-C001", "unsupported", "not_stated", "its evidence was marked unsupported after review: REQ-C001"),
    ("REQ-C001", "supported", "supported", "supported by the check"),
    # the check said contradicted: a reviewer agrees (the check's reason stays), says not stated, or supported
    ("REQ-C002", "contradicted", "contradicted", "contradicted by the check"),
    ("REQ-C002", "unsupported", "contradicted", "contradicted by the check"),
    ("REQ-C002", "supported", "supported", "its evidence was marked supported after review"),
    # the check said not stated: a reviewer reads a contradiction in its closest passage
    ("REQ-C003", "contradicted", "contradicted", "its evidence was marked contradicted after review: REQ-C003"),
])
def test_an_item_label_on_a_checked_draft_gives_its_sentence_a_verdict(rid, label, verdict, reason):
    run = _draft()
    rr = reviewed_run(run, [_ev(1, rid, label)])
    n = int(rid[-1]) - 1
    s = rr.answer.sentences[n]
    assert (s.verdict, s.reason) == (verdict, reason)
    assert s.text == run.answer.sentences[n].text  # the analyst's words stay
    assert all(x.supported == (x.verdict == "supported") for x in rr.answer.sentences)
    assert [x.verdict for i, x in enumerate(rr.answer.sentences) if i != n] == \
        [x.verdict for i, x in enumerate(run.answer.sentences) if i != n]


def test_a_contradicted_label_that_changes_no_status_is_still_a_revision_of_a_draft():
    rr = reviewed_run(_draft(), [_ev(4, "REQ-C003", "contradicted")])
    assert rr.status_for("REQ-C003").final_status == "unsupported"  # as the verifier had it
    (rev,) = rr.revisions
    assert rev.triggered_by == [4] and rev.now_citable == rev.no_longer_citable == []
    rr = reviewed_run(_draft(), [_ev(4, "REQ-C003", "contradicted"), _ev(5, "REQ-C003", "reset")])
    assert rr.answer.sentences[2].verdict == "not_stated" and len(rr.revisions) == 2


def test_events_stored_before_contradicted_existed_read_as_before():
    """Old records: a SentenceSupport without a verdict reads it from `supported`, and
    supported/unsupported events mean what they meant."""
    old = SentenceSupport.model_validate({"text": "x [REQ-C001].", "citations": ["REQ-C001"], "supported": False})
    assert old.verdict == "not_stated"
    ev = ReviewEvent.model_validate({"run_id": "r1", "requirement_id": "REQ-C002", "label": "unsupported",
                                     "reviewer": "ann", "verifier_verdict": "supported"})
    rr = reviewed_run(_run(), [ev.model_copy(update={"id": 1})])
    assert rr.status_for("REQ-C002").final_status == "unsupported" and rr.status_for("REQ-C002").human_label == "unsupported"


def test_reviewers_saying_unsupported_and_contradicted_disagree_until_adjudicated():
    events = [_ev(1, "REQ-C002", "unsupported", "ann"), _ev(2, "REQ-C002", "contradicted", "bob")]
    s = reviewed_run(_run(), events).status_for("REQ-C002")
    assert s.conflict and s.final_status == "unsupported"
    s = reviewed_run(_run(), [*events, _ev(3, "REQ-C002", "contradicted", "cy", kind="adjudication")]
                     ).status_for("REQ-C002")
    assert not s.conflict and (s.human_label, s.final_status) == ("contradicted", "unsupported")
