"""The review model: a stored run plus its review events → the run as a reader sees it.

`reviewed_run` is pure (no store, no PDF): the service hands it the run, the run's events and
the hash re-check's findings, and every view (Answer, Review, Export and Dashboard pages, the
CLI, every export format, the metrics) reads the one `ReviewedRun` it returns, so they agree.

Rules, in one place:
- An item's final status is the human label when there is one (an adjudication beats plain
  labels; a reset withdraws every label before it), else the verifier's; never supported when
  the hash re-check failed. Both verdicts stay visible. A "contradicted" label (the documents say
  otherwise) is not supported; it tells a reader why (models.label_status, label_verdict).
- Reviewer-added evidence (event kind "added") is an item like any other, human-Supported.
- The answer is recomposed whenever the set of supported items changes: sentences whose
  citations are all no longer supported are dropped, unsupported IDs leave the others, and
  newly supported items are composed into sentences by the rules composer (a human-Supported
  quote is always cited). The same quality review the pipeline runs recomputes the findings,
  coverage, support ratio and confidence. Each recomposition is an `AnswerRevision` naming the
  events that caused it; the machine answer is kept beside it.
- A checked draft (run kind "draft") is never recomposed: its sentences stay the analyst's,
  marked supported or not by their evidence's final status (`draft_answer`); a sentence whose
  evidence a reviewer labelled contradicted is contradicted.
- Every sentence's `supported` agrees with its `verdict`: a sentence label sets both
  (supported → supported, unsupported → not stated, contradicted → contradicted).
- A sentence label (SENT-n) names the n-th sentence of the answer shown when it was recorded;
  it follows that sentence's text through later revisions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from workbench.models import (
    NO_AUTHORITATIVE_EVIDENCE,
    Answer,
    AnswerRevision,
    Draft,
    Evidence,
    EvidenceStatus,
    FinalStatus,
    HumanLabel,
    QualityFinding,
    RequirementReference,
    ReviewedRun,
    ReviewEvent,
    Run,
    SentenceSupport,
    Verification,
    label_status,
    label_verdict,
    sha256_text,
    support_badge,
)

SENTENCE_PREFIX = "SENT-"


# --- the hash re-check (I/O passed in) ------------------------------------------------------------
def check_hashes(evidence: Iterable[Evidence], pdf_ok: Callable[[str], bool],
                 text_of: Callable[[str], str]) -> dict[str, str]:
    """Evidence ID → why its quote can no longer be trusted, for items whose stored PDF no
    longer hashes to its id (`pdf_ok`) or whose span text no longer hashes to text_sha256.
    `text_of` may raise workbench.errors.WorkbenchError (the PDF cannot be re-opened). A stored
    quote must also be its span's text (same letters and digits: the locator's key)."""
    from workbench.errors import WorkbenchError
    from workbench.pdf.normalize import key

    doc_ok: dict[str, bool] = {}
    problems: dict[str, str] = {}
    for ev in evidence:
        span = ev.span
        if span is None:  # never anchored: nothing to re-check (and never verified)
            continue
        if key(ev.exact_quote) != key(span.text) or sha256_text(span.text) != span.text_sha256:
            problems[ev.requirement_id] = "its stored quote is not the text its span and SHA-256 name"
            continue
        if ev.document_id not in doc_ok:
            doc_ok[ev.document_id] = pdf_ok(ev.document_id)
        if not doc_ok[ev.document_id]:
            problems[ev.requirement_id] = (f"the stored PDF {ev.document_id[:12]}… is missing or its bytes no "
                                           "longer match its SHA-256 (tampered or corrupted)")
            continue
        try:
            text = text_of(ev.document_id)
        except WorkbenchError as exc:
            problems[ev.requirement_id] = f"the stored PDF could not be re-opened to check it ({exc})"
            continue
        if sha256_text(text[span.start:span.end]) != span.text_sha256:
            problems[ev.requirement_id] = (f"the text at {span.start}:{span.end} of the stored PDF no longer "
                                           "matches the quote's SHA-256")
    return problems


def reverified(run: Run, problems: Mapping[str, str]) -> Run:
    """The run with every item named in `problems` unverified (rejection_reason hash_mismatch)."""
    bad = {ev.requirement_id for ev in run.evidence} & set(problems)
    if not bad:
        return run
    verifs = [v for v in run.verifications if v.requirement_id not in bad]
    for rid in bad:
        old = run.verification_for(rid)
        verifs.append(Verification(requirement_id=rid, verified=False, rejection_reason="hash_mismatch",
                                   verification_rationale=f"Re-verification on load failed: {problems[rid]}.",
                                   score=0.0, verifier=old.verifier if old else "store"))
    order = {ev.requirement_id: i for i, ev in enumerate(run.evidence)}
    verifs.sort(key=lambda v: order.get(v.requirement_id, len(order)))
    return run.model_copy(update={"verifications": verifs})


def added_evidence(events: Iterable[ReviewEvent]) -> list[Evidence]:
    """Reviewer-added items, in the order they were added (one per ID)."""
    out: dict[str, Evidence] = {}
    for e in events:
        if e.kind == "added" and e.evidence is not None:
            out.setdefault(e.evidence.requirement_id, e.evidence)
    return list(out.values())


# --- item state -----------------------------------------------------------------------------------
class _Item:
    """The review events of one item since its last reset."""

    def __init__(self) -> None:
        self.labels: list[ReviewEvent] = []  # plain labels and additions, in order
        self.adjudication: ReviewEvent | None = None

    def apply(self, ev: ReviewEvent) -> None:
        if ev.label == "reset":
            self.labels, self.adjudication = [], None
        elif ev.kind == "adjudication":
            self.adjudication = ev
        else:
            self.labels.append(ev)

    @property
    def deciding(self) -> ReviewEvent | None:
        return self.adjudication or (self.labels[-1] if self.labels else None)

    @property
    def per_reviewer(self) -> dict[str, HumanLabel]:
        out: dict[str, HumanLabel] = {}
        for ev in self.labels:
            out[ev.reviewer] = ev.label  # type: ignore[assignment] - resets never reach labels
        return out


def verifier_verdict(run: Run, requirement_id: str) -> FinalStatus:
    v = run.verification_for(requirement_id)
    return "supported" if v is not None and v.verified else "unsupported"


def _statuses(run: Run, added: list[Evidence], items: dict[str, _Item], problems: Mapping[str, str]
              ) -> list[EvidenceStatus]:
    out = []
    added_by = {}
    for rid, it in items.items():
        first = next((e for e in it.labels if e.kind == "added"), None)
        if first is not None:
            added_by[rid] = first
    added_ids = {e.requirement_id for e in added}
    for ev in [*run.evidence, *added]:
        rid = ev.requirement_id
        it = items.get(rid) or _Item()
        cur = it.deciding
        human = cur.label if cur else None
        ok = rid not in problems
        per = it.per_reviewer
        out.append(EvidenceStatus(
            run_id=run.run_id, evidence=ev, verification=run.verification_for(rid),
            verifier_verdict=verifier_verdict(run, rid), human_label=human,
            final_status=(label_status(human) if human else verifier_verdict(run, rid)) if ok else "unsupported",
            reviewer=cur.reviewer if cur else None, note=cur.note if cur else None,
            reviewed_at=cur.timestamp if cur else None, hash_ok=ok, human_added=rid in added_ids,
            reviewer_labels=per, adjudicated=it.adjudication is not None,
            conflict=it.adjudication is None and len(set(per.values())) > 1))
    return out


# --- recomposition --------------------------------------------------------------------------------
class _FinalSupport:
    """The support check of a recomposed answer: a sentence is supported when everything it
    cites is finally supported; a machine sentence keeps the machine's verdict on its claim."""

    def __init__(self, machine: list[SentenceSupport], supported: set[str], answers: dict[str, float] | None = None,
                 vouched: Mapping[str, str] | None = None, rejected: Mapping[str, str | None] | None = None):
        from workbench.text import strip_citations

        self._strip = strip_citations
        self.machine = {strip_citations(s.text): s for s in machine}
        self.supported = supported
        self.answers = answers or {}  # evidence ID -> P(it answers the question), for new sentences
        self.vouched = vouched or {}  # items the verifier rejected and a reviewer marked Supported -> who
        self.rejected = rejected or {}  # evidence ID -> the verifier's rejection reason

    def support(self, sentences: list[str], evidence: list[Evidence]) -> list[SentenceSupport]:
        from workbench.text import cited_ids

        out = []
        for text in sentences:
            cites = cited_ids(text)
            bad = [c for c in cites if c not in self.supported]
            old = self.machine.get(self._strip(text))
            if not cites:
                out.append(SentenceSupport(text=text, citations=[], supported=False, reason="cites no evidence"))
            elif bad:
                out.append(SentenceSupport(text=text, citations=cites, supported=False,
                                           reason=f"cites evidence that is not supported: {', '.join(bad)}"))
            elif old is not None:
                out.append(old.model_copy(update={"text": text, "citations": cites}))
            else:
                known = [self.answers[c] for c in cites if c in self.answers]
                vouched = [c for c in cites if c in self.vouched]
                reason = "; ".join(f"{c} marked supported by {self.vouched[c]} (the verifier: "
                                   f"{(self.rejected.get(c) or 'rejected').replace('_', ' ')})" for c in vouched) \
                    or "restates the quote it cites, supported after review"
                out.append(SentenceSupport(text=text, citations=cites, supported=True, reason=reason,
                                           answers=max(known) if known else None))
        return out


