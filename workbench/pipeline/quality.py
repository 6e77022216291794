"""Quality review of a composed answer (seed 000 stage 5, seed 002's citation validation and
coverage, seed 001's no-speculation rule, seed 004's sentence support).

Citations are validated, never trusted: IDs that do not exist or are not verified are
removed from the answer and reported; the findings become feedback for a revise pass."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from workbench.models import ANSWERS, Draft, Evidence, EvidenceConflict, QualityFinding, SentenceSupport
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
    # the parts of a question asking several things (text.question_parts) no cited quote answers
    unanswered: list[str] = field(default_factory=list)

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
                     ) -> tuple[list[SentenceSupport], float | None, list[str]]:
    """Whether the cited evidence answers the question: the shared judge's relevance of each cited
    quote (engine.SCORES, the scores Verify used for the offline backend, so no new work there),
    per sentence its best citation's, and the best over the answer. Whoever verified the quotes
    (rules or an LLM), green then means the evidence answers, not only that sentences cite it.
    A question asking several things (text.question_parts) is answered when each part is: the
    answer's figure is the least answered part's best, and the parts no cited quote answers
    (relevance below ANSWERS) are returned by name."""
    from workbench.backends import engine
    from workbench.text.question_parts import question_parts

    by_id = {e.requirement_id: e for e in verified}
    ids = list(dict.fromkeys(c for s in sentences for c in s.citations if c in by_id))
    parts = question_parts(question)
    if not ids:
        return sentences, None, parts if len(parts) > 1 else []
    texts, docs = [engine.judged_text(by_id[i]) for i in ids], [by_id[i].document_id for i in ids]
    scores = engine.SCORES("relevance", question, texts, docs)
    rel = dict(zip(ids, (float(x) for x in scores), strict=True))
    out = [s.model_copy(update={"answers": round(max(rel[c] for c in s.citations if c in rel), 4)})
           if any(c in rel for c in s.citations) else s for s in sentences]
    if len(parts) < 2:
        return out, round(max(rel.values()), 4), []
    best = {p: float(np.max(engine.SCORES("relevance", p, texts, docs))) for p in parts}
    return out, round(min(best.values()), 4), [p for p in parts if best[p] < ANSWERS]


CONTRADICTS = 0.5  # P(another verified quote contradicts a cited one) from which a sentence is flagged
MAX_CONFLICT_ITEMS = 20  # verified items read against each other at most
CLOSEST = 3  # per cited quote, the other items closest in meaning the support model reads (≤ 20 × 3 pairs)


def _model_contradiction() -> Callable[[str, list[str]], np.ndarray] | None:
    """P(each span contradicts the text) from the judge's support model; None for a judge without one."""
    from workbench.backends import engine

    model = getattr(engine.SCORES.judge or engine.get_judge(), "model", None)
    if model is None:
        return None
    return lambda text, spans: model.probabilities(text, spans)[:, 1]


def evidence_conflicts(sentences: Sequence[SentenceSupport], verified: Sequence[Evidence],
                       contradiction: Callable[[str, list[str]], np.ndarray] | None = None,
                       limit: int = MAX_CONFLICT_ITEMS, closest: int = CLOSEST) -> list[SentenceSupport]:
    """Each sentence with `contradicted_by`: the run's other verified items that say otherwise than
    a quote it cites. The support model reads each pair of a cited quote and one of the `closest`
    other verified quotes nearest it in meaning (a contradiction is about the same thing), once per
    pair, either way round; a pair counts from P(contradicted) ≥ CONTRADICTS when the fact check
    agrees — it does not find every fact the one quote states stated alike by the other. Cheap by
    design: only verified items (the cited ones, then the others in the order given, best first, up
    to `limit`), at most limit × closest model reads, each remembered by the model. Items overlapping
    in one document, or cited by the same sentence, are never each other's contradiction, nor are
    items of different documents (each contract states its own terms).
    `contradiction(text, spans)`: P per span, the judge's support model unless given (tests); a
    judge without one flags nothing."""
    from workbench.backends import engine
    from workbench.judgment.facts import compare

    by_id = {e.requirement_id: e for e in verified}
    cited = list(dict.fromkeys(c for s in sentences for c in s.citations if c in by_id))
    contradiction = contradiction or _model_contradiction()
    if not cited or len(by_id) < 2 or contradiction is None:
        return [s.model_copy(update={"contradicted_by": []}) if s.contradicted_by else s for s in sentences]
    pool = list(dict.fromkeys([*cited, *by_id]))[:max(limit, len(cited))]
    text = {i: engine.judged_text(by_id[i]) for i in pool}

    def apart(a: Evidence, b: Evidence) -> bool:
        if a.document_id != b.document_id or a.span is None or b.span is None:
            return a.exact_quote not in b.exact_quote and b.exact_quote not in a.exact_quote
        return a.span.end <= b.span.start or b.span.end <= a.span.start

    pairs: dict[frozenset[str], tuple[str, str]] = {}  # each unordered pair read once, the cited quote as the claim
    for c in cited:
        # within one document: two contracts of a data room each saying "this Agreement" state their
        # own terms (Kansas law in one, Texas in the other), which is no contradiction
        others = [o for o in pool if o != c and by_id[o].document_id == by_id[c].document_id
                  and apart(by_id[c], by_id[o])]
        near = engine.closeness(text[c], [text[o] for o in others], [by_id[o].document_id for o in others])
        for k in np.argsort(-np.asarray(near, np.float64), kind="stable")[:closest]:
            pairs.setdefault(frozenset((c, others[int(k)])), (c, others[int(k)]))
    by_claim: dict[str, list[str]] = {}
    for c, o in pairs.values():
        by_claim.setdefault(c, []).append(o)
    says_otherwise: dict[str, list[EvidenceConflict]] = {}
    for c, others in by_claim.items():
        for o, p in zip(others, np.asarray(contradiction(text[c], [text[o] for o in others]), np.float64),
                        strict=True):
            if p < CONTRADICTS:
                continue
            for a, b in ((c, o), (o, c)):  # flagged on either side: each says otherwise than the other
                facts = compare(text[a], text[b])
                if facts.claim_has_facts and facts.ok:  # the same facts, stated alike: the fact check disagrees
                    continue
                says_otherwise.setdefault(a, []).append(EvidenceConflict(
                    cited=a, other=b, probability=round(float(p), 4),
                    reason=_named(facts.reason, a, b) if facts.conflicts else ""))
    out = []
    for s in sentences:
        mine = set(s.citations)
        found = sorted((x for c in s.citations for x in says_otherwise.get(c, []) if x.other not in mine),
                       key=lambda x: -x.probability)
        out.append(s.model_copy(update={"contradicted_by": found}) if found or s.contradicted_by else s)
    return out


