"""Answer: the composed answer with citation chips (click one to review that evidence), the
confidence badge (seed 004), unsupported sentences and the quality review. Human labels apply."""

import pandas as pd
import streamlit as st

from workbench.models import NO_AUTHORITATIVE_EVIDENCE
from workbench.ui import safe, state
from workbench.ui.citations import answer_with_chips, chip_sources
from workbench.ui.widgets import confidence_badge, run_picker
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
        st.table(pd.DataFrame([{
            "Revision": r.revision, "Events": ", ".join(map(str, r.triggered_by)) or "hash re-check",
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

st.markdown(
    confidence_badge(answer)
    + f" &nbsp; Grounding confidence: **{answer.grounding_confidence}**"
    + f" · citation coverage {round(answer.citation_coverage * 100)} %"
)
cited = answer_with_chips(answer, statuses, key=f"answer_{run.run_id}", sources=chip_sources(reviewed))
if cited:
    state.select_evidence(run.run_id, cited)
    st.switch_page(state.PAGE_REVIEW, query_params=state.deep_link_params(run.run_id, cited))
st.caption("Click an evidence ID to see its quote highlighted in the PDF. Struck-through IDs were marked unsupported.")
if reviewed.revisions:
    show_revisions()




def label_sentence(sentence_id: str, value: str) -> None:
    name = state.reviewer()
    if not name:
        st.session_state["answer_flash"] = "Enter your **Reviewer name** in the sidebar first."
        return
    wb.review(run.run_id, sentence_id, value, name)


unsupported = [s for s in answer.sentences if not s.supported]
c1, c2 = st.columns(2, gap="large")
with c1:
    st.markdown(f"**Unsupported sentences** ({len(unsupported)} of {len(answer.sentences)})")
    if unsupported:
        for s in unsupported:
            st.markdown(f"- :red[{safe.text(s.text)}]  \n  *{safe.text(s.reason or 'no verified evidence cited')}*")
    else:
        st.caption("Every sentence cites supported evidence.")
    if answer.missing_evidence:
        st.markdown("**Missing evidence**\n" + "\n".join(f"- {safe.text(m)}" for m in answer.missing_evidence))
with c2:
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
            c = st.columns([7, 2, 2, 1.4], vertical_alignment="center")
            note = f"  \n:gray[{safe.text(s.reason)}]" if s.reason.startswith("labelled ") \
                or " marked supported by " in s.reason else ""
            c[0].markdown(f"{i}. {':red[' + safe.text(s.text) + ']' if not s.supported else safe.text(s.text)}{note}")
            c[1].button("Supported", key=f"sent_sup_{i}", on_click=label_sentence, args=(sid, "supported"),
                        icon=":material/thumb_up:", width="stretch")
            c[2].button("Unsupported", key=f"sent_uns_{i}", on_click=label_sentence, args=(sid, "unsupported"),
                        icon=":material/thumb_down:", width="stretch")
            c[3].button("Reset", key=f"sent_rst_{i}", on_click=label_sentence, args=(sid, "reset"), width="stretch")
