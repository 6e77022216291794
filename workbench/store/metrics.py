"""Agreement between the verifier and human reviewers, computed from evidence statuses (both
verdicts side by side) — pure functions, so the numbers can be checked by hand in tests."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from workbench.models import EvidenceStatus, ReviewEvent, ReviewMetrics, label_status

CLASSES = ("supported", "unsupported")


def cohen_kappa(pairs: list[tuple[str, str]]) -> float | None:
    """Cohen's κ for two raters over the same items; None when undefined (no items, or both
    raters used one and the same class only, so chance agreement is 1)."""
    n = len(pairs)
    if not n:
        return None
    po = sum(a == b for a, b in pairs) / n
    a_counts, b_counts = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    pe = sum(a_counts[c] * b_counts[c] for c in set(a_counts) | set(b_counts)) / (n * n)
    if pe >= 1.0:
        return None
    return round((po - pe) / (1 - pe), 4)


# Below this many labels κ swings wildly (3 labels gave −0.80): the Dashboard shows the count and
# "too few labels" instead of the number.
KAPPA_MIN_LABELS = 20


def _ratio(a: int, b: int) -> float:
    return round(a / b, 4) if b else 0.0


def compute(statuses: list[EvidenceStatus], *, run_id: str | None = None, runs: int = 1,
            confidences: Iterable[str] = (), events: Iterable[ReviewEvent] = ()) -> ReviewMetrics:
    """Metrics over the given evidence items (one run's, or every run's)."""
    total = len(statuses)
    reviewed = [s for s in statuses if s.human_label is not None]
    # A reviewer-added item was never the verifier's to judge: its label is no disagreement.
    judged = [s for s in reviewed if not s.human_added]
    # the verifier says supported or not: a human "contradicted" is its "unsupported" (not supported)
    pairs = [(s.verifier_verdict, label_status(s.human_label)) for s in judged]
    confusion = {v: {h: 0 for h in CLASSES} for v in CLASSES}
    for v, h in pairs:
        confusion[v][h] += 1
    overrides = sum(v != h for v, h in pairs)
    by_reason: dict[str, dict[str, float]] = {}
    for s in judged:
        v = s.verification
        key = "verified" if s.verifier_verdict == "supported" else ((v.rejection_reason if v else None) or "unverified")
        d = by_reason.setdefault(key, {"reviewed": 0, "overrides": 0, "rate": 0.0})
        d["reviewed"] += 1
        d["overrides"] += label_status(s.human_label) != s.verifier_verdict
    for d in by_reason.values():
        d["rate"] = _ratio(int(d["overrides"]), int(d["reviewed"]))
    reasons = Counter(s.verification.rejection_reason for s in statuses
                      if s.verification and not s.verification.verified and s.verification.rejection_reason)
    hist = [0] * 10
    for s in statuses:
        if s.verification is not None:
            hist[min(int(max(s.verification.score, 0.0) * 10), 9)] += 1
    verified = sum(s.verifier_verdict == "supported" for s in statuses)
    final_sup = sum(s.final_status == "supported" for s in statuses)
    events = list(events)
    return ReviewMetrics(
        run_id=run_id, runs=runs, total=total, reviewed=len(reviewed), review_progress=_ratio(len(reviewed), total),
        verified=verified, pass_rate=_ratio(verified, total), final_supported=final_sup,
        final_pass_rate=_ratio(final_sup, total), rejection_reasons=dict(reasons.most_common()),
        confusion=confusion, agreement=_ratio(len(pairs) - overrides, len(pairs)) if pairs else None,
        cohen_kappa=cohen_kappa(pairs), overrides=overrides,
        override_rate=_ratio(overrides, len(pairs)) if pairs else None, override_by_reason=by_reason,
        grounding_confidence=dict(Counter(confidences)),
        extraction_confidence=dict(Counter(s.evidence.extraction_confidence for s in statuses)),
        score_histogram=hist, review_events=len(events), reviewers=dict(Counter(e.reviewer for e in events)),
        agreement_labels=len(pairs), reviewer_added=sum(s.human_added for s in statuses),
        **_between_reviewers(statuses),
    )


def _between_reviewers(statuses: list[EvidenceStatus]) -> dict:
    """Agreement between reviewers over items two or more of them labelled (the first two
    reviewers' current labels per item), open conflicts, and items labelled per reviewer."""
    pairs = []
    per: Counter[str] = Counter()
    for s in statuses:
        per.update(s.reviewer_labels.keys())
        labels = list(s.reviewer_labels.values())
        if len(labels) >= 2:
            pairs.append((labels[0], labels[1]))
    return {"inter_reviewer_items": len(pairs), "inter_reviewer_kappa": cohen_kappa(pairs),
            "open_conflicts": sum(s.conflict for s in statuses), "labelled_by_reviewer": dict(per)}
