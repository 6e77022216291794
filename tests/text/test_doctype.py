"""Which kind of document the judge weighs a span as: the reviewer's choice, else the guess from
the document's own words (the contract fit of the judge applies to contracts only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.text.doctype import infer_source_type, judged_as

EUROMEDIA = "EuromediaHoldingsCorp_20070215_10SB12G_EX-10.B(01)_525118_EX-10.B(01)_Content License Agreement.txt"


@pytest.fixture(scope="module")
def license_text():
    from tests.conftest import CORPUS

    path = Path(CORPUS) / "cuad-train" / "txt" / EUROMEDIA
    if not path.is_file():
        pytest.skip(f"shared corpus not found at {path}")
    return path.read_text(errors="replace")


def test_a_real_license_agreement_reads_as_a_contract(license_text):
    assert infer_source_type(license_text) == "contract"


def test_a_contract_nobody_typed_is_judged_as_a_contract(license_text):
    assert judged_as("other", "default", license_text) == "contract"


def test_the_reviewers_choice_wins_over_the_words(license_text):
    assert judged_as("policy", "user", license_text) == "policy"
    assert judged_as("other", "user", license_text) == "other"  # chosen, not defaulted


def test_a_security_requirement_text_is_not_judged_as_a_contract():
    text = ("Special Publication 800-171. Protecting controlled unclassified information. Security "
            "requirements: organizations shall limit system access to authorized users. The guidelines "
            "and recommendations apply to nonfederal systems. Organizations must monitor remote access.") * 3
    assert judged_as("other", "default", text) != "contract"
