"""The rules backend: requirement extraction at exact offsets, excerpts at clause boundaries,
composition from verified quotes only, verification and support through the judge."""

from __future__ import annotations

import re

import pytest

from workbench.backends import engine
from workbench.backends.rules import RulesBackend, extract_from_text
from workbench.config import Settings
from workbench.models import Chunk, Evidence, Span
from workbench.pipeline.compose import MAX_STATEMENTS, compose_answer, compose_from_quotes
from workbench.text import cited_ids, speculative_terms, split_sentences


class TextContext:
    """ExtractContext over one plain-text document whose sentences are given one per item."""

    def __init__(self, sentences: list[str], doc_id: str = "d" * 64):
        self.doc_id = doc_id
        self.text = " ".join(sentences)
        self.spans, pos = [], 0
        for s in sentences:
            self.spans.append((pos, pos + len(s), s))
            pos += len(s) + 1

    def chunk(self) -> Chunk:
        return Chunk(chunk_id="c1", document_id=self.doc_id, start=0, end=len(self.text), text=self.text, page=1)

    def sentences(self, document_id, start, end):
        return [t for t in self.spans if t[1] > start and t[0] < end]

    def heading_at(self, document_id, offset):
        return "Access Control"


@pytest.fixture
def backend(tmp_path) -> RulesBackend:
    return RulesBackend(Settings(data_dir=tmp_path))


def extract(backend, sentences, question="What must be done?"):
    ctx = TextContext(sentences)
    return ctx, backend.extract(question, [ctx.chunk()], ctx)


def test_quotes_are_whole_sentences_at_their_exact_offsets_ranked_by_relevance(backend):
    ctx, got = extract(backend, [
        "The agency was founded in 1950 and has offices in four states across the country.",
        "Each contractor must encrypt customer data at rest using approved cryptographic modules.",
        "Visitors are required to sign the register at the front desk before entering the building.",
        "Employees may not share passwords with anyone, including members of the IT support team.",
    ], question="Must contractors encrypt customer data at rest?")
    assert got and got[0].exact_quote == ctx.spans[1][2]
    for c in got:
        assert ctx.text[c.start:c.end] == c.exact_quote
        assert c.exact_quote in [t for _s, _e, t in ctx.spans]  # whole sentences, never a piece of one
        assert c.chunk_id == "c1" and c.section_heading == "Access Control"
    assert got[0].extraction_confidence in ("high", "medium")


def test_questions_that_are_not_about_requirements_get_evidence_too(backend):
    ctx, got = extract(backend, [
        "The agency was founded in 1950 and has offices in four states across the country.",
        "Visitors are required to sign the register at the front desk before entering the building.",
    ], question="When was the agency founded?")
    assert got[0].exact_quote == ctx.spans[0][2]  # no must/shall in it, and still the best evidence


def test_numbered_imperative_requirements_of_standards_are_extracted(backend):
    ctx, got = extract(backend, [
        "3.1.12 Monitor and control remote access sessions.",
        "Control of remote sessions is discussed in the next section of this chapter.",
        "3.1.1 Limit system access to authorized users, processes acting on behalf of authorized users, and devices.",
        "Remote access methods include, for example, dial-up, broadband, and wireless connections.",
        "Ensure that all visitors sign the register before they enter the building.",
        "Audit logs are reviewed and analyzed as often as needed to provide important information.",
    ], question=None)  # the inventory (no question) still lists requirements by rule
    assert [c.exact_quote for c in got] == [ctx.spans[0][2], ctx.spans[2][2], ctx.spans[4][2]]
    assert all(c.extraction_confidence == "medium" for c in got)


def test_adjectives_like_mandatory_or_required_alone_give_low_confidence_only():
    t = "Usage guidance for mobile devices includes implementation of mandatory protective software on each device."
    assert [c for *_, c in extract_from_text(t, 0, None, 10, 40)] == ["low"]
    t = "The number of changed characters refers to the number of changes required in the current password."
    assert extract_from_text(t, 0, None, 10, 40) == []


