"""Quality review on its own: citation validation, uncited sentences, speculation, coverage."""

from __future__ import annotations

import pytest

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


# --- a sentence whose evidence another verified item contradicts (issue 40) -----------------------------
NEW_YORK = ev("REQ-C001", "This Agreement is governed by the laws of the State of New York.")
CALIFORNIA = ev("REQ-C002", "This Agreement is governed by the laws of the State of California.")
NOTICE = ev("REQ-C003", "Notice of termination shall be given sixty days in advance.")
NOTICE_AGAIN = ev("REQ-C004", "Either party shall give sixty days notice before terminating.")


def _says_otherwise(pairs: dict[tuple[str, str], float]):
    """A stand-in support model: P(contradicted) for (claim, span) pairs named by quote words, else 0.1."""
    def contradiction(text: str, spans: list[str]):
        import numpy as np

        return np.array([next((p for (a, b), p in pairs.items() if a in text and b in s), 0.1) for s in spans])
    return contradiction


def _sentences(*cites: str) -> list[SentenceSupport]:
    return [SentenceSupport(text=f"Sentence {i} [{c}].", citations=[c], supported=True) for i, c in enumerate(cites, 1)]


def test_a_sentence_is_flagged_when_another_verified_item_says_otherwise_and_the_facts_agree():
    from workbench.pipeline.quality import conflicts_finding, evidence_conflicts

    model = _says_otherwise({("New York", "California"): 0.93})
    out = evidence_conflicts(_sentences("REQ-C001", "REQ-C003"), [NEW_YORK, CALIFORNIA, NOTICE], model)
    (x,) = out[0].contradicted_by
    assert (x.cited, x.other, x.probability) == ("REQ-C001", "REQ-C002", 0.93)
    assert x.reason == "REQ-C001 says the laws of New York, REQ-C002 says the laws of California"
    assert out[1].contradicted_by == []
    finding = conflicts_finding(out)
    assert not finding.passed and finding.check == "evidence_consistent"
    assert finding.detail.startswith("sentence 1 [REQ-C001]: REQ-C002 says otherwise than REQ-C001 (p=0.93;")
    # both sides cited: each sentence says what contradicts it; one model read serves both
    out = evidence_conflicts(_sentences("REQ-C001", "REQ-C002"), [NEW_YORK, CALIFORNIA], model)
    assert [[(y.cited, y.other) for y in s.contradicted_by] for s in out] == [[("REQ-C001", "REQ-C002")],
                                                                            [("REQ-C002", "REQ-C001")]]


@pytest.mark.parametrize(("case", "sentences", "verified", "pairs"), [
    ("below the threshold", ("REQ-C001",), [NEW_YORK, CALIFORNIA], {("New York", "California"): 0.49}),
    # the model reads a contradiction, the fact check finds the same facts (sixty days) stated alike
    ("the fact check disagrees", ("REQ-C003",), [NOTICE, NOTICE_AGAIN], {("Notice", "Either"): 0.8}),
    ("cited by the same sentence", (), [NEW_YORK, CALIFORNIA], {("New York", "California"): 0.93}),
    ("the same passage", ("REQ-C001",), [NEW_YORK, ev("REQ-C009", NEW_YORK.exact_quote)], {("New", "New"): 0.9}),
    ("nothing else verified", ("REQ-C001",), [NEW_YORK], {("New York", "New York"): 0.9}),
    # two contracts of a data room, each "this Agreement": each states its own governing law
    ("another document", ("REQ-C001",), [NEW_YORK, CALIFORNIA.model_copy(update={"document_id": "e" * 64})],
     {("New York", "California"): 0.93}),
])
def test_no_flag(case, sentences, verified, pairs):
    from workbench.pipeline.quality import conflicts_finding, evidence_conflicts

    sents = _sentences(*sentences) or [SentenceSupport(text="Both [REQ-C001, REQ-C002].",
                                                       citations=["REQ-C001", "REQ-C002"], supported=True)]
    out = evidence_conflicts(sents, verified, _says_otherwise(pairs))
    assert all(s.contradicted_by == [] for s in out), case
    assert conflicts_finding(out).passed


def test_the_model_reads_only_the_closest_verified_items_of_a_bounded_pool():
    from workbench.pipeline.quality import evidence_conflicts

    reads: list[tuple[str, list[str]]] = []

    def contradiction(text, spans):
        import numpy as np

        reads.append((text, spans))
        return np.zeros(len(spans))

    many = [ev(f"REQ-C{i:03d}", f"Clause {i}: the supplier shall deliver {i} crates of apples weekly.") for i in range(30)]
    evidence_conflicts(_sentences("REQ-C000", "REQ-C001"), many, contradiction, limit=20, closest=3)
    assert len(reads) <= 2 and sum(len(s) for _, s in reads) <= 2 * 3
    assert all(not any(f"Clause {i}:" in s for s in spans) for _, spans in reads for i in range(20, 30))


def test_an_answer_citing_two_clauses_that_disagree_has_the_finding_in_show_json(data_dir, make_pdf, capsys):
    """Real support model: a contract says New York in its body and California in its amendment
    schedule; each sentence of the answer is flagged with the other, and `show --json` carries the
    finding. (Two separate contracts that differ are not flagged: each states its own terms.)"""
    import json

    from workbench import cli
    from workbench.config import get_settings
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    a = wb.ingest(make_pdf(["Services Agreement. 1. Services. The Supplier shall provide the services in Schedule A. "
                            "2. Governing Law. This Agreement is governed by the laws of the State of New York.",
                            "Schedule B. Amendment No. 1. 1. Governing Law. This Agreement is governed by the laws "
                            "of the State of California. 2. Fees. The fees are increased by five percent."],
                           name="agreement.pdf"), source_type="contract")
    [run] = wb.ask(["Which law governs the Agreement?"], [a.id])
    flagged = [s for s in run.answer.sentences if s.contradicted_by]
    assert len(flagged) == 2, [(s.text, s.contradicted_by) for s in run.answer.sentences]
    state = {e.requirement_id: "New York" if "New York" in e.exact_quote else "California" for e in run.evidence}
    for s in flagged:
        (x,) = s.contradicted_by
        assert {state[x.cited], state[x.other]} == {"New York", "California"}
        assert x.probability >= 0.5
    assert cli.main(["show", run.run_id, "--json"]) == 0
    trail = json.loads(capsys.readouterr().out)
    (finding,) = [q for q in trail["after_review"]["quality_review"] if q["check"] == "evidence_consistent"]
    assert not finding["passed"] and "says otherwise than" in finding["detail"]
