"""The rules verifier: seed 000's three criteria and seed 004's sentence validation."""

from __future__ import annotations

from workbench.backends.judge import judge_requirement, judge_sentence

Q_RETENTION = "How long must contractors retain audit records?"


def test_quote_that_states_the_requirement_is_verified_with_a_rationale_naming_matched_terms():
    r = judge_requirement(Q_RETENTION, "Contractors shall retain audit records for a period of three years after final payment.")
    assert r.verified and r.rejection_reason is None
    assert 0.5 <= r.score <= 1.0
    assert "retain" in r.verification_rationale and "record" in r.verification_rationale


def test_ligatures_in_pdf_text_do_not_hide_question_terms():
    r = judge_requirement("What verification is required for officers?",
                          "Oﬃcers shall complete identity veriﬁcation before access is granted.")
    assert r.verified
    assert "officer" in r.verification_rationale and "verific" in r.verification_rationale


def test_off_topic_quote_is_rejected_as_not_addressing_the_question():
    r = judge_requirement(Q_RETENTION, "The vendor shall deliver the software on the first business day of each month.")
    assert not r.verified
    assert r.rejection_reason == "does_not_address_question"
    assert r.score < 0.5


def test_quote_opening_with_such_is_incomplete_without_context():
    r = judge_requirement(Q_RETENTION, "Such audit records shall be retained by contractors for three years.")
    assert not r.verified and r.rejection_reason == "incomplete_quote"
    assert "Such" in r.verification_rationale


def test_quote_opening_with_this_passes_when_context_supplies_the_referent():
    quote = "This audit record shall be retained by contractors for three years."
    ctx = "Each contractor keeps an audit record of every payment. " + quote
    assert judge_requirement(Q_RETENTION, quote, context=ctx).verified


def test_see_section_reference_makes_a_quote_incomplete():
    r = judge_requirement(Q_RETENTION, "Contractors shall retain audit records as required, see § 4.2 for periods.")
    assert r.rejection_reason == "incomplete_quote"


def test_hedged_quote_requires_inference():
    r = judge_requirement(Q_RETENTION, "Contractors might retain audit records for three years in some cases.")
    assert not r.verified and r.rejection_reason == "requires_inference"


def test_empty_quote_is_incomplete():
    assert judge_requirement(Q_RETENTION, "   ").rejection_reason == "incomplete_quote"


def test_semantic_similarity_from_an_embedder_can_establish_relevance_without_shared_words():
    def embed(texts: list[str]):
        import numpy as np

        return np.array([[1.0, 0.0]] * len(texts))  # everything identical in meaning

    quote = "Bookkeeping files stay on hand for thirty-six months."
    assert not judge_requirement(Q_RETENTION, quote).verified
    assert judge_requirement(Q_RETENTION, quote, embed=embed).verified


def test_sentence_supported_by_matching_evidence():
    ok, score, reason = judge_sentence("Contractors must retain audit records for 3 years.",
                                       ["Unrelated text.", "Contractors shall retain audit records for 3 years."])
    assert ok and score > 0.6 and reason.startswith("Supported")


def test_sentence_with_opposite_polarity_is_unsupported():
    ok, _, reason = judge_sentence("Contractors must not retain audit records.",
                                   ["Contractors shall retain audit records for 3 years."])
    assert not ok and "polarity" in reason


def test_sentence_stating_a_number_absent_from_evidence_is_unsupported():
    ok, _, reason = judge_sentence("Contractors must retain audit records for 7 years.",
                                   ["Contractors shall retain audit records for 3 years."])
    assert not ok and "7" in reason


def test_sentence_without_evidence_is_unsupported():
    assert judge_sentence("Anything at all.", []) == (False, 0.0, "No evidence to support this sentence.")