def test_a_short_fragment_without_a_full_stop_is_not_quoted():
    assert extract_from_text("Must comply", 0, None, 10, 40) == []
    assert extract_from_text("Employees must comply with it.", 0, None, 10, 40) == [(0, 30, "high")]


LONG = ("Subject to the exceptions listed in paragraph (b), each covered entity that processes personal data of "
        "residents, including contractors and subcontractors acting on its behalf, shall notify the supervisory "
        "authority of any breach of security within seventy-two hours after becoming aware of it, and shall keep "
        "a written record of every such breach, its effects and the remedial action taken, for a period of no "
        "less than five years.")


def test_long_sentences_are_excerpted_at_clause_boundaries_within_10_to_40_words():
    assert len(LONG.split()) > 40
    spans = extract_from_text(LONG, 100, "When must the supervisory authority be notified of a breach?", 10, 40)
    assert len(spans) == 1
    s, e, conf = spans[0]
    quote = LONG[s - 100:e - 100]
    assert 10 <= len(quote.split()) <= 40
    assert "notify the supervisory authority" in quote
    assert (s == 100 or LONG[s - 101] == " ") and (e - 100 == len(LONG) or not LONG[e - 100].isalnum())
    assert not quote.endswith((",", ";", " and", " or")) and quote == quote.strip()
    assert conf == "medium"  # an excerpt, not the whole sentence


def test_the_excerpt_follows_the_question(backend):
    q = "For how many years must a written record of each breach be kept?"
    (s, e, _), = extract_from_text(LONG, 0, q, 10, 40)
    assert "five years" in LONG[s:e]


VERY_LONG = LONG[:-1] + (", and shall deliver a copy of that record, with the names of the persons responsible for "
                          "the processing concerned, the categories and approximate number of data subjects affected "
                          "and the measures proposed to mitigate its possible adverse effects, to the authority on its "
                          "first request.")


def test_an_answer_from_part_of_a_sentence_says_where_words_were_left_out(backend, monkeypatch):
    """A sentence is quoted whole up to engine.WHOLE_WORDS; a quote that is part of a longer
    one is composed into the answer with "…" where the sentence goes on, so the reader does not
    take it for the whole (the limits lowered so this 80-odd-word sentence is a longer one)."""
    monkeypatch.setattr(engine, "WHOLE_WORDS", 40)
    monkeypatch.setattr(engine, "WHOLE_MAX_FACTOR", 2)
    LONG = VERY_LONG  # noqa: N806 (the sentence this test reads)
    assert len(LONG.split()) > 2 * 40
    ctx, got = extract(backend, [LONG, "Visitors must sign the register at the front desk before entering the building."],
                       question="Within how many hours must the supervisory authority be notified of a breach?")
    first = got[0]
    assert first.exact_quote != LONG and first.exact_quote in LONG  # a part, at a clause boundary
    evidence = engine.with_units(ctx, [ev("REQ-S001", first.exact_quote, first.start)])  # its unit, from the text
    [v] = backend.verify("Within how many hours must the supervisory authority be notified of a breach?", evidence)
    assert v.verified and "quoted in part" in v.verification_rationale
    draft = compose_answer("q", evidence)
    [sentence] = split_sentences(draft.final_answer)
    before, after = LONG[:first.start].strip(), LONG[first.end:].strip(" .")
    assert sentence.startswith("… ") == bool(before) and sentence.endswith(" … [REQ-S001].") == bool(after)
    assert before or after
    assert draft.requirement_references[0].statement.endswith(" …") == bool(after)


def test_a_whole_sentence_is_composed_without_an_ellipsis(backend):
    quote = "Employees must use the approved virtual private network for remote access sessions."
    ctx, got = extract(backend, [quote], question="What must employees use for remote access sessions?")
    evidence = engine.with_units(ctx, [ev("REQ-S001", got[0].exact_quote, got[0].start)])
    backend.verify("What must employees use for remote access sessions?", evidence)
    assert "…" not in compose_answer("q", evidence).final_answer


