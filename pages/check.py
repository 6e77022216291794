"""Check a draft (seed 004): paste or upload a drafted answer, pick documents, and see each
sentence checked — supported, contradicted (in red, with the clause that says otherwise) or not
stated, score, deciding evidence with a link to its highlighted span in Review — under the
support-ratio badge and the count of each verdict; relabel sentences; export the checked draft."""

import streamlit as st

from workbench.models import verdict_counts, verdict_summary
from workbench.service import without_citations
from workbench.ui import safe, state
from workbench.ui.widgets import badge_level, default_documents, show_error
from workbench.ui.workspace import get_workbench

DRAFT_RUN = "check_draft_run"  # the checked draft shown (a run id)
FORMAT_NAMES = {"md": "Markdown", "html": "HTML", "json": "JSON"}

st.title("Check a draft")
wb = get_workbench()
docs = wb.documents()
if not docs:
    st.info("No documents yet. Upload PDFs or load the sample on the **Documents** page.")
    st.page_link(state.PAGE_DOCUMENTS, label="Go to Documents", icon=":material/description:")
    st.stop()

by_id = {d.id: d for d in docs}
with st.form("check_draft_form", border=True):
    if "check_docs_widget" not in st.session_state:  # a fresh session: the last check's documents
        st.session_state["check_docs_widget"] = default_documents(wb, by_id, "draft") or default_documents(wb, by_id)
    doc_ids = st.multiselect("Documents", list(by_id), key="check_docs_widget",
                             format_func=lambda i: f"{by_id[i].title or by_id[i].filename} ({by_id[i].pages} p.)")
    text = st.text_area("Draft", height=180, key="check_draft_text",
                        placeholder="Paste the drafted answer (plain text or Markdown): each sentence is checked.")
    upload = st.file_uploader("…or upload it (.txt or .md)", type=["txt", "md", "markdown"], key="check_draft_upload")
    c = st.columns(2)
    title = c[0].text_input("Title (optional)", key="check_draft_title")
    markdown = c[1].toggle("Read as Markdown", value=True, key="check_draft_markdown",
                           help="Headings and code blocks are skipped; list markers, emphasis and links are removed. "
                                "Off: every line is text.")
    submitted = st.form_submit_button("Check the draft", type="primary", icon=":material/fact_check:")
if submitted:
    draft = text
    if upload is not None:
        draft = (draft + "\n\n" if draft.strip() else "") + upload.getvalue().decode("utf-8", errors="replace")
    # Ctrl+Enter in the draft submits the form; a click on the button just after must not store
    # the same check twice.
    submission = (draft, tuple(doc_ids), title, markdown)
    if submission == st.session_state.get("check_draft_last") and st.session_state.get(DRAFT_RUN):
        st.info("This draft was just checked with these documents: its result is below.", icon=":material/info:")
        submitted = False
if submitted:
    try:
        with st.spinner("Checking each sentence against the documents…"):
            run = wb.check_draft(draft, doc_ids, title=title or (upload.name if upload is not None else None),
                                 markdown=markdown)
    except Exception as e:  # noqa: BLE001 - user errors worded by the service
        show_error(e)
    else:
        st.session_state[DRAFT_RUN] = run.run_id
        st.session_state["check_draft_last"] = submission

drafts = sorted((r for r in wb.runs() if r.kind == "draft"), key=lambda r: r.created_at, reverse=True)
if not drafts:
    st.caption("Checked drafts appear here, newest first.")
    st.stop()
names = {r.run_id: f"{r.question} · {r.created_at:%Y-%m-%d %H:%M} · {r.run_id}" for r in drafts}
if st.session_state.get(DRAFT_RUN) not in names:
    st.session_state[DRAFT_RUN] = drafts[0].run_id
run_id = st.selectbox("Checked draft", list(names), format_func=names.get, key=DRAFT_RUN)
rr = wb.reviewed(run_id)
answer = rr.answer
statuses = {s.evidence.requirement_id: s for s in rr.statuses}

