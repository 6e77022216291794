"""Markdown and HTML report: per run the answer with numbered citations, its confidence (seed
004's badge thresholds), the safety-gate outcome, the quotes with page references and both
verdicts, what a human changed; then one bibliography of the source documents. A quote read by
OCR says so beside its page ("p. 2 (read by OCR, confidence 0.87, lowest word 0.41)"), and a
document with pages read by OCR says which in its bibliography entry."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import UTC

from workbench.export.bundle import ExportBundle, RunBundle
from workbench.export.common import authors, citation_numbers, date_parts, doc_title, ocr_note, ocr_pages_note
from workbench.models import NO_AUTHORITATIVE_EVIDENCE, EvidenceStatus
from workbench.text import CITATION_RE, ID_RE


def badge(support: float) -> str:
    """Seed 004: ≥75 % well supported, 40–74 % partially, below 40 % weakly."""
    if support >= 0.75:
        return "well supported"
    if support >= 0.40:
        return "partially supported"
    return "weakly supported"


def pages_ref(st: EvidenceStatus) -> str:
    sp = st.evidence.span
    if sp is None:
        return "not located in the PDF"
    pages = sp.pages or [sp.page]
    if len(pages) == 1:
        return sp.cite  # "p. 28 (PDF p. 40)": the printed number an auditor checks, and where it is in the file
    if sp.page_label and sp.page_label != str(sp.page):
        return f"p. {sp.page_label} f. (PDF pp. {pages[0]}–{pages[-1]})"
    return f"pp. {pages[0]}–{pages[-1]}"


def where(st: EvidenceStatus) -> str:
    """The page reference, and for a quote OCR read, that it did and how sure it was."""
    note = ocr_note(st.evidence.span)
    return pages_ref(st) + (f" ({note})" if note else "")


def verdict_text(st: EvidenceStatus) -> str:
    v = st.verification
    reason = f", {_md_value(v.rejection_reason)}" if v and v.rejection_reason else ""
    out = f"**{st.final_status}** (verifier: {st.verifier_verdict}{reason}"
    if st.human_label:
        out += f"; human: {st.human_label}" + (f" by {_md_value(st.reviewer)}" if st.reviewer else "")
    out += ")"
    if st.note:
        out += f" — note: {_md_value(st.note)}"
    return out


@dataclass
class _Ctx:
    bundle: ExportBundle
    numbers: dict[tuple[str, str], int]


def _numbered(rb: RunBundle, ctx: _Ctx) -> list[tuple[int, EvidenceStatus]]:
    """The run's evidence in citation-number order (cited first, as the answer cites them)."""
    return sorted(((ctx.numbers[(rb.run.run_id, st.evidence.requirement_id)], st) for st in rb.statuses),
                  key=lambda x: x[0])


def _numbered_answer(rb: RunBundle, ctx: _Ctx, link, escape) -> str:
    """The answer text escaped for the target format, each [REQ-…] group turned into numbered links."""
    run_id = rb.run.run_id
    out, pos = [], 0
    text = rb.effective_answer.final_answer or ""
    for m in CITATION_RE.finditer(text):
        out.append(escape(text[pos:m.start()]))
        refs = []
        for rid in ID_RE.findall(m.group(0)):
            n = ctx.numbers.get((run_id, rid))
            refs.append(link(n, rid) if n else escape(f"{rid}?"))
        out.append("[" + ", ".join(refs) + "]")
        pos = m.end()
    out.append(escape(text[pos:]))
    return "".join(out)


def _support(rb: RunBundle, bundle: ExportBundle) -> float:
    """The support the gate measured (after human labels) when it ran, else the answer's own."""
    d = next((g for g in bundle.gate if g.run_id == rb.run.run_id), None)
    return d.support_ratio if d is not None else rb.effective_answer.support_ratio


def _gate_lines(rb: RunBundle, bundle: ExportBundle) -> list[str]:
    d = next((g for g in bundle.gate if g.run_id == rb.run.run_id), None)
    if d is None:
        return []
    if d.no_authoritative_evidence:
        return ["Safety gate: passed (no claims made: no authoritative evidence)."]
    head = (f"Safety gate: {'passed' if d.passed else 'BLOCKED'} — evidence coverage {d.evidence_coverage:.0%} "
            f"(min {d.min_coverage:.0%}), support {d.support_ratio:.0%} (min {d.min_support:.0%}).")
    lines = [head]
    if not d.passed and bundle.forced:
        f = bundle.forced
        lines.append(f"FORCED EXPORT by {f.by} at {_when(f.at)}: {f.reason}")
    lines += d.needs_human_check
    return lines


