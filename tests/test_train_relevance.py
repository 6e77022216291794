"""The relevance model's training tools (train/train_rel.py, train/calibrate_rel.py): every
category question is asked in all the project's wordings of it, and the calibration reads 0.5 as
an even call whatever the share of answering rows."""

from __future__ import annotations

import numpy as np
import pytest

from train.calibrate_rel import auc, logistic


def test_every_category_question_has_its_paraphrases_bank_wordings_and_cuads_description(corpus):
    from train.build_pairs import QUESTIONS, wordings

    bank = wordings()
    assert set(bank) == set(QUESTIONS)
    law = bank["Governing Law"]
    assert set(QUESTIONS["Governing Law"]) <= set(law) and len(law) >= 6 and len(set(law)) == len(law)
    assert any("state/country" in q for q in law)  # CUAD's own description of the category


@pytest.mark.parametrize("share", [0.5, 0.15, 0.05])
def test_the_calibration_weighs_both_classes_equally_whatever_their_share(share):
    """Scores drawn N(+1, 1) for answers and N(-1, 1) for the rest: the even call is at 0 for any
    share of answers (fitted at the rows' own rate, the boundary moves towards the answers as
    they get rarer)."""
    rng = np.random.default_rng(7)
    n = 20_000
    y = (rng.random(n) < share).astype(float)
    z = rng.normal(np.where(y == 1, 1.0, -1.0), 1.0)
    w = logistic(z[:, None], y)
    assert abs(-w[1] / w[0]) < 0.05, w  # the 0.5 point
    assert 1.7 < w[0] < 2.3  # the slope of the log-odds of two unit normals 2 apart


@pytest.mark.parametrize(("score", "label", "expected"), [
    ([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1], 0.75),
    ([0.9, 0.8, 0.1], [1, 1, 0], 1.0),
    ([0.1, 0.9], [1, 0], 0.0),
])
def test_auc_is_the_share_of_answer_and_non_answer_pairs_ranked_right(score, label, expected):
    assert auc(np.array(score), np.array(label)) == pytest.approx(expected)
