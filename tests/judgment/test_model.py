"""The learned judge (workbench.judgment.model, the committed int8 cross-encoder) on real contract
text it was not trained on: the CUAD reseller agreement in ../shared/corpus/cuad/ (the 31 cuad/
contracts are never trained or calibrated on). What it must do, not what it happens to score."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from workbench.errors import ConfigError
from workbench.judgment import model as M

RESELLER = "BravatekSolutionsInc_20170418_8-K_EX-10.1_10205739_EX-10.1_Reseller Agreement.txt"
VIRGINIA = ("This Agreement shall be governed by and construed under the laws of the Commonwealth of Virginia "
            "without regard to the conflicts of law provisions thereof.")
TERMINATE = "Either Party may terminate this agreement for non-cause with a sixty (60) written notice."
# other sentences of the same contract: on other topics
UNRELATED = [
    "The parties hereto expressly understand and agree that each party is an independent contractor in the "
    "performance of each and every part of this Agreement.",
    "Reseller will obtain pricing quote from Company for each opportunity.",
    "This Agreement may be executed in separate counterparts, each of which so executed and delivered "
    "(including by emailed PDF) shall constitute an original, but all such counterparts shall together "
    "constitute one and the same instrument.",
]


@pytest.fixture(scope="module")
def reseller_text():
    from tests.conftest import CORPUS

    path = Path(CORPUS) / "cuad" / "txt" / RESELLER
    if not path.is_file():
        pytest.skip(f"shared corpus not found at {path}")
    text = " ".join(path.read_text(errors="replace").split())
    for s in (VIRGINIA, TERMINATE, *UNRELATED):
        assert s in text, s  # the sentences are the contract's own words
    return text


@pytest.fixture(scope="module")
def judge():
    return M.ModelJudge()


def test_the_governing_law_clause_answers_the_question_and_other_clauses_do_not(reseller_text, judge):
    p = judge.relevance("What law governs this agreement?", [VIRGINIA, TERMINATE, *UNRELATED])
    assert p.shape == (5,) and np.all((p >= 0) & (p <= 1))
    assert p[0] >= M.SUPPORT_THRESHOLD, p
    assert p[0] > p[1:].max() + 0.1, p
    assert (p[1:] < 0.5).all(), p


def test_the_termination_clause_answers_a_termination_question(reseller_text, judge):
    p = judge.relevance("Can a party terminate the agreement without cause?", [TERMINATE, VIRGINIA, *UNRELATED])
    assert p[0] >= 0.5 and p[0] == p.max(), p


def test_a_supporting_clause_supports_and_an_unrelated_one_does_not(reseller_text, judge):
    p = judge.support("This Agreement is governed by the laws of Virginia.", [VIRGINIA, *UNRELATED])
    assert p[0] >= 0.5 and (p[1:] < 0.5).all(), p


@pytest.mark.parametrize("claim,fact", [
    ("This Agreement is governed by the laws of the State of Delaware.", "Delaware"),
    ("The contract is governed by New York law.", "New York"),
])
def test_a_claim_with_another_jurisdiction_is_rejected(reseller_text, claim, fact):
    [j] = M.judge_support(claim, [VIRGINIA])
    assert not j.supported and j.score < 0.5
    assert fact in j.reason and "Virginia" in j.reason, j.reason


def test_a_claim_with_another_notice_period_is_rejected(reseller_text):
    [j] = M.judge_support("Either party may terminate this agreement without cause on thirty (30) days notice.",
                          [TERMINATE])
    assert not j.supported, j.reason
    [ok] = M.judge_support("Either party may terminate the agreement without cause with sixty days written notice.",
                           [TERMINATE])
    assert ok.supported, ok.reason


def test_the_true_claim_is_supported_with_a_readable_reason(reseller_text):
    [j] = M.judge_support("This Agreement is governed by the laws of the Commonwealth of Virginia.", [VIRGINIA])
    assert j.supported and j.score >= 0.5, j.reason
    assert "model score" in j.reason and "govern " not in j.reason


def test_a_missing_model_file_is_a_clear_error(tmp_path):
    for name in ("tokenizer.json", "calibration.json"):
        shutil.copy(M.MODEL_DIR / name, tmp_path / name)
    with pytest.raises(ConfigError, match="model.int8.onnx"):
        M.Scorer(tmp_path)


def test_the_calibration_is_increasing_and_was_fitted():
    cal = json.loads((M.MODEL_DIR / "calibration.json").read_text())
    for task in ("relevance", "support"):
        a, b = cal["platt"][task]
        assert a > 0 and (a, b) != (1.0, 0.0), (task, a, b)
    assert (M.MODEL_DIR / "MODEL_CARD.md").is_file()
    size = sum(f.stat().st_size for f in M.MODEL_DIR.iterdir())
    assert size <= 30 * 2**20, size