def test_inventory_without_a_question_quotes_each_requirement_of_a_long_sentence():
    spans = extract_from_text(LONG, 0, None, 10, 40)
    quotes = [LONG[s:e] for s, e, _ in spans]
    assert len(quotes) == 2
    assert any("shall notify" in q for q in quotes) and any("shall keep" in q for q in quotes)
    assert all(10 <= len(q.split()) <= 40 for q in quotes)


def test_inventory_mode_through_the_backend(backend):
    ctx, got = extract(backend, [LONG, "Records must be kept in a locked cabinet in the records office."],
                       question=None)
    assert len(got) == 3
    assert all(ctx.text[c.start:c.end] == c.exact_quote for c in got)


def ev(rid: str, quote: str, start: int, doc: str = "d" * 64) -> Evidence:
    span = Span(document_id=doc, page=1, pages=[1], start=start, end=start + len(quote), text=quote, text_sha256="x")
    return Evidence(requirement_id=rid, document_id=doc, exact_quote=quote, chunk_id="c1", span=span)


def test_compose_cites_every_statement_and_keeps_document_order():
    verified = [ev("REQ-S002", "Remote sessions shall be terminated after thirty minutes of inactivity.", 500),
                ev("REQ-S001", "Employees must use the approved virtual private network for remote access.", 100)]
    draft = compose_from_quotes(verified)
    sentences = split_sentences(draft.final_answer)
    assert sentences == [
        "Employees must use the approved virtual private network for remote access [REQ-S001].",
        "Remote sessions shall be terminated after thirty minutes of inactivity [REQ-S002].",
    ]
    assert draft.unused_requirements == []
    assert {r.requirement_id for r in draft.requirement_references if r.used_in_answer} == {"REQ-S001", "REQ-S002"}


def test_conflicting_requirements_are_presented_together_with_both_ids():
    verified = [ev("REQ-P001", "Contractors must store customer records on company laptops at all times.", 10),
                ev("REQ-S001", "Contractors must not store customer records on company laptops.", 900, doc="e" * 64),
                ev("REQ-P002", "Badges shall be worn visibly by every visitor inside the building.", 300)]
    draft = compose_from_quotes(verified)
    sentences = split_sentences(draft.final_answer)
    both = [s for s in sentences if set(cited_ids(s)) == {"REQ-P001", "REQ-S001"}]
    assert len(both) == 1 and "by contrast" in both[0]
    assert len(sentences) == 2


def test_near_identical_quotes_become_one_statement_citing_both():
    q = "3.1.12 Monitor and control remote access sessions."
    draft = compose_from_quotes([ev("REQ-S001", q, 10), ev("REQ-S007", q.replace("3.1.12 ", "3.1.12  "), 5000)])
    assert draft.final_answer == "3.1.12 Monitor and control remote access sessions [REQ-S001, REQ-S007]."


def test_speculative_quotes_are_left_out_and_listed_unused_beyond_the_statement_limit():
    verified = [ev(f"REQ-S{i:03d}", f"Operators of category {i} systems must file report number {i} every quarter.",
                   i * 100) for i in range(1, MAX_STATEMENTS + 3)]
    verified.insert(0, ev("REQ-P001", "Agencies will likely be required to publish a plan.", 5))
    draft = compose_from_quotes(verified)
    assert not speculative_terms(draft.final_answer)
    assert "REQ-P001" in draft.unused_requirements
    assert len(cited_ids(draft.final_answer)) == MAX_STATEMENTS
    assert set(draft.unused_requirements) == {e.requirement_id for e in verified} - set(cited_ids(draft.final_answer))


