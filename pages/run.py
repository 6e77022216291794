"""Run: one question or a checklist, a backend, and the pipeline's stages live."""

import time

import pandas as pd
import streamlit as st

from workbench.models import STAGES, StageEvent
from workbench.service import backend_names
from workbench.ui import safe, state
from workbench.ui.widgets import run_label, show_error
from workbench.ui.workspace import get_workbench

STAGE_NAMES = {"retrieval": "Retrieval", "extract": "Extract", "verify": "Verify", "compose": "Compose",
               "quality_review": "Quality review", "finalize": "Finalize"}

st.title("Run")
wb = get_workbench()
docs = wb.documents()
if not docs:
    st.info("No documents yet. Upload PDFs or load the sample on the **Documents** page.")
    st.page_link(state.PAGE_DOCUMENTS, label="Go to Documents", icon=":material/description:")
    st.stop()

by_id = {d.id: d for d in docs}
doc_ids = st.multiselect("Documents", list(by_id), default=list(by_id),
                         format_func=lambda i: f"{by_id[i].title or by_id[i].filename} ({by_id[i].pages} p.)")
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
st.caption("The first question about a newly ingested document also builds its search index (about a minute "
           "for a 100-page PDF on a small machine); later questions start at once.")
if clicked and not doc_ids:
    st.error("Choose at least one document to search.")
elif clicked and not questions:
    st.error("Type a question (or a checklist, one question per line) first.")
elif clicked:
    overall = st.progress(0.0, text=f"Question 1 of {len(questions)}")
    box = st.status("Running…", expanded=True)
    table = box.empty()
    rows: dict[str, dict] = {}
    started = time.monotonic()

    current = {"q": -1}

    def on_event(ev: StageEvent) -> None:
        """Each event updates this question's stage table and the overall progress bar."""
        if ev.question_index != current["q"]:
            current["q"] = ev.question_index
            rows.clear()
            if ev.question_total > 1:
                box.markdown(f"**Question {ev.question_index + 1} of {ev.question_total}:** "
                             f"{safe.text(questions[ev.question_index]) if ev.question_index < len(questions) else ''}")
        row = rows.setdefault(ev.stage, {"Stage": STAGE_NAMES.get(ev.stage, ev.stage), "Counts": ""})
        counts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in ev.counts.items())
        row.update({"Status": "running" if ev.status in ("started", "progress") else ev.status,
                    "Time (s)": f"{ev.elapsed:.2f}", "Counts": counts or row["Counts"], "Note": safe.text(ev.message)})
        frame = pd.DataFrame([rows[s] for s in STAGES if s in rows])
        table.table(frame[["Stage", "Status", "Time (s)", "Counts", "Note"]], hide_index=True)
        finished = ev.stage == "finalize" and ev.status in ("done", "failed")
        step = 1.0 if finished else (STAGES.index(ev.stage) / len(STAGES) if ev.stage in STAGES else 0.0)
        overall.progress(min((ev.question_index + step) / max(ev.question_total, 1), 1.0),
                         text=f"Question {ev.question_index + 1} of {ev.question_total}: "
                              f"{STAGE_NAMES.get(ev.stage, ev.stage)} {ev.status}")

    try:
        runs = wb.ask(questions, doc_ids, backend=backend, on_event=on_event)
    except Exception as e:  # noqa: BLE001 - user errors worded by the service, bugs shown as such
        box.update(label="Run failed", state="error")
        show_error(e)
    else:
        overall.progress(1.0, text=f"{len(runs)} question(s) done in {time.monotonic() - started:.1f} s")
        box.update(label="All stages complete", state="complete", expanded=True)
        st.session_state[state.LAST_RUN_IDS] = [r.run_id for r in runs]
        if runs:
            state.select_run(runs[0].run_id)

last = st.session_state.get(state.LAST_RUN_IDS) or []
if last:
    st.subheader("Results")
    for run_id in last:
        try:
            run = wb.run(run_id)
        except Exception as e:  # noqa: BLE001
            show_error(e)
            continue
        verified = sum(1 for v in run.verifications if v.verified)
        with st.container(border=True):
            st.markdown(f"**{safe.text(run.question)}**")
            st.caption(f"{len(run.evidence)} extracted · {verified} verified · "
                       f"{len(run.evidence) - verified} rejected · confidence: {run.answer.grounding_confidence}"
                       f" · {run_label(run).rsplit(' · ', 1)[-1]}")
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