def _one_sentence(ev: Evidence, sources: Mapping[str, str]) -> str:
    """A human-Supported quote the composer left out, as one sentence citing it (naming its
    document when the run spans several)."""
    from workbench.pipeline.compose import named, quote_cut, statement
    from workbench.text import split_sentences

    parts = [p.rstrip(" .;:!?") for p in split_sentences(statement(ev.exact_quote, quote_cut(ev.exact_quote)))]
    return named(f"{'; '.join(p for p in parts if p)} [{ev.requirement_id}].", sources.get(ev.document_id))


def _by_document(sentences: list[str], by_id: Mapping[str, Evidence]) -> list[str]:
    """A run over several documents: the sentences grouped by the document of what they cite
    (in the order the documents first appear), so a newly supported item's sentence joins its
    document's rather than trailing after another's."""
    from workbench.text import cited_ids

    def doc(text: str) -> str | None:
        return next((by_id[c].document_id for c in cited_ids(text) if c in by_id), None)

    order = list(dict.fromkeys(doc(t) for t in sentences))
    return sorted(sentences, key=lambda t: order.index(doc(t)))


def _machine_sentences(answer: Answer) -> list[str]:
    from workbench.text import split_sentences

    return [s.text for s in answer.sentences] or split_sentences(answer.final_answer or "")


