"""Word families Porter leaves apart: a question's noun is found in the clause's verb ("What
warranties …?" in "Supplier represents and warrants …"), and short or unrelated stems stay apart."""

from __future__ import annotations

import pytest

from workbench.judgment.scores import coverage
from workbench.text.terms import content_terms, same_family, stem

FAMILIES = [  # (word, word, one family)
    ("warranties", "warrants", True),
    ("warranty", "warranted", True),
    ("licensee", "license", True),
    ("contractor", "contract", True),
    ("indemnification", "indemnify", True),
    ("assignment", "assignee", True),
    ("terms", "terminate", False),  # "term" is too short to begin a family
    ("party", "partner", False),
    ("confidential", "confirm", False),
    ("notice", "notification", False),  # left to MiniLM's similarity, not to spelling
    ("compete", "competitor", False),  # "compet" + "itor": more than a suffix's letters apart
]


@pytest.mark.parametrize(("a", "b", "same"), FAMILIES)
def test_same_family(a, b, same):
    assert same_family(stem(a), stem(b)) is same
    assert same_family(stem(b), stem(a)) is same


def test_a_question_noun_is_covered_by_the_clause_verb_of_its_family():
    question = set(content_terms("What warranties does the supplier give?"))
    clause = set(content_terms("Supplier represents and warrants that the Ingredients comply with the Specifications."))
    unrelated = set(content_terms("Supplier shall maintain insurance with a reputable insurer."))
    assert coverage(question, clause) == pytest.approx(2 / 3)  # warranti and supplier; not give
    assert coverage(question, unrelated) == pytest.approx(1 / 3)  # supplier only