def _named(reason: str, cited: str, other: str) -> str:
    """The fact check's reason with the two items named ("REQ-C001 says …, REQ-C003 says …")."""
    return reason.replace("the claim says", f"{cited} says", 1).replace("the passage says", f"{other} says", 1)


def conflicts_finding(sentences: Sequence[SentenceSupport]) -> QualityFinding:
    """The quality finding of `evidence_conflicts`: which sentence's evidence another item contradicts."""
    flagged = [(n, s) for n, s in enumerate(sentences, 1) if s.contradicted_by]
    if not flagged:
        return QualityFinding(check="evidence_consistent", passed=True,
                              detail="no verified item contradicts the evidence a sentence cites")
    return QualityFinding(check="evidence_consistent", passed=False, detail="; ".join(
        f"sentence {n} {_ids(s.text)}: " + ", ".join(
            f"{x.other} says otherwise than {x.cited} (p={x.probability:.2f}" + (f"; {x.reason}" if x.reason else "")
            + ")" for x in s.contradicted_by) for n, s in flagged))


def review(draft: Draft, verified: list[Evidence], known_ids: set[str], backend, question: str | None = None,
           sources: Iterable[str] = ()) -> Review:
    """Check a draft against the verified evidence. `known_ids` are all IDs extracted in the
    run (to tell 'not verified' from 'does not exist'). Given the question, also whether the
    cited evidence answers it (`answer_relevance`): the `answers_question` finding. Without it,
    each sentence's `answers` as the backend's support check set it (a recomposition keeps the
    machine's). `sources`: the documents' short titles of a run over several; a sentence is
    judged on what it says of its quote, without the document name before it (compose.named).
    Whether another verified item says otherwise than what a sentence cites (`evidence_conflicts`):
    the evidence_consistent finding, reported, never revised for."""
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
        support, answers, unanswered = answer_relevance(question, support, verified)
    else:
        unanswered = []
        known = [s.answers for s in support if s.answers is not None]
        answers = max(known) if known else None

    support = evidence_conflicts(support, verified)

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
    if support:
        findings.append(conflicts_finding(support))
    if unanswered:
        findings.append(QualityFinding(
            check="answers_question", passed=False,
            detail="no cited evidence answers " + "; ".join(f'"{p}"' for p in unanswered)
            + (f" (least answered part p={answers:.2f}, needs {ANSWERS:.2f})" if answers is not None else "")))
    elif answers is not None:
        findings.append(QualityFinding(
            check="answers_question", passed=answers >= ANSWERS,
            detail=(f"the best cited evidence answers the question (p={answers:.2f})" if answers >= ANSWERS else
                    f"none of the cited evidence answers the question (best p={answers:.2f}, needs {ANSWERS:.2f})")))
    return Review(final_answer=answer, sentences=support, findings=findings, feedback=feedback,
                  invalid_ids=invalid, cited=cited, coverage=coverage, support_ratio=ratio, answers=answers,
                  unanswered=unanswered)


def sanitize(rev: Review) -> str:
    """The answer without the sentences no revision could fix: uncited or speculative ones.
    Unsupported sentences stay, flagged in sentence_support, and lower the confidence."""
    keep = [s.text for s in rev.sentences if cited_ids(s.text) and not speculative_terms(s.text)]
    return " ".join(keep)