def compose_answer(run: Run, evidence: list[Evidence], supported: list[str], human_supported: set[str],
                   marked_by: Mapping[str, str] | None = None) -> Answer:
    """The answer over the finally supported items (in `supported` order): the machine answer
    without what is no longer supported, plus sentences for the items that became supported.
    `marked_by`: who marked each human-Supported item, named beside a sentence citing an item the
    verifier had rejected ("marked supported by Rae Reviewer"): it is cited, and says why."""
    from workbench.pipeline.compose import compose_from_quotes, quote_cut
    from workbench.pipeline.confidence import grounding_confidence
    from workbench.pipeline.quality import review
    from workbench.text import cited_ids, remove_ids

    by_id = {e.requirement_id: e for e in evidence}
    ok = set(supported)
    machine_ok = {v.requirement_id for v in run.verifications if v.verified}
    kept: list[str] = []
    for text in _machine_sentences(run.answer):
        cites = cited_ids(text)
        if cites and not ok & set(cites):
            continue  # it rested only on items that are no longer supported
        gone = set(cites) - ok
        kept.append(remove_ids(text, gone) if gone else text)
    cited = {c for t in kept for c in cited_ids(t)}
    # items the machine verified but left uncited stay unused, unless nothing of its answer is left
    new = [by_id[i] for i in supported if i not in cited and (i not in machine_ok or not kept)]
    # the machine's cuts are not kept with a run: a quote read alone says whether it is a part
    draft = compose_from_quotes(new, cuts={e.requirement_id: quote_cut(e.exact_quote) for e in new},
                                sources=run.document_titles) if new \
        else Draft(final_answer="")
    extra = [draft.final_answer] if draft.final_answer else []
    left_out = [e for e in new if e.requirement_id in human_supported
                and e.requirement_id not in cited_ids(draft.final_answer)]
    extra += [_one_sentence(e, run.document_titles) for e in left_out]  # the human's word is final: cite it
    final = " ".join(_by_document([*kept, *extra], by_id) if run.document_titles else [*kept, *extra])
    cited_now = set(cited_ids(final))
    verified = [by_id[i] for i in supported]
    full = Draft(final_answer=final,
                 unused_requirements=[i for i in supported if i not in cited_now])
    # whether the evidence answers the question: the verifier's score of what it verified (the
    # judge's relevance for the offline backend); a reviewer's Supported says it answers
    answers = {v.requirement_id: v.score for v in run.verifications if v.verified}
    answers.update(dict.fromkeys(human_supported, 1.0))
    machine = [s if not set(s.citations) & human_supported else s.model_copy(update={"answers": 1.0})
               for s in run.answer.sentences]
    rejected = {v.requirement_id: v.rejection_reason for v in run.verifications if not v.verified}
    vouched = {i: (marked_by or {}).get(i, "a reviewer") for i in human_supported if i in rejected}
    rev = review(full, verified, set(by_id), _FinalSupport(machine, ok, answers, vouched, rejected))
    statements = {r.requirement_id: r.statement for r in [*run.answer.requirement_references,
                                                          *draft.requirement_references]}
    ans = Answer(
        final_answer=rev.final_answer,
        requirement_references=[RequirementReference(
            requirement_id=i, used_in_answer=i in rev.cited,
            statement=statements.get(i) or " ".join(by_id[i].exact_quote.split())) for i in supported],
        unused_requirements=[i for i in supported if i not in rev.cited],
        missing_evidence=[] if supported else run.answer.missing_evidence,
        grounding_confidence=grounding_confidence(len(supported), rev.support_ratio, rev.answers),
        sentences=rev.sentences, support_ratio=rev.support_ratio, citation_coverage=rev.coverage,
        quality=rev.findings if rev.final_answer else [], revisions=run.answer.revisions,
        answers_question=rev.answers,
    )
    if not supported:
        ans.result = NO_AUTHORITATIVE_EVIDENCE
        ans.grounding_confidence = "insufficient"
        ans.message = ("No evidence item is supported after review: the answer has no authoritative evidence."
                       if run.evidence else run.answer.message)
    return ans