def test_compose_drops_ids_that_review_feedback_named(backend):
    verified = [ev("REQ-S001", "Employees must use the approved virtual private network for remote access.", 100),
                ev("REQ-S002", "Remote sessions shall be terminated after thirty minutes of inactivity.", 500)]
    draft = compose_answer("q", verified, ['unsupported: [REQ-S002] "Remote sessions…" Unsupported: 1/5 terms.'])
    assert cited_ids(draft.final_answer) == ["REQ-S001"]
    assert draft.unused_requirements == ["REQ-S002"]


def test_verify_uses_the_judge_relevant_quotes_pass_unrelated_ones_are_rejected(backend):
    verified = [ev("REQ-S001", "Employees must use the approved virtual private network for remote access sessions.", 0),
                ev("REQ-S002", "Paper records shall be shredded when they are no longer needed.", 200)]
    out = backend.verify("What must employees use for remote access sessions?", verified)
    assert [v.requirement_id for v in out] == ["REQ-S001", "REQ-S002"]
    assert out[0].verified and out[0].rejection_reason is None and 0 < out[0].score <= 1
    assert not out[1].verified and out[1].rejection_reason == "does_not_address_question"
    assert all(v.verification_rationale for v in out)


def test_verify_follows_the_judgment_settings_thresholds_and_gates(tmp_path):
    from workbench.config import JudgmentSettings

    q = "What must employees use for remote access sessions?"
    plain = ev("REQ-S001", "Employees must use the approved virtual private network for remote access sessions.", 0)
    hedged = ev("REQ-S002", "Employees should typically use the approved virtual private network for remote "
                            "access sessions.", 200)
    [a, b] = RulesBackend(Settings(data_dir=tmp_path)).verify(q, [plain, hedged])
    assert a.verified and not b.verified and b.rejection_reason == "requires_inference"
    strict = RulesBackend(Settings(data_dir=tmp_path, judgment=JudgmentSettings(relevant=min(1.0, a.score + 0.01))))
    assert strict.verify(q, [plain])[0].rejection_reason == "does_not_address_question"
    no_hedge = RulesBackend(Settings(data_dir=tmp_path, judgment=JudgmentSettings(gates=["relevance", "fragment"])))
    assert no_hedge.verify(q, [hedged])[0].verified  # a gate the settings leave out does not run


def test_support_judges_each_sentence_against_the_evidence_it_cites(backend):
    e = ev("REQ-S001", "Employees must use the approved virtual private network for remote access sessions.", 0)
    out = backend.support(["Employees must use the approved virtual private network [REQ-S001].",
                           "Managers approve new laptops on Fridays [REQ-S001].",
                           "Employees must use the approved virtual private network."], [e])
    assert [s.supported for s in out] == [True, False, False]
    assert out[2].reason == "cites no verified evidence"


def test_claim_support_judges_one_claim_against_the_spans_given(backend):
    span = "Employees must use the approved virtual private network for remote access sessions."
    ok, score, reason = backend.claim_support("Employees must use the approved virtual private network.", [span])
    assert ok and 0 < score <= 1 and reason
    assert not backend.claim_support("Employees must not use the approved virtual private network.", [span])[0]
    assert backend.claim_support("Anything.", [])[0] is False


def test_nist_800_171_remote_access_question_finds_requirement_3_1_12(corpus, tmp_path):
    from tests.pipeline.helpers import PagesRetriever
    from workbench.pdf import open_pdf
    from workbench.pipeline import MemoryIds, run_question

    settings = Settings(data_dir=tmp_path)
    doc = open_pdf(corpus / "pdfs/regulatory/NIST.SP.800-171r2.pdf")
    run = run_question("What must organizations do to control remote access sessions?", [doc],
                       retriever=PagesRetriever(), backend=RulesBackend(settings), ids=MemoryIds(), settings=settings)
    hits = [e for e in run.evidence if re.search(r"3\.1\.12\s+Monitor and control remote access sessions", e.exact_quote)]
    assert hits
    assert any(run.verification_for(e.requirement_id).verified for e in hits)
    assert any(e.requirement_id in cited_ids(run.answer.final_answer) for e in hits)
    assert all(doc.text[e.span.start:e.span.end] == e.exact_quote for e in run.evidence)


