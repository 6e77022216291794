"""A question is answered part by part when it asks several things (issue 39): the parts are the
facts it asks for — a new question after "and" —, never a split on every "and"."""

from __future__ import annotations

import pytest

from workbench.text.question_parts import question_parts


@pytest.mark.parametrize(("question", "parts"), [
    ("What law governs these agreements and where must disputes be resolved?",
     ["What law governs these agreements", "where must disputes be resolved"]),
    ("Who are the parties and when was the agreement signed?", ["Who are the parties", "when was the agreement signed"]),
    ("What is the notice period to terminate renewal, and how long is each renewal term?",
     ["What is the notice period to terminate renewal", "how long is each renewal term"]),
    ("Is there a non-compete, and does the agreement grant exclusivity?",
     ["Is there a non-compete", "does the agreement grant exclusivity"]),
    ("Which state law applies and is there an arbitration clause?",
     ["Which state law applies", "is there an arbitration clause"]),
    ("What law governs? Where are disputes resolved?", ["What law governs", "Where are disputes resolved"]),
    ("Can either party assign the agreement; what notice is required?",
     ["Can either party assign the agreement", "what notice is required"]),
])
def test_a_question_asking_several_facts_is_read_as_its_parts(question, parts):
    assert question_parts(question) == parts


@pytest.mark.parametrize("question", [
    "What is the company's revenue in 2019?",
    "What are the term and the renewal term?",  # one fact asked of two things
    "What happens if a party breaches and does not cure?",  # the verb phrase goes on
    "How and when can either party terminate?",  # a part of one word is none
    "What must the supplier deliver and when?",
    "Does the licensee pay royalties and, if so, how much?",  # "how much" is two words: no part alone
    "Can the franchisor terminate the agreement?",
    "",
])
def test_a_question_asking_one_thing_stays_whole(question):
    assert question_parts(question) == [" ".join(question.split())]


@pytest.mark.parametrize(("question", "parts"), [
    # a preposition before the second wh-word still opens a part
    ("How long does the initial term run, and on what date does it come to an end?",
     ["How long does the initial term run", "on what date does it come to an end"]),
    # a fronted clause is no part: it belongs to the question it fronts
    ("Once the first term is over, does the contract carry on for further periods, and how long is each?",
     ["Once the first term is over, does the contract carry on for further periods", "how long is each"]),
    ("The governing law, and where must disputes be resolved?",  # a noun phrase asks a thing too
     ["The governing law", "where must disputes be resolved"]),
])
def test_parts_follow_the_questions_asked_not_the_commas(question, parts):
    assert question_parts(question) == parts


@pytest.mark.parametrize("question", [
    "If Licensee wanted out of the license for convenience, how many days' written notice would it owe Licensor?",
    "If the contract renews, how long is each renewal?",
])
def test_a_fronted_condition_stays_with_its_question(question):
    assert question_parts(question) == [question]