def draft_answer(run: Run, supported: set[str], now_supported_by_humans: set[str],
                 contradicted: set[str] | frozenset[str] = frozenset()) -> Answer:
    """A checked draft after item review: every sentence kept, in the analyst's words; one whose
    evidence is no longer supported is marked not stated, one whose evidence a reviewer labelled
    contradicted (`contradicted`) is contradicted, one the check rejected becomes supported when a
    reviewer marked its (machine-rejected) evidence Supported."""
    from workbench.pipeline.draft import draft_answer_from

    out = []
    for s in run.answer.sentences:
        bad = [c for c in s.citations if c not in supported]
        against = [c for c in s.citations if c in contradicted]
        if s.citations and against:
            reason = s.reason if s.verdict == "contradicted" and not s.supported else \
                f"its evidence was marked contradicted after review: {', '.join(against)}"
            s = s.model_copy(update={"supported": False, "verdict": "contradicted", "reason": reason})
        elif s.citations and bad and s.supported:
            s = s.model_copy(update={"supported": False, "verdict": "not_stated",
                                     "reason": f"its evidence was marked unsupported after review: {', '.join(bad)}"})
        elif s.citations and not bad and not s.supported and set(s.citations) & now_supported_by_humans:
            s = s.model_copy(update={"supported": True, "verdict": "supported",
                                     "reason": "its evidence was marked supported after review"})
        out.append(s)
    return draft_answer_from(out, n_verified=len(supported), note=" (after review)")


