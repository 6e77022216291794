"""Seed 004's draft-then-validate flow as a run: an analyst's draft, checked sentence by sentence
by the same claim verifier as `workbench verify` (workbench.pipeline.claims), stored as a Run of
kind "draft" so Review, sentence labels, the audit trail and the metrics work on it unchanged.

- Each sentence cites its best evidence span (the deciding passage), supported or not, so a
  reader can always see what the check compared it with; its score and reason are the check's.
- An evidence item is a (document, span) with a stable ID like any other; it is verified when
  some sentence it is the best evidence for was supported, with the best such score.
- The draft's words are never rewritten: review marks sentences, it does not drop them
  (workbench.review.draft_answer)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from workbench.models import (
    Answer,
    ClaimCheck,
    Document,
    Evidence,
    QualityFinding,
    Run,
    SentenceSupport,
    Span,
    Verification,
)

VERIFIER = "claims"  # Verification.verifier of a draft's items: the claim verifier decided

_END = re.compile(r"([.!?][\"'\u201d\u2019)\]]*)$")


def cite(sentence: str, ids: Sequence[str]) -> str:
    """The sentence with its citation before the closing punctuation: "… Kansas [REQ-C001]."."""
    if not ids:
        return sentence
    ref = f" [{', '.join(ids)}]"
    m = _END.search(sentence)
    return sentence[:m.start()] + ref + m.group(1) if m else sentence + ref


def draft_run(*, run_id: str, title: str, draft: str, sentences: list[str], checks: list[ClaimCheck],
              documents: dict[str, Document], assign_ids: Callable[[list[tuple[str, int, int, str]]], list[str]],
              backend: str, settings: dict) -> Run:
    """The draft Run: one SentenceSupport per checked sentence, each citing its best span."""
    best: list[Span | None] = [c.evidence[0] if c.evidence else None for c in checks]
    anchored = [(i, s) for i, s in enumerate(best) if s is not None]
    ids = assign_ids([(s.document_id, s.start, s.end, documents[s.document_id].source_type) for _, s in anchored])
    id_of = {i: rid for (i, _), rid in zip(anchored, ids, strict=True)}
    evidence: dict[str, Evidence] = {}
    verdict: dict[str, tuple[bool, float, str]] = {}
    out: list[SentenceSupport] = []
    for i, (text, check) in enumerate(zip(sentences, checks, strict=True)):
        rid = id_of.get(i)
        if rid is not None:
            span = best[i]
            evidence.setdefault(rid, Evidence(requirement_id=rid, source_type=documents[span.document_id].source_type,
                                              document_id=span.document_id, exact_quote=span.text,
                                              chunk_id=f"draft-{run_id}-s{i + 1}", span=span))
            old = verdict.get(rid)
            new = (check.supported, check.score, f"Sentence {i + 1}: {check.reason}")
            if old is None or (new[0], new[1]) > (old[0], old[1]):
                verdict[rid] = new
        out.append(SentenceSupport(text=cite(text, [rid] if rid else []), citations=[rid] if rid else [],
                                   supported=check.supported, verdict=check.verdict, score=check.score,
                                   reason=check.reason if rid else check.reason or "no passage found"))
    verifications = [Verification(requirement_id=rid, verified=ok, score=score, verifier=VERIFIER,
                                  rejection_reason=None if ok else "does_not_address_question",
                                  verification_rationale=why)
                     for rid, (ok, score, why) in verdict.items()]
    answer = draft_answer_from(out, n_verified=sum(v.verified for v in verifications))
    answer.requirement_references = []
    return Run(run_id=run_id, question=title, kind="draft", draft=draft, document_ids=list(documents),
               backend=backend, settings=settings, evidence=list(evidence.values()), verifications=verifications,
               answer=answer)


def draft_answer_from(sentences: list[SentenceSupport], *, n_verified: int, note: str = "") -> Answer:
    """The checked draft's numbers from its sentences: support ratio (seed 004), coverage of
    the supported items, confidence, and the one quality finding a draft has."""
    from workbench.pipeline.confidence import grounding_confidence

    n = len(sentences)
    n_sup = sum(s.supported for s in sentences)
    ratio = round(n_sup / n, 4) if n else 0.0
    return Answer(
        final_answer=" ".join(s.text for s in sentences), sentences=sentences, support_ratio=ratio,
        citation_coverage=1.0 if n_verified else 0.0,  # every supported item is some sentence's citation
        grounding_confidence=grounding_confidence(n_verified, ratio) if n_verified else "insufficient",
        quality=[QualityFinding(check="sentences_supported", passed=n_sup == n,
                                detail=f"{n_sup}/{n} sentences of the draft supported" + note)])
