"""The verdict on a claim or an answer sentence: the support score of the best spans, then facts
(jurisdiction, number, duration, amount, date) and polarity ("must not use" / "must use") checked
deterministically, with a reason naming the deciding passage as written."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from workbench.judgment.scores import SCORES, SUPPORTED, without_party_names
from workbench.text import content_terms
from workbench.text.terms import stem, surface_forms

CONTRADICTED = 0.5  # P(the span contradicts the claim) from which the support model's reading decides


def facts_check(claim: str, span: str) -> tuple[bool, str]:
    """(facts agree, a readable reason). Facts a claim states (jurisdiction, date, duration,
    amount, number) must be stated alike by the span; without the facts reader, numbers only."""
    try:
        from workbench.judgment.facts import compare
    except ImportError:
        missing = sorted(set(re.findall(r"\d+(?:[.,]\d+)?", claim)) - set(re.findall(r"\d+(?:[.,]\d+)?", span)))
        return (not missing, f"the passage does not state {', '.join(missing)}" if missing else "")
    check = compare(claim, span)
    return check.ok, check.reason


def _fact_check(claim: str, span: str) -> tuple[bool, bool, str]:
    """(facts agree, the span states a different fact of the same kind, a readable reason). A
    claim that negates what the span affirms ("must not use" / "must use"), or the reverse,
    states another fact."""
    flip = polarity_conflict(claim, span)
    if flip:
        return False, True, flip
    try:
        from workbench.judgment.facts import compare
    except ImportError:
        ok, why = facts_check(claim, span)
        return ok, False, why
    check = compare(claim, span)
    return check.ok, bool(check.conflicts), check.reason


_MODAL_VERB = re.compile(r"\b(must|shall|may|will|can|should|would|could|do|does|did|is|are|was|were)"
                         r"(\s+(?:not|never))?\s+([a-z]{3,})\b|\b(cannot)\s+([a-z]{3,})\b|\b(\w+)n't\s+([a-z]{3,})\b", re.I)


def _verb_polarity(text: str) -> dict[str, tuple[bool, str]]:
    """Verbs after a modal or auxiliary, by stem: (negated, the words as written)."""
    out: dict[str, tuple[bool, str]] = {}
    for m in _MODAL_VERB.finditer(text):
        if m.group(1):
            neg, verb = bool(m.group(2)), m.group(3)
        elif m.group(4):
            neg, verb = True, m.group(5)
        else:
            neg, verb = True, m.group(7)
        if verb.lower() in ("not", "never", "be", "been", "have", "also", "only"):
            continue
        out.setdefault(stem(verb.lower()), (neg, " ".join(m.group(0).split())))
    return out


def polarity_conflict(claim: str, span: str) -> str:
    """A readable reason when the claim negates a verb the span affirms (or the reverse) after
    a modal: "Employees must not use …" against "Employees must use …". '' otherwise: only the
    same verb counts, so an unrelated "not" elsewhere never flips a verdict."""
    a, b = _verb_polarity(claim), _verb_polarity(span)
    for st, (neg, words) in a.items():
        if st in b and b[st][0] != neg:
            return f"the claim says '{words}', the passage says '{b[st][1]}'"
    return ""


def _about(claim: str, span: str) -> float:
    """The share of the claim's content words (stems) the span also uses: what it is about."""
    q = set(content_terms(claim))
    return len(q & set(content_terms(span))) / len(q) if q else 0.0


VERDICTS = ("supported", "contradicted", "not_stated")


@dataclass
class ClaimVerdict:
    supported: bool
    score: float
    reason: str
    best: int | None = None  # index of the deciding span: the one that states or contradicts the claim
    verdict: str = "not_stated"  # one of VERDICTS
    contradiction: float = 0.0  # P(the deciding span contradicts the claim), where the judge reads it