def _human_says_it_answers(answer: Answer, human_supported: set[str], n_supported: int) -> Answer:
    """A reviewer's Supported on cited evidence says it answers the question: the answer's
    answers_question becomes 1.0 (and the confidence, badge and export gate follow) even when
    the supported set, and so the composed text, did not change."""
    from workbench.pipeline.confidence import grounding_confidence

    if answer.answers_question is None or answer.answers_question >= 1.0:
        return answer
    if not any(set(s.citations) & human_supported for s in answer.sentences):
        return answer
    sentences = [s.model_copy(update={"answers": 1.0}) if set(s.citations) & human_supported else s
                 for s in answer.sentences]
    quality = [q if q.check != "answers_question" else QualityFinding(
        check="answers_question", passed=True, detail="a reviewer marked cited evidence Supported: it answers the question")
        for q in answer.quality]
    return answer.model_copy(update={"sentences": sentences, "answers_question": 1.0, "quality": quality,
                                     "grounding_confidence": grounding_confidence(n_supported, answer.support_ratio, 1.0)})


def _with_sentence_labels(answer: Answer, labels: Mapping[str, ReviewEvent], n_supported: int) -> Answer:
    """Human sentence labels (by sentence text) over an answer; ratio, confidence and the
    sentences_supported finding follow."""
    from workbench.pipeline.confidence import grounding_confidence

    if not labels or not answer.sentences:
        return answer
    sentences = []
    for s in answer.sentences:
        ev = labels.get(s.text)
        if ev is not None:
            s = s.model_copy(update={"supported": ev.label == "supported", "verdict": label_verdict(ev.label),
                                     "reason": f"labelled {ev.label} by {ev.reviewer}" + (f": {ev.note}" if ev.note else "")})
        sentences.append(s)
    n_sup = sum(s.supported for s in sentences)
    ratio = round(n_sup / len(sentences), 4)
    quality = [q if q.check != "sentences_supported" else QualityFinding(
        check="sentences_supported", passed=n_sup == len(sentences),
        detail=f"{n_sup}/{len(sentences)} sentences supported (human sentence labels applied)")
        for q in answer.quality]
    return answer.model_copy(update={"sentences": sentences, "support_ratio": ratio, "quality": quality,
                                     "grounding_confidence": grounding_confidence(n_supported, ratio,
                                                                                  answer.answers_question)})


def _revision(n: int, before: Answer, after: Answer, old: list[str], new: list[str],
              events: list[ReviewEvent]) -> AnswerRevision:
    was = {s.text for s in before.sentences}
    now = {s.text for s in after.sentences}
    return AnswerRevision(
        revision=n, triggered_by=[e.id for e in events if e.id is not None],
        at=events[-1].timestamp if events else None,
        now_citable=[i for i in new if i not in old], no_longer_citable=[i for i in old if i not in new],
        dropped_sentences=[s.text for s in before.sentences if s.text not in now],
        added_sentences=[s.text for s in after.sentences if s.text not in was],
        final_answer=after.final_answer, support_ratio=after.support_ratio,
        citation_coverage=after.citation_coverage, grounding_confidence=after.grounding_confidence)


