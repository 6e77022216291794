"""The fitters that rebuild shipped weights (`make fit-lexical`: workbench/judgment/scores.py
LEXICAL_FIT; train/doc_decision.py, which chose the relevance weights) start: both once imported a
module an earlier change deleted, and nothing noticed. Their shared logistic fit and AUC are
checked on data whose answer is known."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from train.fitting import auc, logistic

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("script", [f"train/{n}.py" for n in (  # those torch's training venv alone can run are left out
    "fit_lexical", "doc_decision", "fit_topics", "build_pairs", "build_nli", "calibrate_rel", "calibrate_nli",
    "eval_nli", "stack_nli")])
def test_a_fitter_that_rebuilds_shipped_weights_starts(script):
    done = subprocess.run([sys.executable, script, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_logistic_recovers_the_side_a_feature_decides():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 2))
    y = (X[:, 0] > 0.5).astype(float)  # only the first feature decides, at 0.5
    w, b = logistic(X, y, l2=1e-4)
    assert w[0] > 5 * abs(w[1]) and -b / w[0] == pytest.approx(0.5, abs=0.1)


@pytest.mark.parametrize(("labels", "scores", "expected"), [
    ([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9], 1.0),  # every positive above every negative
    ([1, 1, 0, 0], [0.1, 0.2, 0.8, 0.9], 0.0),
    ([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], 0.75),  # 3 of 4 (positive, negative) pairs in order
])
def test_auc_is_the_share_of_pairs_ranked_right(labels, scores, expected):
    assert auc(np.array(labels), np.array(scores)) == pytest.approx(expected)


def test_the_decision_tools_candidates_are_written_as_json_and_read_back(tmp_path):
    """train/doc_decision.py keeps its candidates as data (JSON), never a pickle to load."""
    from train.doc_decision import load_pairs, save_pairs

    pairs = [dict(doc="a", cat="Governing Law", has_gold=True, X=np.array([[0.5, 0.25], [1.0, 0.0]]),
                  gold=np.array([True, False]), texts=["x", "y"], q="Which law?"),
             dict(doc="b", cat="Audit Rights", has_gold=False, X=np.zeros((0, 2)), gold=np.zeros(0, bool), texts=[])]
    save_pairs(pairs, tmp_path / "dd.json")
    assert (tmp_path / "dd.json").read_text().startswith("[{")
    back = load_pairs(tmp_path / "dd.json")
    assert back[0]["X"].tolist() == [[0.5, 0.25], [1.0, 0.0]] and back[0]["gold"].tolist() == [True, False]
    assert len(back[1]["X"]) == 0 and back[1]["texts"] == []