def test_a_quote_that_reads_as_two_sentences_is_not_composed_but_listed_unused():
    verified = [ev("REQ-S001", "Employees must use the approved network. Discussion Access is logged daily.", 10),
                ev("REQ-S002", "Remote sessions shall be terminated after thirty minutes of inactivity.", 500)]
    draft = compose_from_quotes(verified)
    assert cited_ids(draft.final_answer) == ["REQ-S002"] and draft.unused_requirements == ["REQ-S001"]


def test_list_bullets_are_not_part_of_the_quote():
    t = "+ The organization shall issue PIV credentials only through systems whose reliability has been established."
    (s, e, conf), = extract_from_text(t, 7, None, 10, 40)
    assert t[s - 7:e - 7] == t[2:] and conf == "high"
    t = "c) The License Rights are exclusive to the licensee and may not be assigned without written consent."
    (s, e, _), = extract_from_text(t, 0, None, 10, 40)
    assert t[s:e] == t[3:]


def test_footnote_markers_are_dropped_from_statements_and_low_confidence_quotes_wait():
    clear = ev("REQ-S001", "3.1.19 Encrypt CUI on mobile devices and mobile computing platforms.23", 10)
    weak = ev("REQ-S002", "Guidance includes implementation of mandatory protective software on devices.", 90)
    weak.extraction_confidence = "low"
    draft = compose_from_quotes([weak, clear])
    assert draft.final_answer == "3.1.19 Encrypt CUI on mobile devices and mobile computing platforms [REQ-S001]."
    assert draft.unused_requirements == ["REQ-S002"]
    assert cited_ids(compose_from_quotes([weak]).final_answer) == ["REQ-S002"]  # better a weak quote than none


def test_footnote_calls_after_the_full_stop_are_not_part_of_the_quote_but_section_numbers_are(backend):
    ctx, cands = extract(backend, [
        "3.5.3 Use multifactor authentication for local and network access to privileged accounts.24 25",
        "Each contractor shall retain the records required by Section 3.2",
    ], question="What is required for multifactor authentication and records?")
    quotes = sorted(ctx.text[c.start:c.end] for c in cands)
    assert quotes == ["3.5.3 Use multifactor authentication for local and network access to privileged accounts.",
                      "Each contractor shall retain the records required by Section 3.2"]


def test_the_same_requirement_with_and_without_footnote_calls_is_one_statement():
    q = "3.5.3 Use multifactor authentication for local and network access to privileged accounts."
    draft = compose_from_quotes([ev("REQ-P001", q + "24 25", 10), ev("REQ-P010", q, 9000)])
    assert draft.final_answer == ("3.5.3 Use multifactor authentication for local and network access to privileged "
                                  "accounts [REQ-P001, REQ-P010].")


def test_each_part_of_a_question_keeps_its_own_best_quotes():
    """"Which law … and where must disputes be resolved?": the law clause scores best on the whole
    question, and the arbitration clause, far below it, is the only answer to the second part."""
    q = "Which state's law governs this agreement, and where must disputes be resolved?"
    law = ev("REQ-C001", "This Agreement shall be governed by and construed in accordance with the laws of the "
                         "State of Connecticut.", 100)
    forum = ev("REQ-C002", "Any dispute or difference between the parties hereto arising out of or relating to "
                           "this Agreement shall be settled by arbitration in Hartford, Connecticut.", 900)
    scores = engine.SCORES("relevance", q, [law.exact_quote, forum.exact_quote], [law.document_id] * 2)
    assert scores[0] - scores[1] > Settings().judgment.answer_margin  # one margin over the whole drops it
    cited = cited_ids(compose_answer(q, [law, forum]).final_answer)
    assert {"REQ-C001", "REQ-C002"} <= set(cited)
    # a question asking one thing keeps the margin over the whole
    assert cited_ids(compose_answer("Which state's law governs this agreement?", [law, forum]).final_answer) == ["REQ-C001"]
