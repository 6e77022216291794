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
        [(top, weight), *_] = topics.top_kinds(_vec(question))
        assert top == kind and weight > 0.5, question


@pytest.mark.parametrize("question", [
    "What is the melting point of tungsten?",
    "What must organizations do to control remote access sessions?",
    "What does WHO recommend for treating hepatitis C in children?",
])
def test_a_question_about_no_kind_of_clause_gets_no_topic(question):
    """Regulations, guidelines and trivia score on words and cosine alone, exactly as before."""
    topics = load_topics()
    assert not topics.asked(_vec(question)).any()
    assert not topics.score(_vec(question), embed_texts([LAW, CAP])).any()


def test_a_cap_on_liability_is_that_kind_of_clause_and_a_governing_law_clause_is_not():
    topics = load_topics()
    q = _vec("Is either party's liability capped or limited to a maximum amount?")
    cap, law = topics.score(q, embed_texts([CAP, LAW]))
    assert cap > 0.5
    assert law < 0.2


def test_relevance_reads_the_topic_only_where_the_question_asks_for_one():
    """The cap shares one word with the question ("liability"): its kind lifts it; a clause of
    another kind is pushed down. A question about no kind scores exactly as before."""
    from workbench.backends.engine import LexicalJudge

    judge = LexicalJudge()
    q = "Is either party's liability capped or limited to a maximum amount?"
    f = judge.features(q, [CAP, LAW], names=("coverage", "cosine"))
    words_only = 1 / (1 + np.exp(-(f @ [3.0, 3.0] - 2.6)))
    cap, law = judge.relevance(q, [CAP, LAW])
    assert cap > words_only[0] + 0.1
    assert law < words_only[1]
    # no kind asked: the hand-set words-and-cosine model, unchanged
    q = "What must organizations do to control remote access sessions?"
    spans = ["Monitor and control remote access sessions.", LAW]
    f = judge.features(q, spans, names=("coverage", "cosine"))
    before = 1 / (1 + np.exp(-(f @ [3.0, 3.0] - 2.6)))
    assert np.allclose(judge.relevance(q, spans), before, atol=1e-5)


def test_a_missing_topic_file_is_a_clear_error(tmp_path: Path):
    with pytest.raises(ConfigError, match="make fit-topics"):
        load_topics.__wrapped__(tmp_path / "topics.npz")