def judge_claim(claim: str, spans: Sequence[str], support: np.ndarray,
                where: Callable[[int], str] | None = None, threshold: float = SUPPORTED,
                contradiction: np.ndarray | None = None, contradicted: float = CONTRADICTED) -> ClaimVerdict:
    """Supported when a span states the claim (support ≥ threshold: SUPPORTED, or a calibration's
    refit on reviewers' labels) and states its facts alike — the fact check applies whatever the
    threshold. Contradicted when no span states it and one says otherwise: a span that states the
    claim but another fact of its kind, a span the support model reads as contradicting it
    (`contradiction` ≥ `contradicted`, where the judge gives one), or the closest passage stating
    another fact. Otherwise not stated. The reason names the deciding passage and, for a fact,
    both versions of it."""
    if not len(spans):
        return ClaimVerdict(False, 0.0, "Not stated: no passage in the documents relates to this claim.")
    contra = np.zeros(len(spans)) if contradiction is None else np.asarray(contradiction, np.float64)
    order = list(np.argsort(-support, kind="stable"))
    stating = [int(i) for i in order[:5] if float(support[i]) >= threshold]
    # the passages most about the claim by its words, whatever their support: a clause on the
    # claim's subject that states another fact must be heard even when the support model, which
    # reads facts more than subjects, scores it low
    about = {i: _about(claim, s) for i, s in enumerate(spans)}
    topical = [i for i in sorted(about, key=lambda k: -about[k])[:3] if about[i] >= 0.5 and i not in stating]
    checks = {i: _fact_check(claim, spans[i]) for i in stating + topical}
    agree = [i for i in stating if checks[i][0]]
    against = sorted((i for i in stating + topical if checks[i][1]), key=lambda k: -about[k])
    def decide(i: int, verdict: str, head: str, p: float | None = None) -> ClaimVerdict:
        """The verdict on span i: its reason opens with `head` and quotes the span; a verdict
        other than supported scores below the threshold."""
        p = float(support[i]) if p is None else p
        if verdict != "supported":
            p = min(p, threshold - 0.01)
        return ClaimVerdict(verdict == "supported", round(p, 4), f'{head}: "{_short(spans[i])}"', i, verdict,
                            round(float(contra[i]), 4))

    if agree:
        # A passage that states the claim's fact about something else ("notify within thirty (30)
        # days" for a 30-day termination claim) does not outweigh one about the claim that states
        # another fact: it must cover as much of what the claim says as the contradicting one.
        i = max(agree, key=lambda k: (about[k], float(support[k])))
        if not against or about[i] >= max(about[k] for k in against):
            why = checks[i][2]
            return decide(i, "supported", f"Supported (p={float(support[i]):.2f}): {_where(i, where)} states it"
                          + (f"; {why}" if why else ""))
    if against:
        i = against[0]
        return decide(i, "contradicted", f"Contradicted: {checks[i][2]} ({_where(i, where)})")
    saying = [i for i in np.argsort(-np.maximum(support, contra), kind="stable")[:5]
              if contra[i] >= contradicted and contra[i] > support[i]]
    if saying:  # the model reads a passage as saying otherwise
        i = int(max(saying, key=lambda k: contra[k]))
        why = _fact_check(claim, spans[i])[2]
        return decide(i, "contradicted", f"Contradicted (p={contra[i]:.2f}): {_where(i, where)} says otherwise"
                      + (f"; {why}" if why else ""))
    if stating:
        i = stating[0]
        return decide(i, "not_stated", f"Not stated: {checks[i][2]} ({_where(i, where)})")
    i = int(order[0])
    p = float(support[i])
    ok, conflicts, why = _fact_check(claim, spans[i])
    if conflicts:  # the closest passage states another fact of the same kind: say which
        return decide(i, "contradicted", f"Contradicted (p={p:.2f}): {why} ({_where(i, where)})", p=p)
    miss = _missing_words(claim, spans[i])
    return decide(i, "not_stated", f"Not stated (p={p:.2f}): the closest passage ({_where(i, where)}) does not "
                  "state it" + (f"; it does not mention {', '.join(miss)}" if miss else ""), p=p)


def _where(i: int, where: Callable[[int], str] | None) -> str:
    return where(i) if where is not None else "the passage"


def _short(text: str, n: int = 160) -> str:
    t = " ".join(text.split())
    return t if len(t) <= n else t[: n - 1] + "…"


def _missing_words(claim: str, span: str, n: int = 4) -> list[str]:
    """The claim's topic words the span lacks, as written: a party's name is who, not what
    ("it does not mention receiving" misled readers about "Receiving Party")."""
    have = set(content_terms(span))
    return [w for st, w in surface_forms(without_party_names(claim)).items() if st not in have][:n]


def sentence_support(sentence: str, evidence_texts: Sequence[str], docs: Sequence[str | None] | None = None
                     ) -> tuple[bool, float, str]:
    """An answer sentence against the quotes it cites (`docs`: their document ids): the same
    support model and fact gate as `verify` uses for a claim."""
    if not evidence_texts:
        return False, 0.0, "No evidence to support this sentence."
    v = judge_claim(sentence, list(evidence_texts), SCORES("support", sentence, list(evidence_texts), docs))
    return v.supported, v.score, v.reason
