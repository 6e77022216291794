"""Grounding confidence: seed 000's counts, lowered by seed 004's sentence-support ratio and by
how well the cited evidence answers the question (its verifier score)."""

from __future__ import annotations

from workbench.models import ANSWERS, ANSWERS_WELL, GroundingConfidence

_ORDER: tuple[GroundingConfidence, ...] = ("insufficient", "low", "medium", "high")


def by_count(n_verified: int) -> GroundingConfidence:
    """Seed 000: 5+ verified → high, 2–4 → medium, 1 → low, 0 → insufficient."""
    if n_verified >= 5:
        return "high"
    if n_verified >= 2:
        return "medium"
    if n_verified == 1:
        return "low"
    return "insufficient"


__all__ = ["ANSWERS", "ANSWERS_WELL", "by_count", "grounding_confidence"]  # ANSWERS*: see models.support_badge


def grounding_confidence(n_verified: int, support_ratio: float, answers: float | None = None) -> GroundingConfidence:
    """By count, then capped by the share of answer sentences that are supported (seed 004's
    badge thresholds): below 0.75 at most medium, below 0.40 at most low; and, given `answers`
    (Answer.answers_question: P(the best cited quote answers the question)), below
    ANSWERS_WELL at most medium and below ANSWERS at most low, so citing is not answering."""
    level = by_count(n_verified)
    if level == "insufficient":
        return level
    cap: GroundingConfidence = "high"
    if support_ratio < 0.40 or (answers is not None and answers < ANSWERS):
        cap = "low"
    elif support_ratio < 0.75 or (answers is not None and answers < ANSWERS_WELL):
        cap = "medium"
    return min(level, cap, key=_ORDER.index)
