"""Quality review on its own: citation validation, uncited sentences, speculation, coverage."""

from __future__ import annotations

from workbench.models import Draft, Evidence, SentenceSupport
from workbench.pipeline.quality import review, sanitize
from workbench.text import cited_ids, remove_ids, speculative_terms, split_sentences, strip_citations


class EveryCitedSentenceSupported:
    def support(self, sentences, evidence):
        return [SentenceSupport(text=s, citations=cited_ids(s), supported=bool(cited_ids(s))) for s in sentences]


def ev(rid: str, quote: str = "Employees must use the approved network for remote sessions.") -> Evidence:
    return Evidence(requirement_id=rid, document_id="d" * 64, exact_quote=quote, chunk_id="c1")


VERIFIED = [ev("REQ-P001"), ev("REQ-P002"), ev("REQ-P003")]


def run_review(text: str, unused: list[str] | None = None, known: set[str] | None = None):
    draft = Draft(final_answer=text, unused_requirements=unused or [])
    return review(draft, VERIFIED, known or {"REQ-P001", "REQ-P002", "REQ-P003", "REQ-P004"},
                  EveryCitedSentenceSupported())


def test_sentences_split_at_full_stops_but_not_inside_abbreviations_or_section_numbers():
    text = ("Use approved methods, e.g. NIST guidance [REQ-S001]. Section 3.1.12 applies to U.S. agencies "
            "[REQ-S002]. See Sec. 4 for details [REQ-S003]! Done.")
    assert split_sentences(text) == [
        "Use approved methods, e.g. NIST guidance [REQ-S001].",
        "Section 3.1.12 applies to U.S. agencies [REQ-S002].",
        "See Sec. 4 for details [REQ-S003]!",
        "Done.",
    ]


def test_citations_are_read_from_bracket_groups_only():
    s = "Counties must act [REQ-S001, REQ-P003] as REQ-S009 says [REQ-S001]."
    assert cited_ids(s) == ["REQ-S001", "REQ-P003"]
    assert strip_citations(s) == "Counties must act as REQ-S009 says."


def test_speculative_terms_are_found_as_whole_words():
    assert speculative_terms("This will likely apply and could be extended [REQ-S001].") == ["could be", "likely"]
    assert speculative_terms("Agencies may not disclose records; likelihood is assessed [REQ-S001].") == []


def test_a_right_granted_in_the_passive_is_not_speculation():
    """"may be terminated" in a contract grants a right (the verifier's hedge gate agrees, so
    compose must not drop the quote it verified); "may be associated" in a paper hedges."""
    assert speculative_terms("This Agreement may be terminated by Company for cause [REQ-C003].") == []
    assert speculative_terms("Any provision may be amended or waived only with written consent [REQ-C020].") == []
    assert speculative_terms("Higher doses may be associated with liver injury [REQ-P004].") == ["may be"]
    assert speculative_terms("The estimate may be too low [REQ-P005].") == ["may be"]


def test_invalid_ids_are_removed_everywhere_and_reported():
    assert remove_ids("A must B [REQ-P001, REQ-P009]. C [REQ-P009]. See REQ-P009.", {"REQ-P009"}) == \
        "A must B [REQ-P001]. C. See."
    rev = run_review("Employees must use the approved network [REQ-P001, REQ-P004, REQ-X77].",
                     unused=["REQ-P002", "REQ-P003"])
    assert rev.invalid_ids == ["REQ-P004", "REQ-X77"]
    assert rev.final_answer == "Employees must use the approved network [REQ-P001]."
    failed = {f.check: f.detail for f in rev.findings if not f.passed}
    assert failed == {"cited_ids_verified": "removed REQ-P004, REQ-X77"}
    assert any(line.startswith("invalid_id: REQ-P004 not verified") for line in rev.feedback)


def test_an_id_that_was_never_extracted_is_reported_as_not_existing():
    rev = run_review("Employees must use it [REQ-P001, REQ-P777].", unused=["REQ-P002", "REQ-P003"])
    assert any("REQ-P777 does not exist" in line for line in rev.feedback)


def test_uncited_sentence_fails_review_and_is_named_in_feedback():
    rev = run_review("Employees must use the network [REQ-P001]. Everyone agrees this is wise.",
                     unused=["REQ-P002", "REQ-P003"])
    assert not rev.passed
    assert [f.check for f in rev.findings if not f.passed] == ["every_sentence_cites", "sentences_supported"]
    assert any(line.startswith("uncited:") and "Everyone agrees" in line for line in rev.feedback)
    assert sanitize(rev) == "Employees must use the network [REQ-P001]."


def test_speculative_language_fails_review_and_names_the_cited_ids():
    rev = run_review("Employees will likely use the network [REQ-P002].", unused=["REQ-P001", "REQ-P003"])
    assert [f.check for f in rev.findings if not f.passed] == ["no_speculation"]
    assert any(line.startswith("speculative: [REQ-P002] 'likely'") for line in rev.feedback)
    assert sanitize(rev) == ""


def test_coverage_counts_cited_verified_ids_and_requires_the_rest_listed_unused():
    rev = run_review("Employees must use the network [REQ-P001, REQ-P002].")
    assert rev.coverage == round(2 / 3, 4)
    cov = next(f for f in rev.findings if f.check == "coverage")
    assert not cov.passed and "REQ-P003" in cov.detail
    ok = run_review("Employees must use the network [REQ-P001, REQ-P002].", unused=["REQ-P003"])
    assert ok.passed and ok.support_ratio == 1.0


def test_an_empty_answer_fails_review():
    rev = run_review("", unused=["REQ-P001", "REQ-P002", "REQ-P003"])
    assert not rev.passed and rev.sentences == []
    assert next(f for f in rev.findings if f.check == "has_answer").passed is False