# --- the whole ------------------------------------------------------------------------------------
def reviewed_run(run: Run, events: Iterable[ReviewEvent], problems: Mapping[str, str] | None = None) -> ReviewedRun:
    """The run as a reader sees it after `events` (this run's review events, any order) with
    the hash re-check's `problems` (evidence ID → why it can no longer be trusted)."""
    problems = problems or {}
    events = sorted((e for e in events if e.run_id == run.run_id), key=lambda e: (e.id is None, e.id or 0))
    machine_ids = [v.requirement_id for v in run.verifications if v.verified]  # as composed, before re-checks
    run = reverified(run, problems)
    added = added_evidence(events)
    evidence = [*run.evidence, *added]
    order = {e.requirement_id: i for i, e in enumerate(evidence)}
    score = {v.requirement_id: v.score for v in run.verifications if v.verified}
    machine_set = set(machine_ids)
    items: dict[str, _Item] = {}
    sent_labels: dict[str, ReviewEvent] = {}

    def final_ids() -> list[str]:
        sts = _statuses(run, added, items, problems)
        ids = [s.evidence.requirement_id for s in sts if s.final_status == "supported"]
        # the machine's own ranking first (best score first), then the human's additions in order
        return sorted(ids, key=lambda i: (i not in score, -score.get(i, 0.0), order[i]))

    def against() -> frozenset[str]:
        """A draft's items a reviewer labelled contradicted: their sentences' verdict changes even
        where what is supported does not (a question run's answer only cites supported items)."""
        if run.kind != "draft":
            return frozenset()
        return frozenset(i for i, it in items.items() if it.deciding is not None
                         and it.deciding.label == "contradicted" and i not in problems)

    def answer_for(ids: list[str]) -> Answer:
        if set(ids) == machine_set and not against():
            base = run.answer  # nothing changed: the machine answer is the reader's answer
        elif run.kind == "draft":  # the analyst's words stay; review marks them
            human = {i for i, it in items.items() if it.deciding is not None and it.deciding.label == "supported"}
            base = draft_answer(run, set(ids), human - machine_set, against())
        else:
            marked = {i: it.deciding.reviewer for i, it in items.items()
                      if it.deciding is not None and it.deciding.label == "supported"}
            base = compose_answer(run, evidence, ids, set(marked), marked)
        return _with_sentence_labels(base, sent_labels, len(ids))

    current_ids = machine_ids
    current_against: frozenset[str] = frozenset()
    answer = run.answer
    revisions: list[AnswerRevision] = []

    def settle(cause: list[ReviewEvent]) -> None:
        """Recompose when the supported set (or a draft's contradicted items) changed; an event
        that changes nothing is no cause."""
        nonlocal current_ids, current_against, answer
        ids = final_ids()
        if set(ids) == set(current_ids) and against() == current_against:
            return
        new_answer = answer_for(ids)
        revisions.append(_revision(len(revisions) + 1, answer, new_answer, current_ids, ids, cause))
        current_ids, current_against, answer = ids, against(), new_answer

    settle([])  # the hash re-check alone may already change what is citable
    for ev in events:
        if ev.kind == "correction":  # a review-table cell's answer (workbench.table): no item's status
            continue
        if ev.requirement_id.startswith(SENTENCE_PREFIX):
            n = ev.requirement_id[len(SENTENCE_PREFIX):]
            if n.isdigit() and 1 <= int(n) <= len(answer.sentences):
                text = answer.sentences[int(n) - 1].text
                if ev.label == "reset":
                    sent_labels.pop(text, None)
                else:
                    sent_labels[text] = ev
                answer = answer_for(current_ids)
            continue
        items.setdefault(ev.requirement_id, _Item()).apply(ev)
        settle([ev])
    answer = _human_says_it_answers(answer, {i for i, it in items.items()
                                             if it.deciding is not None and it.deciding.label == "supported"},
                                    len(current_ids))
    statuses = _statuses(run, added, items, problems)
    return ReviewedRun(run=run, event_count=len(events), statuses=statuses, machine_answer=run.answer,
                       answer=answer, revisions=revisions, badge=support_badge(answer.support_ratio, answer.answers_question))


