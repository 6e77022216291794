"""Quality review of a composed answer (seed 000 stage 5, seed 002's citation validation and
coverage, seed 001's no-speculation rule, seed 004's sentence support).

Citations are validated, never trusted: IDs that do not exist or are not verified are
removed from the answer and reported; the findings become feedback for a revise pass."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from workbench.models import ANSWERS, Draft, Evidence, QualityFinding, SentenceSupport
from workbench.text import cited_ids, mentioned_ids, remove_ids, speculative_terms, split_sentences, strip_citations

# Feedback lines start with one of these tags; a composer may drop the IDs a line names.
TAG_UNCITED = "uncited:"
TAG_INVALID = "invalid_id:"
TAG_SPECULATIVE = "speculative:"
TAG_UNSUPPORTED = "unsupported:"
TAG_COVERAGE = "coverage:"
REVISE_ON = frozenset({"has_answer", "every_sentence_cites", "cited_ids_verified", "no_speculation", "sentences_supported"})


@dataclass
class Review:
    """The answer after citation cleaning, with everything the checks found."""

    final_answer: str
    sentences: list[SentenceSupport]
    findings: list[QualityFinding]
    feedback: list[str] = field(default_factory=list)
    invalid_ids: list[str] = field(default_factory=list)
    cited: list[str] = field(default_factory=list)
    coverage: float = 0.0
    support_ratio: float = 0.0
    answers: float | None = None  # P(the best cited quote answers the question); None: not measured

    @property
    def passed(self) -> bool:
        return all(f.passed for f in self.findings)

    @property
    def needs_revision(self) -> bool:
        """A failed check a revise pass can fix. Coverage is reported, not revised for: the
        pipeline lists every uncited verified ID as unused itself."""
        return any(not f.passed for f in self.findings if f.check in REVISE_ON)

    def counts(self) -> dict[str, int]:
        return {
            "sentences": len(self.sentences),
            "supported": sum(s.supported for s in self.sentences),
            "invalid_ids": len(self.invalid_ids),
            "failed_checks": sum(not f.passed for f in self.findings),
        }


def _ids(sentence: str) -> str:
    """The IDs a sentence cites, as '[A, B]' (feedback names them so a composer can drop them)."""
    return "[" + ", ".join(cited_ids(sentence)) + "]"


def _short(s: str, n: int = 90) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def answer_relevance(question: str, sentences: list[SentenceSupport], verified: list[Evidence]
                     ) -> tuple[list[SentenceSupport], float | None]:
    """Whether the cited evidence answers the question: the shared judge's relevance of each cited
    quote (engine.SCORES, the scores Verify used for the offline backend, so no new work there),
    per sentence its best citation's, and the best over the answer. Whoever verified the quotes
    (rules or an LLM), green then means the evidence answers, not only that sentences cite it."""
    from workbench.backends import engine

    by_id = {e.requirement_id: e for e in verified}
    ids = list(dict.fromkeys(c for s in sentences for c in s.citations if c in by_id))
    if not ids:
        return sentences, None
    scores = engine.SCORES("relevance", question, [engine.judged_text(by_id[i]) for i in ids],
                           [by_id[i].document_id for i in ids])
    rel = dict(zip(ids, (float(x) for x in scores), strict=True))
    out = [s.model_copy(update={"answers": round(max(rel[c] for c in s.citations if c in rel), 4)})
           if any(c in rel for c in s.citations) else s for s in sentences]
    return out, round(max(rel.values()), 4)


def review(draft: Draft, verified: list[Evidence], known_ids: set[str], backend, question: str | None = None,
           sources: Iterable[str] = ()) -> Review:
    """Check a draft against the verified evidence. `known_ids` are all IDs extracted in the
    run (to tell 'not verified' from 'does not exist'). Given the question, also whether the
    cited evidence answers it (`answer_relevance`): the `answers_question` finding. Without it,
    each sentence's `answers` as the backend's support check set it (a recomposition keeps the
    machine's). `sources`: the documents' short titles of a run over several; a sentence is
    judged on what it says of its quote, without the document name before it (compose.named)."""
    from workbench.pipeline.compose import without_source

    sources = list(sources)
    verified_ids = {e.requirement_id for e in verified}
    mentioned = mentioned_ids(draft.final_answer)
    invalid = [i for i in mentioned if i not in verified_ids]
    answer = remove_ids(draft.final_answer, set(invalid)) if invalid else " ".join(draft.final_answer.split())
    sentences = split_sentences(answer)
    feedback: list[str] = []
    for i in invalid:
        why = "not verified" if i in known_ids else "does not exist"
        feedback.append(f"{TAG_INVALID} {i} {why}; removed from the answer")

    uncited = [s for s in sentences if not cited_ids(s)]
    for s in uncited:
        feedback.append(f"{TAG_UNCITED} \"{_short(s)}\" cites no verified evidence; cite one or remove it")
    claims = [without_source(s, sources) for s in sentences]
    speculative = [(s, speculative_terms(c)) for s, c in zip(sentences, claims, strict=True)]
    speculative = [(s, t) for s, t in speculative if t]
    for s, t in speculative:
        feedback.append(f"{TAG_SPECULATIVE} {_ids(s)} {', '.join(repr(x) for x in t)} in \"{_short(strip_citations(s))}\"")

    support = backend.support(claims, verified) if sentences else []
    if len(support) != len(sentences):  # a backend that drops sentences does not get to hide them
        got = {s.text: s for s in support}
        support = [got.get(c) or SentenceSupport(text=c, citations=cited_ids(c), supported=False,
                                                 reason="the verifier returned no verdict") for c in claims]
    support = [x if c == s else x.model_copy(update={"text": s})  # the sentence as the answer says it
               for x, s, c in zip(support, sentences, claims, strict=True)]
    for s in support:
        if not s.supported:
            feedback.append(f"{TAG_UNSUPPORTED} {_ids(s.text)} \"{_short(strip_citations(s.text))}\" {s.reason}".rstrip())
    n_sup = sum(s.supported for s in support)
    ratio = round(n_sup / len(support), 4) if support else 0.0
    if question is not None:
        support, answers = answer_relevance(question, support, verified)
    else:
        known = [s.answers for s in support if s.answers is not None]
        answers = max(known) if known else None

    cited = [i for i in cited_ids(answer) if i in verified_ids]
    accounted = set(cited) | set(draft.unused_requirements)
    unaccounted = sorted(verified_ids - accounted)
    if unaccounted:
        feedback.append(f"{TAG_COVERAGE} verified {', '.join(unaccounted)} neither cited nor listed as unused")
    coverage = round(len(cited) / len(verified_ids), 4) if verified_ids else 0.0

    findings = [
        QualityFinding(check="has_answer", passed=bool(sentences),
                       detail=f"{len(sentences)} sentences" if sentences else "the answer is empty"),
        QualityFinding(check="every_sentence_cites", passed=not uncited,
                       detail=f"{len(uncited)} of {len(sentences)} sentences cite nothing" if uncited
                       else f"all {len(sentences)} sentences cite verified evidence"),
        QualityFinding(check="cited_ids_verified", passed=not invalid,
                       detail=f"removed {', '.join(invalid)}" if invalid else f"{len(cited)} cited IDs, all verified"),
        QualityFinding(check="no_speculation", passed=not speculative,
                       detail="; ".join(f"{', '.join(t)} in \"{_short(s, 60)}\"" for s, t in speculative)
                       or "no speculative language"),
        QualityFinding(check="sentences_supported", passed=n_sup == len(support),
                       detail=f"{n_sup}/{len(support)} sentences supported by the evidence they cite"),
        QualityFinding(check="coverage", passed=not unaccounted,
                       detail=f"{len(cited)}/{len(verified_ids)} verified IDs cited ({coverage:.0%})"
                       + (f"; unaccounted: {', '.join(unaccounted)}" if unaccounted else "")),
    ]
    if answers is not None:
        findings.append(QualityFinding(
            check="answers_question", passed=answers >= ANSWERS,
            detail=(f"the best cited evidence answers the question (p={answers:.2f})" if answers >= ANSWERS else
                    f"none of the cited evidence answers the question (best p={answers:.2f}, needs {ANSWERS:.2f})")))
    return Review(final_answer=answer, sentences=support, findings=findings, feedback=feedback,
                  invalid_ids=invalid, cited=cited, coverage=coverage, support_ratio=ratio, answers=answers)


def sanitize(rev: Review) -> str:
    """The answer without the sentences no revision could fix: uncited or speculative ones.
    Unsupported sentences stay, flagged in sentence_support, and lower the confidence."""
    keep = [s.text for s in rev.sentences if cited_ids(s.text) and not speculative_terms(s.text)]
    return " ".join(keep)
