"""Answer: the composed answer with citation chips (click one to review that evidence), the
confidence badge (seed 004), sentences whose evidence another verified item contradicts, unsupported
sentences and the quality review. Human labels apply."""

import pandas as pd
import streamlit as st

from workbench.models import NO_AUTHORITATIVE_EVIDENCE
from workbench.ui import safe, state
from workbench.ui.citations import answer_with_chips, chip_sources, cited_ids
from workbench.ui.viewer import evidence_highlights, pdf_viewer, viewer_documents
from workbench.ui.widgets import confidence_badge, reading_layout, run_picker
from workbench.ui.workspace import get_workbench

st.title("Answer")
wb = get_workbench()
run = run_picker(wb, key="answer_run")
if run is None:
    st.stop()
state.write_query_params(run.run_id)

reviewed = wb.reviewed(run.run_id)  # one read: header, chips, table and quality rows agree
answer = reviewed.answer
statuses = {s.evidence.requirement_id: s.final_status for s in reviewed.statuses}


def show_revisions() -> None:
    """The machine answer and each recomposition, with the review events that caused it."""
    revs = reviewed.revisions
    st.info(f"**Revised after review** ({len(revs)} revision{'s' if len(revs) != 1 else ''}): the answer above is "
            "recomposed from the evidence's final statuses. The machine answer stays below.",
            icon=":material/history:")
    with st.expander("Machine answer and revisions"):
        st.markdown("**Machine answer** (as the pipeline composed it)")
        safe.plain(reviewed.machine_answer.final_answer or reviewed.machine_answer.result or "(none)")
        who = {e.id: e.reviewer for e in wb.history(run.run_id)}
        st.table(pd.DataFrame([{
            "Revision": r.revision,
            "By": ", ".join(dict.fromkeys(safe.text(who[i]) for i in r.triggered_by if i in who)) or "—",
            "Events": ", ".join(map(str, r.triggered_by)) or "hash re-check",
            "Now citable": ", ".join(r.now_citable), "No longer citable": ", ".join(r.no_longer_citable),
            "Sentences dropped": len(r.dropped_sentences), "Sentences added": len(r.added_sentences),
            "Support": f"{r.support_ratio:.0%}", "Confidence": r.grounding_confidence,
        } for r in revs]), hide_index=True)


st.markdown(f"### {safe.text(run.question)}")
if run.failures:  # a failed backend stage is never presented as a finding about the documents
    st.error(f"**A backend stage failed.** {safe.text(answer.message)}", icon=":material/error:")
if answer.result == NO_AUTHORITATIVE_EVIDENCE and run.failures and not answer.final_answer:
    st.stop()
if answer.result == NO_AUTHORITATIVE_EVIDENCE:
    st.error(
        "**No authoritative evidence.** None of the selected documents contains a verified quote that answers "
        "this question, so the workbench makes no claim. " + safe.text(answer.message),
        icon=":material/block:",
    )
    if answer.missing_evidence:
        st.markdown("**Missing evidence:**\n" + "\n".join(f"- {safe.text(m)}" for m in answer.missing_evidence))
    if statuses:
        st.caption(f"{len(statuses)} item(s) were extracted; none is supported. The Review page shows why — a "
                   "reviewer can mark one Supported if the verifier was wrong, or add a passage the run missed.")
    else:
        st.caption("Nothing was extracted. On the Review page a reviewer can select a passage in the PDF and add it "
                   "as evidence if the run missed it.")
    if statuses:
        st.page_link(state.PAGE_REVIEW, label="Review the evidence", icon=":material/rule:",
                     query_params=state.deep_link_params(run.run_id))
    if not (answer.sentences or answer.final_answer):
        if reviewed.revisions:  # review took the answer away: what the machine said stays visible
            show_revisions()
        st.stop()