def _human_changes(rb: RunBundle) -> list[str]:
    out = []
    for e in rb.history:
        before = e.previous_label or f"verifier {e.verifier_verdict or '?'}"
        note = f" — {e.note}" if e.note else ""
        if e.kind == "correction":  # a review-table cell's answer, as the reviewer states it
            said = f"corrected the table cell to “{e.value}”" if e.value else "withdrew the cell correction"
            out.append(f"{_when(e.timestamp)} {e.reviewer}: {said}{note}")
            continue
        out.append(f"{_when(e.timestamp)} {e.reviewer}: {e.requirement_id} {before} → {e.label}{note}")
    return out


def _when(dt) -> str:
    """A timestamp a reader takes in at a glance: to the second, in UTC."""
    return dt.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC") if dt.tzinfo else dt.strftime("%Y-%m-%d %H:%M:%S")


def _end(text: str) -> str:
    """Text closed with one full stop (none added after ., ! or ?)."""
    text = text.rstrip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _bib_entries(bundle: ExportBundle) -> list[tuple[str, str, list[str]]]:
    """(document_id, title, [detail lines]) for each cited document."""
    out = []
    for doc_id in bundle.cited_document_ids():
        doc = bundle.document(doc_id)
        details = []
        names = authors(doc.author if doc else None)
        details.append("Author: " + ("; ".join(names) if names else "not stated in the PDF"))
        bib = doc.bib if doc else None
        parts = date_parts(bib.issued if bib and bib.issued else (doc.created if doc else None))
        details.append("Date: " + ("-".join(f"{p:02d}" if i else str(p) for i, p in enumerate(parts)) if parts
                                   else "not stated in the PDF"))
        if bib and bib.report_number:
            details.append(f"Report number: {bib.report_number}")
        if bib and bib.doi:
            details.append(f"DOI: {bib.doi}")
        if doc:
            details.append(f"File: {doc.filename} ({doc.pages} pages, SHA-256 {doc_id})")
        else:
            details.append(f"SHA-256 {doc_id}")
        read = ocr_pages_note(doc)
        if read:
            details.append(read[0].upper() + read[1:])
        details.append("Pages cited: " + (", ".join(map(str, bundle.pages_cited(doc_id))) or "none"))
        out.append((doc_id, (bib.title if bib and bib.title else None) or doc_title(doc, doc_id), details))
    return out


def _md_escape(text: str) -> str:
    """Backslash-escape what starts Markdown, HTML, entities, strikethrough or math in a line."""
    return re.sub(r"([\\`*_\[\]<>#|!&~$])", r"\\\1", text)


def _md_value(text: str | None) -> str:
    """A value that is not the workbench's own (a reviewer, a note, a model's words) on one line:
    escaped, and its line breaks cannot open a heading, a list or an HTML block."""
    return _md_escape(" ".join((text or "").split()))


def to_markdown(bundle: ExportBundle) -> bytes:
    ctx = _Ctx(bundle, citation_numbers(bundle))
    titles = {d: t for d, t, _ in _bib_entries(bundle)}
    lines = ["# Evidence Workbench report", "", f"Generated {_when(bundle.generated_at)} by {bundle.generator}.", ""]
    if bundle.forced:
        lines += [f"> **Forced export** by {_md_value(bundle.forced.by)} at {_when(bundle.forced.at)}: "
                  f"{_end(_md_value(bundle.forced.reason))} The safety gate blocked this answer; "
                  "read the reasons below before relying on it.", ""]
    for rb in bundle.runs:
        ans = rb.effective_answer
        lines += [f"## {_md_value(rb.run.question)}", "", f"Run `{rb.run.run_id}`.", ""]
        if ans.result == NO_AUTHORITATIVE_EVIDENCE:
            lines += [f"**{NO_AUTHORITATIVE_EVIDENCE}**: {_md_value(ans.message or 'No authoritative evidence found.')}", ""]
            lines += [f"- Missing evidence: {_md_value(m)}" for m in ans.missing_evidence] + [""]
        else:
            body = _numbered_answer(rb, ctx, lambda n, rid: f"[{n}](#ev-{n})", _md_escape)
            lines += [body, ""]
            sup = _support(rb, bundle)
            lines += [f"Confidence: **{ans.grounding_confidence}**; {badge(sup)} "
                      f"({sup:.0%} of sentences supported).", ""]
        gate = _gate_lines(rb, bundle)
        if gate:
            lines += [f"- {_md_value(g)}" for g in gate] + [""]
        if rb.statuses:
            lines += ["### Evidence", ""]
            for n, st in _numbered(rb, ctx):
                quote = st.evidence.span.text if st.evidence.span else st.evidence.exact_quote
                lines += [f'<a id="ev-{n}"></a>**[{n}]** `{st.evidence.requirement_id}` '
                          f"“{_md_escape(' '.join(quote.split()))}” — "
                          f"*{_md_value(titles.get(st.evidence.document_id, st.evidence.document_id[:12]))}*, "
                          f"{where(st)} — {verdict_text(st)}", ""]
        changes = _human_changes(rb)
        lines += ["### What a human changed", ""]
        lines += [f"- {_md_value(c)}" for c in changes] if changes else ["- Nothing: no review events."]
        lines.append("")
    lines += ["## Bibliography", ""]
    for i, (_doc_id, title, details) in enumerate(_bib_entries(bundle), 1):
        lines.append(f"{i}. *{_md_value(title.rstrip('.'))}*. " + " ".join(_end(_md_value(d)) for d in details))
    return ("\n".join(lines).rstrip() + "\n").encode("utf-8")


