"""Seed 003's safety gate for exports: an answer whose sentences are not backed by supported
evidence is held back with the reasons ("needs human check: ...") unless someone forces it
with a reason, which the export then carries.

Choices: the gate judges the answer as the reviewer left it (final statuses, human labels
win). Citing is not answering: an answer whose cited evidence does not answer the question
(Answer.answers_question below models.ANSWERS, as the shared judge scores it) is held back too. A NO_AUTHORITATIVE_EVIDENCE run with no answer sentences passes: it states that nothing
was found and makes no claim, so there is nothing ungrounded to hold back; exports print the
statement plainly. An answer whose evidence reviewers rejected entirely (the service then
marks it NO_AUTHORITATIVE_EVIDENCE too) still has sentences, and is blocked on them.
Only formats that carry the answer (json, md, html) are gated; the evidence-level formats
show every item's verdict next to it and the relabel set exists precisely for bad answers."""

from __future__ import annotations

from getpass import getuser

from workbench.errors import ExportBlockedError
from workbench.export.bundle import ExportBundle, ForcedExport, GateDecision, RunBundle
from workbench.models import ANSWERS, NO_AUTHORITATIVE_EVIDENCE, SentenceSupport
from workbench.text import ID_RE, split_sentences

GATED_FORMATS = frozenset({"json", "md", "html"})


def answer_sentences(rb: RunBundle) -> list[SentenceSupport]:
    """The answer's sentences with their citations; split the text when the pipeline left none."""
    ans = rb.effective_answer
    if ans.sentences:
        return ans.sentences
    parts = split_sentences(ans.final_answer or "")
    return [SentenceSupport(text=p, citations=ID_RE.findall(p), supported=bool(ID_RE.search(p))) for p in parts]


def _short(text: str, n: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def evaluate(rb: RunBundle, min_coverage: float, min_support: float) -> GateDecision:
    ans = rb.effective_answer
    run_id = rb.run.run_id
    if ans.result == NO_AUTHORITATIVE_EVIDENCE and not answer_sentences(rb):
        return GateDecision(run_id=run_id, passed=True, evidence_coverage=0.0, support_ratio=0.0,
                            min_coverage=min_coverage, min_support=min_support, no_authoritative_evidence=True)
    final = {s.evidence.requirement_id: s for s in rb.statuses}
    sentences = answer_sentences(rb)
    reasons: list[str] = []
    covered = supported = 0
    for i, sent in enumerate(sentences, 1):
        good = [c for c in sent.citations if c in final and final[c].final_status == "supported"]
        rejected_by_human = [c for c in sent.citations if c in final and final[c].human_label in ("unsupported", "contradicted")]
        covered += bool(good)
        supported += bool(good and sent.supported and not rejected_by_human)
        if not good:
            why = _why_not_covered(sent.citations, final)
            reasons.append(f'needs human check: sentence {i} "{_short(sent.text)}" {why}')
        elif rejected_by_human:
            who = ", ".join(f"{c} marked {final[c].human_label} by {final[c].reviewer or 'a reviewer'}"
                            for c in rejected_by_human)
            reasons.append(f'needs human check: sentence {i} "{_short(sent.text)}" cites evidence a human rejected ({who})')
        elif not sent.supported:
            reasons.append(f'needs human check: sentence {i} "{_short(sent.text)}" is not supported by its evidence'
                           + (f" ({sent.reason})" if sent.reason else ""))
    n = len(sentences)
    coverage = covered / n if n else 0.0
    support = supported / n if n else 0.0
    head: list[str] = []
    if n == 0:
        head.append("needs human check: the answer has no sentences to export")
    else:
        if coverage < min_coverage:
            head.append(f"needs human check: evidence coverage {coverage:.0%} is below {min_coverage:.0%} "
                        f"({covered} of {n} sentences cite supported evidence)")
        if support < min_support:
            head.append(f"needs human check: support {support:.0%} is below {min_support:.0%} "
                        f"({supported} of {n} sentences supported)")
        if ans.answers_question is not None and ans.answers_question < ANSWERS:
            head.append(f"needs human check: none of the cited evidence answers the question (best "
                        f"p={ans.answers_question:.2f}, needs {ANSWERS:.2f}); a reviewer's Supported label settles it")
    passed = not head
    return GateDecision(run_id=run_id, passed=passed, evidence_coverage=round(coverage, 4),
                        support_ratio=round(support, 4), min_coverage=min_coverage, min_support=min_support,
                        needs_human_check=head + reasons if not passed else reasons)


def _why_not_covered(citations: list[str], final: dict) -> str:
    if not citations:
        return "cites no evidence"
    unknown = [c for c in citations if c not in final]
    bad = [c for c in citations if c in final]
    parts = []
    if bad:
        parts.append(", ".join(
            f"{c} is unsupported" + (f" (human: {final[c].reviewer})" if final[c].human_label else " (verifier)")
            for c in bad))
    if unknown:
        parts.append(f"cites unknown IDs {', '.join(unknown)}")
    return "cites no supported evidence: " + "; ".join(parts)


def apply_gate(bundle: ExportBundle, fmt: str, *, min_coverage: float, min_support: float,
               force: bool = False, reason: str | None = None, by: str | None = None) -> ExportBundle:
    """Record the gate's decisions in the bundle; raise ExportBlockedError when an answer format
    is blocked and not forced. Forcing needs a non-empty reason; it is recorded with who/when."""
    if force and not (reason or "").strip():
        raise ExportBlockedError("a forced export needs a reason: say why it may skip the safety gate",
                                 ["a forced export needs a reason"], needs_reason=True)
    decisions = [evaluate(rb, min_coverage, min_support) for rb in bundle.runs]
    bundle.gate = decisions
    blocked = [d for d in decisions if not d.passed]
    if not blocked or fmt not in GATED_FORMATS:
        return bundle
    if not force:
        reasons = [f"{d.run_id}: {r}" if len(decisions) > 1 else r for d in blocked for r in d.needs_human_check]
        shown = "; ".join(reasons[:6]) + (f"; and {len(reasons) - 6} more" if len(reasons) > 6 else "")
        raise ExportBlockedError(f"export blocked by the safety gate: {shown}", reasons)
    bundle.forced = ForcedExport(reason=reason.strip(), by=by or _whoami(), overridden=blocked)
    return bundle


def _whoami() -> str:
    try:
        return getuser()
    except Exception:  # noqa: BLE001 - no login name in some containers
        return "unknown"
