"""The clause-topic model: what kind of clause a span is, which kinds a question asks about, and
no kind at all for a question unlike any contract clause."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from workbench.errors import ConfigError
from workbench.index.embed import embed_texts
from workbench.judgment.topics import load_topics

CAP = ("Further, Chase's aggregate liability arising under or with respect to this Agreement or the "
       "Affiliate Program shall in no event exceed the total Commissions paid or payable by Chase to "
       "Affiliate under this Agreement.")
LAW = "This Agreement shall be governed by and construed under the laws of the Commonwealth of Virginia."


def _vec(text: str) -> np.ndarray:
    return embed_texts([text])[0]


def test_a_question_asks_about_the_kind_of_clause_it_names_in_any_words():
    topics = load_topics()
    for question, kind in [("Under which jurisdiction's laws is this contract interpreted?", "Governing Law"),
                           ("Is there a limit on how much a party can be liable for?", "Cap On Liability"),
                           ("Does a party have to carry insurance coverage?", "Insurance")]:
        [(top, weight), *_] = topics.top_kinds(_vec(question), question)
        assert top == kind and weight > 0.5, question


@pytest.mark.parametrize(("question", "kind"), [
    ("What is the term of the agreement?", "Expiration Date"),
    ("Is there a most favored nation clause?", "Most Favored Nation"),
    ("Can the company hire the contractor's staff?", "No-Solicit Of Employees"),
])
def test_a_question_is_read_by_its_words_not_only_its_template(question, kind):
    """MiniLM puts "What is the term of the agreement?" next to "What is the governing law of the
    agreement?" (same template); the word "term" is what an expiration clause's bank and head read."""
    topics = load_topics()
    [(top, weight), *_] = topics.top_kinds(_vec(question), question)
    assert top == kind and weight > 0.5


@pytest.mark.parametrize(("question", "kind"), [
    ("Does the deal stay in place for five years?", "Expiration Date"),
    ("Is a party allowed to hire away the other's engineers?", "No-Solicit Of Employees"),
    ("Does the agreement roll over automatically each year?", "Renewal Term"),
    ("Is a party forbidden from setting up a rival business?", "Non-Compete"),
    ("Can the contract be terminated at will?", "Termination For Convenience"),
])
def test_everyday_words_find_the_kind_a_lawyer_would_name(question, kind):
    """The bank asks each kind in readers' words as well as lawyers' (fit_topics.EXTRA_BANK): with
    two or three questions a kind, "stay in place for five years" went to renewal and "hire away"
    asked faintly (0.26) about no-solicit."""
    topics = load_topics()
    [(top, weight), *_] = topics.top_kinds(_vec(question), question)
    assert top == kind and weight > 0.5


@pytest.mark.parametrize("question", [
    "What happens if a party breaches?",
    "Who pays the shipping costs?",
])
def test_a_contract_question_about_no_kind_the_heads_know_asks_for_none(question):
    """"breach" is in the uncapped-liability bank's wording; the question is about remedies, which
    no head knows: closest to OTHER_QUESTIONS, it lifts no kind's clauses over the words."""
    topics = load_topics()
    assert topics.asked(_vec(question), question).sum() < 0.2


@pytest.mark.parametrize("question", [
    "What is the melting point of tungsten?",
    "What must organizations do to control remote access sessions?",
    "What does WHO recommend for treating hepatitis C in children?",
])
def test_a_question_about_no_kind_of_clause_gets_no_topic(question):
    """Regulations, guidelines and trivia score on words and cosine alone, as before: a word
    shared with a kind's name ("control") asks for it only faintly."""
    topics = load_topics()
    assert topics.asked(_vec(question), question).sum() < 0.05
    assert (topics.score(_vec(question), question, embed_texts([LAW, CAP]), [LAW, CAP]) < 0.05).all()


def test_a_cap_on_liability_is_that_kind_of_clause_and_a_governing_law_clause_is_not():
    topics = load_topics()
    question = "Is either party's liability capped or limited to a maximum amount?"
    cap, law = topics.score(_vec(question), question, embed_texts([CAP, LAW]), [CAP, LAW])
    assert cap > 0.5
    assert law < 0.2


