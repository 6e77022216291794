"""A document's source type guessed from its own words (a default the user may change)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.text.doctype import infer_source_type

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
