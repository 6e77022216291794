"""The verifier's relevance check knows which words the searched documents use: one question
word a document never uses (its parties have names, the question says "the Company") does not
count against every quote, but a question mostly foreign to the documents still fails."""

from workbench.backends.judge import document_vocabulary, judge_requirement

CONTRACT = ("ADAMS GOLF shall pay CONSULTANT a base compensation of fifty thousand dollars. "
            "The Company shall deliver products to CONSULTANT.")
QUOTE = "ADAMS GOLF shall pay CONSULTANT a base compensation of fifty thousand dollars."


def test_a_question_word_the_documents_never_use_is_excused_once():
    vocab = document_vocabulary(CONTRACT)
    plain = judge_requirement("What must the Company pay the endorser?", QUOTE)
    aware = judge_requirement("What must the Company pay the endorser?", QUOTE, vocabulary=vocab)
    assert not plain.verified and plain.rejection_reason == "does_not_address_question"
    assert aware.verified
    assert "not used by the documents: endorser" in aware.verification_rationale


def test_a_question_mostly_foreign_to_the_documents_is_still_rejected():
    vocab = document_vocabulary(CONTRACT)
    r = judge_requirement("What is the airspeed velocity of an unladen golf swallow?", QUOTE, vocabulary=vocab)
    assert not r.verified and r.rejection_reason == "does_not_address_question"


def test_without_a_vocabulary_no_term_is_excused():
    r = judge_requirement("What must the Company pay the endorser?", QUOTE)
    assert "not used by the documents" not in r.verification_rationale
    assert "missing: company, endorser" in r.verification_rationale