counts = verdict_counts(answer.sentences)
color, words, icon = badge_level(answer.support_ratio)
with st.container(key="draft_badge"):
    st.markdown(f":{color}-badge[{icon} {words} · {round(answer.support_ratio * 100)} % of sentences supported] "
                + (f":red-badge[:material/block: {counts['contradicted']} contradicted] " if counts["contradicted"] else "")
                + f"&nbsp; {len(answer.sentences)} sentence(s): {verdict_summary(answer.sentences)} "
                "by the selected documents.")


def relabel(n: int, label: str) -> None:
    try:
        wb.review(run_id, f"SENT-{n}", label, state.reviewer(), identity=state.identity())
    except Exception as e:  # noqa: BLE001 - shown on the next run
        st.session_state["check_draft_error"] = e


err = st.session_state.pop("check_draft_error", None)
if err is not None:
    show_error(err)

for n, s in enumerate(answer.sentences, 1):
    with st.container(border=True, key=f"draft_sentence_{n}"):
        head = st.columns([5, 1])
        against = s.verdict == "contradicted"
        sentence = safe.text(without_citations(s.text))
        head[0].markdown(f"**{n}.** " + (f":red[{sentence}]" if against else sentence))
        verdict = {"supported": ":green-badge[:material/check: Supported]",
                   "contradicted": ":red-badge[:material/block: Contradicted]"}.get(
            s.verdict, ":orange-badge[:material/help: Not stated]")
        score = "" if s.score is None else f" score {s.score:.2f}"
        head[1].markdown(verdict + score)
        st.caption(safe.text(s.reason))
        for rid in s.citations:
            item = statuses.get(rid)
            if item is None:
                continue
            sp = item.evidence.span
            doc = by_id.get(item.evidence.document_id)
            where = f"{safe.text(doc.title or doc.filename) if doc else rid}, {safe.text(sp.cite) if sp else 'not located'}"
            if against:  # the clause that says otherwise, in red (its words as text, never Markdown)
                st.markdown(f":red[**Contradicted by {rid}** ({where}, {item.final_status}):]")
                st.markdown(f":red[“{safe.text(item.evidence.exact_quote)}”]")
            else:
                st.markdown(f"{'Supported by' if s.supported else 'Closest passage'} **{rid}** ({where}, "
                            f"{item.final_status}):")
                safe.plain(item.evidence.exact_quote)
            st.page_link(state.PAGE_REVIEW, label=f"Open {rid} in Review", icon=":material/open_in_new:",
                         query_params=state.deep_link_params(run_id, rid))
        b = st.columns([1, 1, 1, 1, 2])
        b[0].button("Supported", key=f"draft_sup_{run_id}_{n}", on_click=relabel, args=(n, "supported"),
                    icon=":material/thumb_up:")
        b[1].button("Unsupported", key=f"draft_uns_{run_id}_{n}", on_click=relabel, args=(n, "unsupported"),
                    icon=":material/thumb_down:", help="Not stated by the documents")
        b[2].button("Contradicted", key=f"draft_con_{run_id}_{n}", on_click=relabel, args=(n, "contradicted"),
                    icon=":material/block:", help="The documents say otherwise")
        b[3].button("Reset", key=f"draft_reset_{run_id}_{n}", on_click=relabel, args=(n, "reset"),
                    icon=":material/undo:")

st.subheader("Export the checked draft")
cols = st.columns(len(FORMAT_NAMES))
for col, (fmt, name) in zip(cols, FORMAT_NAMES.items(), strict=True):
    try:
        data, mime, ext = wb.export_draft(run_id, fmt)
    except Exception as e:  # noqa: BLE001
        show_error(e)
        continue
    col.download_button(name, data, file_name=f"checked-draft-{run_id}.{ext}", mime=mime, key=f"draft_export_{fmt}",
                        icon=":material/download:")
with st.expander("The draft as given"):
    safe.plain(rr.run.draft or "")
