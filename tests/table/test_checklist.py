"""Checklists as text, the built-in contract checklist, and the short answer's normal forms."""

from __future__ import annotations

import pytest

from workbench.errors import WorkbenchError
from workbench.judgment.facts import extract
from workbench.table.checklist import built_in, parse_checklist, question_kind
from workbench.table.short_answer import normalize, normalize_text


def test_a_checklist_line_is_label_colon_question_or_the_question_alone():
    cols = parse_checklist("# notes\nGoverning law: Which law governs?\n\nWhat is the term: in years?\n")
    assert [(c.key, c.question, c.kind) for c in cols] == [
        ("Governing law", "Which law governs?", "jurisdiction"),
        ("What is the term: in years?", "What is the term: in years?", "duration")]
    with pytest.raises(WorkbenchError, match="twice"):
        parse_checklist("Term: What is the term?\nterm: How long?")


def test_the_built_in_contract_checklist_has_the_ten_due_diligence_items():
    keys = [c.key for c in built_in()]
    assert keys == ["Governing law", "Term", "Renewal", "Termination for convenience", "Assignment",
                    "Change of control", "Cap on liability", "Non-compete", "Exclusivity", "Audit rights"]


@pytest.mark.parametrize(("question", "kind"), [
    ("Does this agreement restrict assignment?", "yes_no"),
    ("When was the agreement signed?", "date"),
    ("What notice period is required to terminate renewal?", "duration"),
    ("What is the royalty rate?", "percent"),
    ("How much is the annual fee?", "amount"),
    ("Who are the parties?", "text"),
])
def test_the_kind_of_short_answer_follows_the_question(question, kind):
    assert question_kind(question) == kind


@pytest.mark.parametrize(("quote", "normal"), [
    ("terminate on thirty (30) days' written notice", "30 days"),
    ("for a period of one (1) year", "1 year"),
    ("made this 8th day of May, 2014", "2014-05-08"),
    ("a fee of $1,500,000 payable", "USD 1,500,000"),
])
def test_a_fact_is_shown_as_written_and_normalised_beside_it(quote, normal):
    (fact,) = [f for f in extract(quote) if f.kind != "number"]
    assert fact.text in quote and normalize(fact) == normal


def test_a_reviewers_correction_is_normalised_the_same_way():
    assert normalize_text("sixty (60) days", "duration") == "60 days"
    assert normalize_text("governed by the laws of the State of New York", "jurisdiction") == "New York"
    assert normalize_text("No", "yes_no") == "no" and normalize_text("see schedule", "date") is None