def sentence_verdict(reviewed: ReviewedRun, requirement_id: str) -> FinalStatus | None:
    """The current verdict on answer sentence SENT-n of the reader's answer; None: no such sentence."""
    n = requirement_id[len(SENTENCE_PREFIX):]
    sentences = reviewed.answer.sentences
    if not n.isdigit() or not 1 <= int(n) <= len(sentences):
        return None
    return "supported" if sentences[int(n) - 1].supported else "unsupported"


REVIEW_ORDERS = {"document": "Document order (document, page, position)", "run": "Run order (as extracted)",
                 "uncertainty": "Verifier least sure first", "disagreement": "Reviewer disagreement first"}


def ocr_review_reason(s: EvidenceStatus, low: float) -> str | None:
    """Why an item must be looked at before anything else, or None: its quote is what OCR read on
    a scan and a word of it was read with confidence below `low` (Settings.ocr_low_confidence),
    so the wording itself may be a misreading that neither the anchor nor the verifier can see.
    Only until a human has labelled it: then someone has compared it with the page."""
    sp = s.evidence.span
    if s.human_label is not None or sp is None or sp.ocr_min_confidence is None or sp.ocr_min_confidence >= low:
        return None
    return (f"Read by OCR with low confidence: its least sure word was read at {sp.ocr_min_confidence:.2f} "
            f"(below {low:.2f}; the quote's mean is {sp.ocr_confidence or 0.0:.2f}). Check the wording against "
            "the page image before labelling it.")


def review_order(statuses: list[EvidenceStatus], by: str = "document", *,
                 ocr_low: float | None = None) -> list[EvidenceStatus]:
    """Items in the order a reviewer's hour is best spent. "uncertainty": unreviewed items whose
    verifier score is nearest the 0.5 boundary first (reviewer-added items, already decided by a
    human, last); "disagreement": open conflicts first, then items several reviewers labelled;
    "document": as a reader meets them — by document (in the order the run first cites each), page,
    then character offset, items without a place in the PDF last; "run": as extracted.
    With `ocr_low` (Settings.ocr_low_confidence), in every order the unreviewed quotes OCR read
    with a word below it come first (ocr_review_reason), in that order among themselves: a quote
    whose words may be misread cannot be verified without a human look."""
    ordered = _ordered(statuses, by)
    if ocr_low is None:
        return ordered
    return sorted(ordered, key=lambda s: ocr_review_reason(s, ocr_low) is None)  # stable


def _ordered(statuses: list[EvidenceStatus], by: str) -> list[EvidenceStatus]:
    if by == "document":
        first_seen: dict[str, int] = {}
        for s in statuses:
            first_seen.setdefault(s.evidence.document_id, len(first_seen))

        def key(s: EvidenceStatus) -> tuple:
            span = s.evidence.span
            return (first_seen[s.evidence.document_id], span is None, span.page if span else 0,
                    span.start if span else 0)
    elif by == "uncertainty":
        def key(s: EvidenceStatus) -> tuple:
            margin = abs(s.verification.score - 0.5) if s.verification is not None else 1.0
            return (s.human_label is not None, s.human_added, margin)
    elif by == "disagreement":
        def key(s: EvidenceStatus) -> tuple:
            return (not s.conflict, -len(s.reviewer_labels))
    elif by == "run":
        return list(statuses)
    else:
        raise ValueError(f"unknown review order {by!r}: use one of {', '.join(REVIEW_ORDERS)}")
    return sorted(statuses, key=key)  # stable: document order within ties