def test_a_head_reads_the_words_lawyers_use_not_only_the_overall_meaning():
    """Two renewal-looking sentences with the same subject: the one that renews automatically is a
    renewal term; the one that only ends the term is not, though MiniLM finds them alike."""
    topics = load_topics()
    renews = ("This Agreement shall automatically renew for successive one (1) year periods unless either "
              "party gives notice of non-renewal at least ninety (90) days before the end of the term.")
    ends = "This Agreement shall commence on the Effective Date and shall expire on December 31, 2015."
    renewal = topics.categories.index("Renewal Term")
    vectors = embed_texts([renews, ends])
    with_words = topics.kinds(vectors, [renews, ends])[:, renewal]
    assert with_words[0] > 0.5 > with_words[1]
    without_words = topics.kinds(vectors, ["", ""])[:, renewal]
    assert with_words[0] - with_words[1] > without_words[0] - without_words[1]


def test_relevance_reads_the_topic_only_in_contracts_and_where_the_question_asks_for_one():
    """The cap shares one word with the question ("liability"): its kind lifts it; a clause of
    another kind is pushed down. A question about no kind, or a span of a document that is not a
    contract, scores exactly as before (hand-set words and cosine)."""
    from workbench.backends.engine import LexicalJudge
    from workbench.text.weights import TermWeights

    judge = LexicalJudge()
    contract = TermWeights([CAP, LAW], source_type="contract")
    policy = TermWeights([CAP, LAW], source_type="policy")

    def words_only(q, spans, w):
        f = judge.features(q, spans, [w] * len(spans), names=("coverage", "cosine"))
        return 1 / (1 + np.exp(-(f @ [3.0, 3.0] - 2.6)))

    q = "Is either party's liability capped or limited to a maximum amount?"
    before = words_only(q, [CAP, LAW], contract)
    cap, law = judge.relevance(q, [CAP, LAW], [contract, contract])
    assert cap > before[0] + 0.1
    assert law < before[1]
    assert np.allclose(judge.relevance(q, [CAP, LAW], [policy, policy]), words_only(q, [CAP, LAW], policy), atol=1e-5)
    assert np.allclose(judge.relevance(q, [CAP, LAW]), words_only(q, [CAP, LAW], None), atol=1e-5)  # free text
    q = "What must organizations do to control remote access sessions?"
    spans = ["Monitor and control remote access sessions.", LAW]
    assert np.allclose(judge.relevance(q, spans, [contract] * 2), words_only(q, spans, contract), atol=0.01)


def test_a_policy_about_audit_records_is_not_read_as_an_audit_rights_clause():
    """"audit records" makes the question look like one about audit rights; in a policy it is not,
    and the policy's weekly-review sentence stays relevant."""
    from workbench.backends.engine import LexicalJudge
    from workbench.text.weights import TermWeights

    sentence = ("The organization shall review and analyze system audit records weekly for indications of "
                "inappropriate or unusual activity.")
    policy = TermWeights([sentence, "Accounts are reviewed every quarter."], source_type="policy")
    [p] = LexicalJudge().relevance("What must the organization do about access and audit records?", [sentence], [policy])
    assert p >= 0.5


def test_the_reading_of_a_renewal_question_against_a_term_clause_and_a_renewal_clause():
    """What gates.other_kind reads: the question asks about renewal; a clause that only fixes the
    term is an expiration clause, not a renewal one; a clause that renews is one (quotes from cuad/
    contracts' term sections)."""
    from workbench.backends.engine import LexicalJudge
    from workbench.text.weights import TermWeights

    question = "Once the first term is over, does the contract carry on for further periods, and how long is each?"
    term = "The term of this Agreement shall commence on the Effective Date and continue for six (6) months."
    renews = ("This Agreement shall automatically renew for successive one (1) year periods unless either "
              "party gives notice of non-renewal at least ninety (90) days before the end of the term.")
    judge, contract = LexicalJudge(), TermWeights([term, renews], source_type="contract")
    r = judge.kind_reading(question, term, contract)
    assert r.asked == "Renewal Term" and r.asked_weight >= 0.5
    assert r.p_asked < 0.5 and r.kind == "Expiration Date" and r.p_kind > 0.5
    r = judge.kind_reading(question, renews, contract)
    assert r.p_asked > 0.5
    assert judge.kind_reading(question, term, TermWeights([term], source_type="policy")) is None


def test_a_missing_topic_file_is_a_clear_error(tmp_path: Path):
    with pytest.raises(ConfigError, match="make fit-topics"):
        load_topics.__wrapped__(tmp_path / "topics.npz")
