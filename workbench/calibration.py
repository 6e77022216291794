"""The verifier learns from reviewers: a decision threshold on Verification.score refitted on
this workspace's human labels, kept only when it agrees with the humans better on labels it was
not fitted to.

Why a threshold and not a richer model: a workspace has tens to hundreds of labels, the score is
the verifier's own belief, and one number is what a reviewer can read and revert. Items whose
rejection is structural (the quote was not found, the hash no longer matches, the backend
failed) are never re-decided: no score makes a missing quote evidence.

Agreement is measured by grouped k-fold cross-validation (a run's items stay together, so the
items of one question never sit on both sides): for each fold the threshold is fitted on the
other folds and scored on this one; "before" is the verifier's own decisions on the same items.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from workbench.models import Verification, utcnow

STRUCTURAL = frozenset({"quote_not_found", "hash_mismatch", "backend_error"})
MIN_LABELS = 20  # fewer labels: report, never apply
MIN_PER_CLASS = 5
MIN_GAIN = 0.02  # kappa points the calibration must win by, cross-validated


class Calibration(BaseModel):
    """One fit and what it was measured to do. `applied`: in force for new runs."""

    id: str
    # what it calibrates: "verify", the question verifier (evidence items of runs), or "claims",
    # the claim checker of `workbench verify` and Check a draft (checked drafts' sentence labels)
    target: Literal["verify", "claims"] = "verify"
    threshold: float | None = None  # verified when score >= threshold (None: nothing fitted)
    fitted_at: datetime = Field(default_factory=utcnow)
    labels: int = 0  # human-labelled items used
    positives: int = 0
    folds: int = 0
    kappa_before: float | None = None  # the verifier's decisions vs humans, on the held-out folds
    kappa_after: float | None = None  # the refitted thresholds' decisions on the same held-out items
    balanced_accuracy_before: float | None = None
    balanced_accuracy_after: float | None = None
    applied: bool = False
    reason: str = ""  # why it was or was not applied

    def decide(self, v: Verification) -> Verification:
        """The verdict under this calibration (structural rejections unchanged)."""
        if self.threshold is None or v.rejection_reason in STRUCTURAL:
            return v
        ok = v.score >= self.threshold
        if ok == v.verified:
            return v
        note = (f" Calibrated on reviewers' labels ({self.id}): score {v.score:.2f} "
                f"{'≥' if ok else '<'} threshold {self.threshold:.2f}.")
        return v.model_copy(update={"verified": ok, "rejection_reason": None if ok else "does_not_address_question",
                                    "verification_rationale": (v.verification_rationale + note).strip()})


def cohen_kappa(a: Sequence[bool], b: Sequence[bool]) -> float | None:
    """Cohen's kappa of two decision lists (the store's metrics formula, one copy)."""
    from workbench.store.metrics import cohen_kappa as kappa

    return kappa(list(zip(a, b, strict=True)))


def balanced_accuracy(truth: Sequence[bool], pred: Sequence[bool]) -> float | None:
    pos = [p for t, p in zip(truth, pred, strict=True) if t]
    neg = [not p for t, p in zip(truth, pred, strict=True) if not t]
    if not pos or not neg:
        return None
    return round((sum(pos) / len(pos) + sum(neg) / len(neg)) / 2, 4)


def fit_threshold(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """The score threshold with the best balanced accuracy on these labels (ties: nearest 0.5)."""
    cands = sorted(set(scores))
    cuts = [cands[0] - 1e-6] + [(x + y) / 2 for x, y in zip(cands, cands[1:], strict=False)] + [cands[-1] + 1e-6]
    best: tuple[float, float] | None = None
    for t in cuts:
        ba = balanced_accuracy(labels, [s >= t for s in scores]) or 0.0
        key = (ba, -abs(t - 0.5))
        if best is None or key > (best[0], -abs(best[1] - 0.5)):
            best = (ba, t)
    assert best is not None
    return round(best[1], 4)


def cross_validate(scores: Sequence[float], verifier: Sequence[bool], labels: Sequence[bool],
                   groups: Sequence[str], k: int = 5) -> tuple[list[bool], list[bool], list[bool], int]:
    """Held-out decisions, pooled over grouped folds: (truth, verifier's, calibrated, folds)."""
    uniq = list(dict.fromkeys(groups))
    k = max(2, min(k, len(uniq)))
    fold_of = {g: i % k for i, g in enumerate(uniq)}
    truth: list[bool] = []
    before: list[bool] = []
    after: list[bool] = []
    used = 0
    for f in range(k):
        train = [i for i, g in enumerate(groups) if fold_of[g] != f]
        test = [i for i, g in enumerate(groups) if fold_of[g] == f]
        if not test or len({labels[i] for i in train}) < 2:
            continue
        t = fit_threshold([scores[i] for i in train], [labels[i] for i in train])
        used += 1
        for i in test:
            truth.append(labels[i])
            before.append(verifier[i])
            after.append(scores[i] >= t)
    return truth, before, after, used


def calibrate(scores: Sequence[float], verifier: Sequence[bool], labels: Sequence[bool], groups: Sequence[str],
              *, cal_id: str, k: int = 5, target: Literal["verify", "claims"] = "verify") -> Calibration:
    """Fit on every label, measure by cross-validation, decide whether to apply."""
    n, pos = len(labels), sum(labels)
    cal = Calibration(id=cal_id, labels=n, positives=pos, target=target)
    if n < MIN_LABELS or pos < MIN_PER_CLASS or n - pos < MIN_PER_CLASS:
        cal.reason = (f"too few labels to calibrate: {n} labelled items ({pos} supported, {n - pos} unsupported); "
                      f"need {MIN_LABELS}+ with {MIN_PER_CLASS}+ of each")
        return cal
    truth, before, after, folds = cross_validate(scores, verifier, labels, groups, k)
    cal.folds = folds
    cal.kappa_before, cal.kappa_after = cohen_kappa(truth, before), cohen_kappa(truth, after)
    cal.balanced_accuracy_before = balanced_accuracy(truth, before)
    cal.balanced_accuracy_after = balanced_accuracy(truth, after)
    cal.threshold = fit_threshold(scores, labels)
    kb = cal.kappa_before if cal.kappa_before is not None else -math.inf
    ka = cal.kappa_after if cal.kappa_after is not None else -math.inf
    cal.applied = ka >= kb + MIN_GAIN
    cal.reason = (f"cross-validated kappa {_f(cal.kappa_before)} -> {_f(cal.kappa_after)} over {folds} folds: "
                  + ("applied to new runs" if cal.applied else f"not applied (needs a gain of {MIN_GAIN} or more)"))
    return cal


def _f(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


class CalibratedBackend:
    """A backend whose verify() verdicts pass through a calibration; everything else is the
    backend's own (compose, support, usage, name)."""

    def __init__(self, backend, calibration: Calibration):
        self._backend = backend
        self.calibration = calibration

    def __getattr__(self, name: str):
        return getattr(self._backend, name)

    def verify(self, question, evidence, *args, **kwargs):
        return [self.calibration.decide(v) for v in self._backend.verify(question, evidence, *args, **kwargs)]
