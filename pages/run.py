"""Run: one question or a checklist, a backend, and the pipeline's stages live."""

import time

import streamlit as st

from workbench.models import NO_AUTHORITATIVE_EVIDENCE
from workbench.service import backend_names
from workbench.ui import safe, state
from workbench.ui.widgets import (
    STAGE_NAMES,
    confidence_badge,
    default_documents,
    documents_label,
    show_error,
    stage_table,
)
from workbench.ui.workspace import get_workbench

DONE = ("finished", "failed")  # a job that ended (workbench.jobs)

st.title("Run")
wb = get_workbench()
docs = wb.documents()
if not docs:
    st.info("No documents yet. Upload PDFs or load the sample on the **Documents** page.")
    st.page_link(state.PAGE_DOCUMENTS, label="Go to Documents", icon=":material/description:")
    st.stop()

by_id = {d.id: d for d in docs}
# The selection outlives the page (widget state is dropped when another page is shown).
if "run_docs_widget" not in st.session_state:
    remembered = [d for d in st.session_state.get(state.RUN_DOCS, []) if d in by_id]
    st.session_state["run_docs_widget"] = remembered or default_documents(wb, by_id)
doc_ids = st.multiselect("Documents", list(by_id), key="run_docs_widget",
                         format_func=lambda i: f"{by_id[i].title or by_id[i].filename} ({by_id[i].pages} p.)")
st.session_state[state.RUN_DOCS] = doc_ids
mode = st.radio("Ask", ["One question", "Checklist"], horizontal=True, label_visibility="collapsed")
if mode == "One question":
    text = st.text_area("Question", placeholder="e.g. How often must audit logs be reviewed?", height=90)
    questions = [text.strip()] if text.strip() else []
else:
    text = st.text_area("Checklist (one question per line)", height=160,
                        placeholder="What is required for multifactor authentication?\nHow long are logs kept?")
    upload = st.file_uploader("…or upload a checklist (.txt, one question per line)", type=["txt"])
    lines = text.splitlines()
    if upload is not None:
        lines += upload.getvalue().decode("utf-8", errors="replace").splitlines()
    questions = [q.strip() for q in lines if q.strip()]
    if questions:
        st.caption(f"{len(questions)} question(s).")
backends = backend_names()
backend = st.selectbox("Backend", backends, index=backends.index(wb.settings.backend)
                       if wb.settings.backend in backends else 0,
                       help="rules: embedded and offline. openai: any OpenAI-compatible endpoint "
                            "(OPENAI_BASE_URL, OPENAI_API_KEY).")

clicked = st.button("Run", type="primary", icon=":material/play_arrow:")
st.caption("A run goes on in the background: you may leave this page or reload it, and the finished run is "
           "stored either way. The first question about a newly ingested document also builds its search "
           "index (about a minute for a 100-page PDF on a small machine).")
if clicked and not doc_ids:
    st.error("Choose at least one document to search.")
elif clicked and not questions:
    st.error("Type a question (or a checklist, one question per line) first.")
elif clicked:
    try:
        job = wb.submit("ask", questions=questions, document_ids=doc_ids, backend=backend, identity=state.identity())
    except Exception as e:  # noqa: BLE001 - user errors worded by the service, bugs shown as such
        show_error(e)
    else:
        st.session_state[state.JOB_QUESTIONS] = {**st.session_state.get(state.JOB_QUESTIONS, {}),
                                                 job.job_id: questions}
        st.session_state[state.WATCHED_JOB] = job.job_id