_CSS = """body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;line-height:1.5;color:#222}
.supported{color:#1b7a1b}.unsupported{color:#b3261e}.badge{padding:.1rem .5rem;border-radius:.6rem;color:#fff}
.well{background:#1b7a1b}.partially{background:#b87900}.weakly{background:#b3261e}
.forced{border:2px solid #b3261e;padding:.5rem 1rem;background:#fdecea}
blockquote{margin:.3rem 0 .3rem 1rem;color:#444;border-left:3px solid #ccc;padding-left:.6rem}"""


def to_html(bundle: ExportBundle) -> bytes:
    e = html.escape
    ctx = _Ctx(bundle, citation_numbers(bundle))
    bib = _bib_entries(bundle)
    titles = {d: t for d, t, _ in bib}
    out = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>Evidence Workbench report</title>", f"<style>{_CSS}</style></head><body>",
           "<h1>Evidence Workbench report</h1>",
           f"<p>Generated {e(_when(bundle.generated_at))} by {e(bundle.generator)}.</p>"]
    if bundle.forced:
        f = bundle.forced
        out.append(f'<p class="forced"><strong>Forced export</strong> by {e(f.by)} at {e(_when(f.at))}: '
                   f"{e(_end(f.reason))} The safety gate blocked this answer; read the reasons below before relying on it.</p>")
    for rb in bundle.runs:
        ans = rb.effective_answer
        out += [f"<section><h2>{e(rb.run.question)}</h2>", f"<p>Run <code>{e(rb.run.run_id)}</code>.</p>"]
        if ans.result == NO_AUTHORITATIVE_EVIDENCE:
            out.append(f"<p><strong>{NO_AUTHORITATIVE_EVIDENCE}</strong>: "
                       f"{e(ans.message or 'No authoritative evidence found.')}</p>")
            if ans.missing_evidence:
                out.append("<ul>" + "".join(f"<li>Missing evidence: {e(m)}</li>" for m in ans.missing_evidence) + "</ul>")
        else:
            body = _numbered_answer(rb, ctx, lambda n, rid: f'<a href="#ev-{n}" title="{rid}">{n}</a>', e)
            sup = _support(rb, bundle)
            level = badge(sup)
            out.append(f'<p class="answer">{body}</p>')
            out.append(f"<p>Confidence: <strong>{e(ans.grounding_confidence)}</strong> "
                       f'<span class="badge {level.split()[0]}">{level}</span> '
                       f"({sup:.0%} of sentences supported).</p>")
        gate = _gate_lines(rb, bundle)
        if gate:
            out.append("<ul class=\"gate\">" + "".join(f"<li>{e(g)}</li>" for g in gate) + "</ul>")
        if rb.statuses:
            out.append("<h3>Evidence</h3><ol class=\"evidence\">")
            for n, st in _numbered(rb, ctx):
                quote = st.evidence.span.text if st.evidence.span else st.evidence.exact_quote
                v = st.verification
                reason = f", {v.rejection_reason}" if v and v.rejection_reason else ""
                human = (f"; human: {e(st.human_label)}" + (f" by {e(st.reviewer)}" if st.reviewer else "")
                         if st.human_label else "")
                note = f" — note: {e(st.note)}" if st.note else ""
                out.append(
                    f'<li id="ev-{n}" value="{n}"><code>{e(st.evidence.requirement_id)}</code> '
                    f"<em>{e(titles.get(st.evidence.document_id, st.evidence.document_id[:12]))}</em>, {e(where(st))} — "
                    f'<strong class="{st.final_status}">{st.final_status}</strong> '
                    f"(verifier: {e(st.verifier_verdict)}{e(reason)}{human}){note}"
                    f"<blockquote>{e(' '.join(quote.split()))}</blockquote></li>")
            out.append("</ol>")
        changes = _human_changes(rb)
        out.append("<h3>What a human changed</h3><ul>"
                   + ("".join(f"<li>{e(c)}</li>" for c in changes) or "<li>Nothing: no review events.</li>") + "</ul>")
        out.append("</section>")
    out.append("<h2>Bibliography</h2><ol class=\"bibliography\">")
    for _doc_id, title, details in bib:
        out.append(f"<li><em>{e(title.rstrip('.'))}</em>. " + " ".join(e(_end(d)) for d in details) + "</li>")
    out.append("</ol></body></html>")
    return "\n".join(out).encode("utf-8")