reading_layout()
# The PDF beside the answer gets two thirds: at 1440 × 900 with the sidebar open "Fit width" draws
# a contract's 10 pt text at least 11 px tall (three fifths drew it 10.5 px).
left, right = st.columns([0.34, 0.66], gap="small")
with left:
    st.markdown(
        confidence_badge(answer)
        + f" &nbsp; Grounding confidence: **{answer.grounding_confidence}**"
        + f" · citation coverage {round(answer.citation_coverage * 100)} %"
    )
    by_id = {s.evidence.requirement_id: s for s in reviewed.statuses}
    chip_ids = [i for i in cited_ids(answer) if i in by_id]
    shown_id = st.session_state.get(state.EVIDENCE)
    if shown_id not in by_id:
        shown_id = next((i for i in chip_ids if by_id[i].evidence.span), chip_ids[0] if chip_ids else None)
    cited = answer_with_chips(answer, statuses, key=f"answer_{run.run_id}", current=shown_id,
                              sources=chip_sources(reviewed))
    if cited and cited in by_id:  # no viewer took the click (another document): show it from here
        state.select_evidence(run.run_id, cited)
        shown_id = cited
    st.caption("Click an evidence ID to see its quote highlighted in the PDF beside the answer. Struck-through IDs "
               "were marked unsupported.")
    if reviewed.revisions:
        show_revisions()

    def says_otherwise(s) -> None:
        """Under a sentence: each verified item that contradicts the evidence it cites, in its words."""
        for x in s.contradicted_by:
            other = by_id.get(x.other)
            quote = other.evidence.exact_quote if other else ""
            st.caption(f":red[:material/block: **{safe.text(x.other)} says otherwise** than {safe.text(x.cited)} "
                       f"(p {x.probability:.2f}):] “{safe.text(quote)}”" + (f" — {safe.text(x.reason)}" if x.reason else ""))

    conflicted = [(i, s) for i, s in enumerate(answer.sentences, 1) if s.contradicted_by]
    if conflicted:
        st.markdown(f"**Evidence that says otherwise** ({len(conflicted)} of {len(answer.sentences)} sentences)")
        for i, s in conflicted:
            st.markdown(f"{i}. {safe.text(s.text)}")
            says_otherwise(s)

    def label_sentence(sentence_id: str, value: str) -> None:
        name = state.reviewer()
        if not name:
            st.session_state["answer_flash"] = "Enter your **Reviewer name** in the sidebar first."
            return
        wb.review(run.run_id, sentence_id, value, name)

    unsupported = [s for s in answer.sentences if not s.supported]
    st.markdown(f"**Unsupported sentences** ({len(unsupported)} of {len(answer.sentences)})")
    if unsupported:
        for s in unsupported:
            st.markdown(f"- :red[{safe.text(s.text)}]  \n  *{safe.text(s.reason or 'no verified evidence cited')}*")
    else:
        st.caption("Every sentence cites supported evidence.")
    if answer.missing_evidence:
        st.markdown("**Missing evidence**\n" + "\n".join(f"- {safe.text(m)}" for m in answer.missing_evidence))
    st.markdown("**Quality review**")
    if answer.quality:
        st.table(pd.DataFrame([{"Check": q.check, "Result": "passed" if q.passed else "FAILED", "Detail": safe.text(q.detail)}
                               for q in answer.quality]), hide_index=True)
    else:
        st.caption("No quality findings recorded.")
    if answer.unused_requirements:
        st.caption("Verified but not cited: " + ", ".join(safe.text(r) for r in answer.unused_requirements))
    vouched = [s.reason for s in answer.sentences if " marked supported by " in s.reason]
    if vouched:
        st.caption("Cited on a reviewer's word: " + "; ".join(safe.text(r) for r in vouched))

    if answer.sentences:
        with st.expander("Label answer sentences — a human label overrides the support check"):
            flash = st.session_state.pop("answer_flash", None)
            if flash:
                st.error(flash)
            for i, s in enumerate(answer.sentences, 1):
                sid = f"SENT-{i}"
                c = st.columns([7, 2, 2, 2, 1.4], vertical_alignment="center")
                note = f"  \n:gray[{safe.text(s.reason)}]" if s.reason.startswith("labelled ") \
                    or " marked supported by " in s.reason else ""
                c[0].markdown(f"{i}. {':red[' + safe.text(s.text) + ']' if not s.supported else safe.text(s.text)}{note}")
                with c[0]:
                    says_otherwise(s)
                c[1].button("Supported", key=f"sent_sup_{i}", on_click=label_sentence, args=(sid, "supported"),
                            icon=":material/thumb_up:", width="stretch")
                c[2].button("Unsupported", key=f"sent_uns_{i}", on_click=label_sentence, args=(sid, "unsupported"),
                            icon=":material/thumb_down:", width="stretch")
                c[3].button("Contradicted", key=f"sent_con_{i}", on_click=label_sentence,
                            args=(sid, "contradicted"), icon=":material/block:", width="stretch",
                            help="The documents say otherwise")
                c[4].button("Reset", key=f"sent_rst_{i}", on_click=label_sentence, args=(sid, "reset"), width="stretch")


def answer_selected(ev_id: str) -> None:
    """The viewer shows a chip's evidence already: remember it (a reload, or Review, opens it)."""
    if ev_id in by_id:
        state.select_evidence(run.run_id, ev_id)


with right, st.container(key="wb_viewer_pane"):
    status = by_id.get(shown_id) if shown_id else None
    if status is None:
        st.caption("This answer cites no evidence: nothing to show in the PDF.")
    else:
        ev = status.evidence
        docs = {d.id: d for d in wb.documents()}
        # Every cited item's boxes, in whichever document: a chip of another document is shown by
        # the viewer itself, without a rerun.
        shown = [by_id[i].evidence for i in dict.fromkeys([*chip_ids, ev.requirement_id])]
        pdf_viewer(ev.document_id, evidence_highlights(shown),
                   documents=viewer_documents(wb, [ev.document_id, *(e.document_id for e in shown if e.span)],
                                              {k: d.filename for k, d in docs.items()}),
                   target=ev.requirement_id, page=ev.span.page if ev.span else None,
                   scroll_token=st.session_state.get(state.SCROLL_TOKEN, 0), height=None, fill_offset=110,
                   key="answer_viewer", order=chip_ids, on_select=answer_selected,
                   # the caption (document, item, its page) follows a chip at once: the viewer writes it
                   cites={e.requirement_id: e.span.cite for e in shown if e.span},
                   ocr_low=wb.settings.ocr_low_confidence)
        st.page_link(state.PAGE_REVIEW, label=f"Review {ev.requirement_id}", icon=":material/rule:",
                     query_params=state.deep_link_params(run.run_id, ev.requirement_id))
