"""Grounding confidence: seed 000's counts, capped by seed 004's support ratio."""

import pytest

from workbench.pipeline.confidence import by_count, grounding_confidence


@pytest.mark.parametrize(("n", "level"), [(0, "insufficient"), (1, "low"), (2, "medium"), (4, "medium"),
                                          (5, "high"), (12, "high")])
def test_levels_follow_seed_000_counts(n, level):
    assert by_count(n) == level
    assert grounding_confidence(n, 1.0) == level


@pytest.mark.parametrize(("n", "ratio", "level"), [
    (5, 0.74, "medium"), (5, 0.75, "high"), (5, 0.39, "low"), (5, 0.40, "medium"),
    (3, 0.5, "medium"), (3, 0.2, "low"), (1, 0.0, "low"), (0, 1.0, "insufficient"),
])
def test_low_sentence_support_caps_the_level(n, ratio, level):
    assert grounding_confidence(n, ratio) == level
