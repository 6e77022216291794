"""A checked draft (a run of kind "draft", seed 004) as Markdown, HTML or JSON: the support-ratio
badge with the sentences counted by verdict ("2 supported, 1 contradicted, 1 not stated"), then
each sentence in the analyst's words with its final verdict (human labels applied): supported,
contradicted (in red, "Contradicted by" the clause that says otherwise) or not stated; the check's
score and reason, and its citation: the evidence ID, document, page and the quote.
A quote read by OCR says so where its page is named. A report of the check, not an answer the
workbench vouches for: unsupported sentences are kept and marked, so no export gate applies."""

from __future__ import annotations

import html
import json

from workbench.export.common import doc_title
from workbench.export.report import _md_value, where
from workbench.models import Document, ReviewedRun, verdict_counts, verdict_summary
from workbench.text import strip_citations

MEDIA = {"md": "text/markdown; charset=utf-8", "html": "text/html; charset=utf-8", "json": "application/json"}
BADGE_WORDS = {"green": "well supported", "amber": "partially supported", "red": "weakly supported"}


def draft_rows(rr: ReviewedRun, documents: dict[str, Document]) -> dict:
    """The checked draft as plain data (the JSON export; the other formats read it)."""
    statuses = {s.evidence.requirement_id: s for s in rr.statuses}
    ans = rr.answer
    sentences = []
    for i, s in enumerate(ans.sentences, 1):
        cites = []
        for rid in s.citations:
            st = statuses.get(rid)
            if st is None:
                continue
            sp = st.evidence.span
            doc = documents.get(st.evidence.document_id)
            cites.append({"requirement_id": rid, "document_id": st.evidence.document_id,
                          "document": doc_title(doc, st.evidence.document_id),
                          "page": sp.page if sp else None, "page_label": sp.page_label if sp else None,
                          "start": sp.start if sp else None, "end": sp.end if sp else None,
                          "text_sha256": sp.text_sha256 if sp else None, "quote": st.evidence.exact_quote,
                          "read_by_ocr": bool(sp and sp.read_by_ocr),
                          "ocr_confidence": sp.ocr_confidence if sp else None,
                          "ocr_min_confidence": sp.ocr_min_confidence if sp else None,
                          "where": where(st), "final_status": st.final_status})
        sentences.append({"n": i, "sentence": strip_citations(s.text), "verdict": s.verdict, "supported": s.supported,
                          "score": s.score, "reason": s.reason, "citations": cites})
    counts = verdict_counts(ans.sentences)
    return {"run_id": rr.run.run_id, "title": rr.run.question, "created_at": rr.run.created_at.isoformat(),
            "documents": [{"document_id": d, "document": doc_title(documents.get(d), d)} for d in rr.run.document_ids],
            "support_ratio": ans.support_ratio, "badge": rr.badge, "badge_words": BADGE_WORDS[rr.badge],
            "supported": sum(s["supported"] for s in sentences), "contradicted": counts["contradicted"],
            "not_stated": counts["not_stated"], "verdicts": verdict_summary(ans.sentences),
            "sentences_total": len(sentences),
            "review_events": rr.event_count, "sentences": sentences, "draft": rr.run.draft}


MARKS = {"supported": "Supported", "contradicted": "CONTRADICTED", "not_stated": "NOT STATED"}
# what the cited span is to the sentence: it states it, says otherwise, or is only the closest passage
CITED_AS = {"supported": "Supported by", "contradicted": "Contradicted by", "not_stated": "Closest passage"}


def _md(data: dict) -> str:
    lines = [f"# Checked draft: {_md_value(data['title'])}", "",
             f"**{round(data['support_ratio'] * 100)} % of sentences supported** "
             f"({data['supported']}/{data['sentences_total']}: {data['verdicts']}; {data['badge_words']}). "
             f"Run {data['run_id']}, {data['created_at'][:19]} UTC, {data['review_events']} review event(s).", ""]
    for s in data["sentences"]:
        mark = MARKS[s["verdict"]]
        score = "" if s["score"] is None else f", score {s['score']:.2f}"
        refs = ", ".join(c["requirement_id"] for c in s["citations"])
        lines.append(f"{s['n']}. {_md_value(s['sentence'])}" + (f" [{refs}]" if refs else ""))
        lines.append(f"   - **{mark}**{score}: {_md_value(s['reason'])}")
        for c in s["citations"]:
            lines.append(f"   - {CITED_AS[s['verdict']]} {c['requirement_id']} ({_md_value(c['document'])}, "
                         f"{c['where']}, {c['final_status']}): “{_md_value(c['quote'])}”")
    lines += ["", "## Sources", ""]
    lines += [f"- {_md_value(d['document'])} (SHA-256 {d['document_id']})" for d in data["documents"]]
    return "\n".join(lines) + "\n"


def _html(data: dict) -> str:
    e = html.escape
    colour = {"green": "#2e9e5b", "amber": "#e6a23c", "red": "#c33"}[data["badge"]]
    rows = []
    for s in data["sentences"]:
        v = s["verdict"]
        cites = "".join(
            f'<li>{e(CITED_AS[v])} <b>{e(c["requirement_id"])}</b> ({e(c["document"])}, {e(c["where"])}, '
            f"{e(c['final_status'])}): <q>{e(c['quote'])}</q></li>" for c in s["citations"])
        score = "" if s["score"] is None else f", score {s['score']:.2f}"
        refs = ", ".join(e(c["requirement_id"]) for c in s["citations"])
        rows.append(
            f'<li class="{e(v.replace("_", "-"))}">{e(s["sentence"])}'
            + (f" [{refs}]" if refs else "")
            + f"<br><b>{e(MARKS[v].capitalize())}</b>{score}: {e(s['reason'])}"
            + f"<ul>{cites}</ul></li>")
    docs = "".join(f"<li>{e(d['document'])} (SHA-256 {e(d['document_id'])})</li>" for d in data["documents"])
    return ("<!doctype html><html><head><meta charset=\"utf-8\"><title>Checked draft: "
            f"{e(data['title'])}</title><style>body{{font-family:sans-serif;max-width:50em;margin:2em auto}}"
            ".not-stated{background:#fff0f0}.contradicted{background:#fdd;color:#a00}"
            ".contradicted q{color:#a00;font-weight:bold}"
            ".badge{color:#fff;padding:2px 8px;border-radius:8px}</style>"
            f"</head><body><h1>Checked draft: {e(data['title'])}</h1>"
            f'<p><span class="badge" style="background:{colour}">{round(data["support_ratio"] * 100)} % of '
            f"sentences supported</span> ({data['supported']}/{data['sentences_total']}: {e(data['verdicts'])}; "
            f"{e(data['badge_words'])}). Run {e(data['run_id'])}, {e(data['created_at'][:19])} UTC.</p>"
            f"<ol>{''.join(rows)}</ol><h2>Sources</h2><ul>{docs}</ul></body></html>\n")


def render_draft(rr: ReviewedRun, documents: dict[str, Document], fmt: str) -> tuple[bytes, str, str]:
    """(bytes, media type, extension) of the checked draft in `fmt` (md, html or json)."""
    data = draft_rows(rr, documents)
    if fmt == "json":
        text = json.dumps(data, indent=2, ensure_ascii=False)
    elif fmt == "html":
        text = _html(data)
    elif fmt == "md":
        text = _md(data)
    else:
        raise ValueError(f"unknown draft export format {fmt!r}")
    return text.encode("utf-8"), MEDIA[fmt], fmt
