"""A document's source type guessed from its own words (a default the user may change)."""

from __future__ import annotations

from workbench.text.doctype import infer_source_type

EUROMEDIA = "EuromediaHoldingsCorp_20070215_10SB12G_EX-10.B(01)_525118_EX-10.B(01)_Content License Agreement.txt"


def test_a_real_license_agreement_reads_as_a_contract(corpus):
    text = (corpus / "cuad-train" / "txt" / EUROMEDIA).read_text(errors="replace")
    assert infer_source_type(text) == "contract"


def test_a_few_words_without_a_clear_signal_stay_other():
    assert infer_source_type("Minutes of the meeting held on Tuesday.") == "other"
