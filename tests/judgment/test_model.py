"""The support model (workbench.judgment.model: the committed int8 cross-encoder) on real text it
was not trained on: CUAD contracts of ../shared/corpus/cuad/ (never trained or calibrated on) and
a ContractNLI dev NDA. What an analyst needs of it: a claim the clause states is supported, one
it contradicts is contradicted — with the clause that says otherwise — and one nobody wrote
about is not stated."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from workbench.errors import ConfigError
from workbench.judgment import model as M

ADIA = "ADIANUTRITION,INC_04_01_2005-EX-10.D2-RESELLER AGREEMENT"
CALIFORNIA = ("This Agreement shall be governed by and construed under the laws of the State of California, "
              "excluding conflict of laws provisions and excluding the 1980 United Nations Convention on "
              "Contracts for the International Sale of Goods.")


@pytest.fixture(scope="module")
def adia_text(corpus: Path) -> str:
    path = corpus / "cuad" / "txt" / f"{ADIA}.txt"
    if not path.is_file():
        pytest.skip(f"shared corpus not found at {path}")
    text = " ".join(path.read_text(errors="replace").split())
    assert CALIFORNIA in text  # the contract's own words
    return text


def test_three_calibrated_probabilities_per_span(adia_text):
    p = M.probabilities("This Agreement is governed by California law.", [CALIFORNIA, "The parties agree as follows."])
    assert p.shape == (2, 3) and np.allclose(p.sum(1), 1.0) and (p >= 0).all()
    assert M.verdict_of(p[0]) == "supported"
    assert M.verdict_of(p[1]) == "not_stated"


def test_another_state_is_contradicted_by_the_governing_law_clause(adia_text):
    [j] = M.judge_support("This Agreement is governed by the laws of the State of New York.", [CALIFORNIA])
    assert j.verdict == "contradicted" and not j.supported
    assert "New York" in j.reason and "California" in j.reason, j.reason
    assert j.probabilities[1] > j.probabilities[0]  # the model reads it too, not only the fact gate


def test_a_number_flip_is_contradicted_and_the_true_number_supported():
    # VitaminC's kind of pair: one changed number flips the label (a CUAD distribution agreement's words)
    span = "All payments to PivX shall be made within thirty (30) days after the receipt by Detto of the PivX's invoice."
    yes, no = M.judge_support("Detto must pay PivX within 30 days of receiving an invoice.", [span])[0], \
        M.judge_support("Detto must pay PivX within 60 days of receiving an invoice.", [span])[0]
    assert yes.verdict == "supported", yes
    assert no.verdict == "contradicted", no


def test_a_claim_about_something_else_is_not_stated(adia_text):
    [j] = M.judge_support("The Reseller must maintain product liability insurance of $1,000,000.", [CALIFORNIA])
    assert j.verdict == "not_stated" and j.score < 0.5


def test_the_judge_reads_the_closest_spans_and_caps_the_rest():
    from workbench.judgment.scores import LexicalJudge

    judge = M.ModelJudge(LexicalJudge(), top_k=1)
    spans = [CALIFORNIA, "The parties agree as follows.", "Notices shall be sent by registered mail."]
    sup = judge.support("This Agreement is governed by California law.", spans)
    assert sup[0] >= 0.5 and (sup[1:] <= M.UNREAD_CAP).all()
    assert judge.contradiction("This Agreement is governed by California law.", spans)[1:].max() == 0.0


def test_support_then_contradiction_of_the_same_pairs_reads_them_once():
    """Verify asks support, then contradiction, of the same claim and spans: the lexical closeness
    and the model run once; other spans are read afresh."""
    from workbench.judgment.scores import LexicalJudge

    class Counting(LexicalJudge):
        calls = 0

        def support(self, claim, spans, weights=None):
            Counting.calls += 1
            return super().support(claim, spans, weights)

    judge = M.ModelJudge(Counting(), top_k=2)
    claim, spans = "This Agreement is governed by California law.", [CALIFORNIA, "Notices go by mail."]
    sup, con = judge.support(claim, spans), judge.contradiction(claim, spans)
    assert Counting.calls == 1
    assert np.allclose(sup, judge.probabilities(claim, spans)[:, 0]) and Counting.calls == 1
    judge.support(claim, spans[:1])
    assert Counting.calls == 2 and con.shape == (2,)


def test_a_missing_model_file_is_a_clear_error(tmp_path):
    for f in M.MODEL_DIR.iterdir():
        if f.name != "model.int8.onnx":
            shutil.copy(f, tmp_path / f.name)
    with pytest.raises(ConfigError, match="model.int8.onnx"):
        M.SupportModel(tmp_path)


def test_the_calibration_was_fitted_on_calib_slices_only():
    cal = json.loads((M.MODEL_DIR / "calibration.json").read_text())
    assert cal["temperature"] > 0 and len(cal["bias"]) == 3
    assert "calib" in cal["fitted_on"]