def follow(job_id: str) -> list[str]:
    """Show a job's stages live until it ends (this page may be left at any time: the job goes
    on in the background). Returns the ids of the runs it stored."""
    info = wb.job(job_id)
    questions = st.session_state.get(state.JOB_QUESTIONS, {}).get(job_id, [])
    overall = st.progress(0.0, text="Waiting for the run to start…")
    box = st.status("Running…", expanded=True)
    heading, table = box.empty(), box.empty()
    seen, seen_at, shown_at = -1, time.monotonic(), 0.0
    while True:
        info = wb.job(job_id)
        events = wb.job_events(job_id)
        now = time.monotonic()
        if len(events) != seen:
            seen, seen_at = len(events), now
        if events and (seen_at == now or now - shown_at >= 1.0):  # new events, or a running stage's clock
            shown_at = now
            last = events[-1]
            if last.question_total > 1:
                q = questions[last.question_index] if last.question_index < len(questions) else ""
                heading.markdown(f"**Question {last.question_index + 1} of {last.question_total}:** "
                                 f"{safe.text(q)}")
            frame = stage_table(events, running_for=now - seen_at)
            if frame is not None:
                table.table(frame, hide_index=True)
            overall.progress(min(max(info.progress, 0.0), 1.0),
                             text=f"Question {last.question_index + 1} of {last.question_total}: "
                                  f"{STAGE_NAMES.get(last.stage, last.stage)} {last.status}")
        if info.status in DONE:
            break
        time.sleep(0.25)
    if info.status == "failed":
        box.update(label="Run failed", state="error")
        st.error(f"The run failed: {safe.text(info.error)}", icon=":material/error:")
        return []
    took = (info.ended_at - info.started_at).total_seconds() if info.ended_at and info.started_at else 0.0
    overall.progress(1.0, text=f"{len(info.run_ids)} question(s) done in {took:.1f} s")
    box.update(label="All stages complete", state="complete", expanded=True)
    return list(info.run_ids)


# A run started here (or before a reload: the workspace's own list of jobs) is followed until it
# ends, then its results are shown.
jobs = [j for j in wb.job_list() if j.kind == "ask"]
active = [j for j in jobs if j.status not in DONE]
watched = st.session_state.get(state.WATCHED_JOB)
if active:
    target = next((j for j in active if j.job_id == watched), active[-1])
    if len(active) > 1:
        st.caption(f"{len(active)} runs are queued or running; they run one after another.")
    st.session_state[state.WATCHED_JOB] = target.job_id
    run_ids = follow(target.job_id)
    if run_ids:
        st.session_state[state.LAST_RUN_IDS] = run_ids
        state.select_run(run_ids[0])
    if len(active) > 1:
        st.rerun()
elif watched:
    try:
        info = wb.job(watched)
    except Exception:  # noqa: BLE001 - a job from before a server restart: its runs are stored anyway
        info = None
    if info is not None and info.status in DONE and info.run_ids != st.session_state.get(state.LAST_RUN_IDS):
        if info.status == "finished":
            st.session_state[state.LAST_RUN_IDS] = list(info.run_ids)
            if info.run_ids:
                state.select_run(info.run_ids[0])
        else:
            st.error(f"The last run failed: {safe.text(info.error)}", icon=":material/error:")
elif jobs and not st.session_state.get(state.LAST_RUN_IDS):
    st.session_state[state.LAST_RUN_IDS] = list(jobs[0].run_ids)  # after a reload: the latest finished run

last = st.session_state.get(state.LAST_RUN_IDS) or []
if last:
    st.subheader("Results")
    for run_id in last:
        try:
            rr = wb.reviewed(run_id)
        except Exception as e:  # noqa: BLE001
            show_error(e)
            continue
        run, answer = rr.run, rr.answer
        verified = sum(1 for v in run.verifications if v.verified)
        with st.container(border=True):
            st.markdown(f"**{safe.text(run.question)}**")
            st.caption(f"{safe.text(documents_label(run.document_ids, by_id))} · {len(run.evidence)} extracted · "
                       f"{verified} verified · {len(run.evidence) - verified} rejected · {safe.text(run.run_id)}")
            if answer.result == NO_AUTHORITATIVE_EVIDENCE:
                st.markdown(":red-badge[:material/block: No authoritative evidence]")
                st.caption("None of the documents holds a verified quote that answers this: no claim is made.")
            else:
                st.markdown(confidence_badge(answer) + f" · grounding confidence **{answer.grounding_confidence}**")
                if answer.final_answer:
                    safe.plain(answer.final_answer)
            for f in run.failures:
                st.error(f"The {safe.text(run.backend)} backend failed in the {safe.text(f.stage)} stage: "
                         f"{safe.text(f.message)}. "
                         "The audit trail keeps the raw reply; fix the backend or use the offline rules backend.",
                         icon=":material/error:")
            if run.stage_timings:
                st.caption("Stage timings: " + " · ".join(f"{STAGE_NAMES.get(k, k)} {v:.2f} s"
                                                          for k, v in run.stage_timings.items()))
            c1, c2 = st.columns(2)
            c1.page_link(state.PAGE_ANSWER, label="Answer", icon=":material/article:",
                         query_params=state.deep_link_params(run.run_id))
            c2.page_link(state.PAGE_REVIEW, label="Review evidence", icon=":material/rule:",
                         query_params=state.deep_link_params(run.run_id))
