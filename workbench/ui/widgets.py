"""Small pieces several pages share: the run picker, the confidence badge, error display."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.errors import ReviewerRequiredError, WorkbenchError
from workbench.models import ANSWERS, ANSWERS_WELL, STAGES, Answer, Document, Run, StageEvent, support_badge
from workbench.service import Workbench
from workbench.text.ranges import page_ranges as page_ranges  # pages name page runs as the warnings do ("2-22")
from workbench.ui import safe, state


def documents_label(document_ids: list[str], docs: dict[str, Document] | None) -> str:
    """'policy.pdf' / 'policy.pdf, contract.pdf' / 'policy.pdf +2 more': which documents a run searched."""
    if not docs or not document_ids:
        return ""
    names = [docs[d].filename if d in docs else d[:8] for d in document_ids]
    return ", ".join(names) if len(names) <= 2 else f"{names[0]} +{len(names) - 1} more"


def run_label(run: Run, docs: dict[str, Document] | None = None) -> str:
    """Question · documents searched · when · run id: runs of one question over different
    documents are told apart."""
    q = run.question if len(run.question) <= 70 else run.question[:67] + "…"
    where = documents_label(run.document_ids, docs)
    return f"{q} · {where + ' · ' if where else ''}{run.created_at:%Y-%m-%d %H:%M} · {run.run_id}"


def run_picker(wb: Workbench, key: str) -> Run | None:
    """A select box of stored runs, newest first, following the session's selected run.
    Returns None (and says what to do) when there are no runs yet."""
    runs = sorted(wb.runs(), key=lambda r: r.created_at, reverse=True)
    if not runs:
        st.info("No runs yet. Ask a question on the **Run** page first.")
        st.page_link(state.PAGE_RUN, label="Go to Run", icon=":material/play_circle:")
        return None
    by_id = {r.run_id: r for r in runs}
    current = st.session_state.get(state.RUN)
    if current not in by_id:
        if current:
            st.warning(f"The run named in the link ({safe.text(current)}) is not in this workspace; "
                       "showing the latest run instead.")
        current = runs[0].run_id
        state.select_run(current)
    ids = list(by_id)
    docs = {d.id: d for d in wb.documents()}
    chosen = st.selectbox("Run", ids, index=ids.index(current), format_func=lambda i: run_label(by_id[i], docs),
                          key=key)
    if chosen != current:
        state.select_run(chosen)
    return by_id[chosen]


# Seed 004's badge: ≥75 % well supported (green), 40–74 % partial (amber), <40 % weak (red), capped
# by whether the cited evidence answers the question (models.support_badge).
_BADGE = {"green": ("green", "Well supported", ":material/verified_user:"),
          "amber": ("orange", "Partial", ":material/warning:"),
          "red": ("red", "Weak evidence", ":material/error:")}


def badge_level(ratio: float, answers: float | None = None) -> tuple[str, str, str]:
    return _BADGE[support_badge(ratio, answers)]


def confidence_badge(answer: Answer) -> str:
    """Markdown for the badge: colour, words, the percentage of supported sentences, and how
    likely the cited evidence answers the question when that holds the badge back."""
    color, words, icon = badge_level(answer.support_ratio, answer.answers_question)
    tail = ""
    p = answer.answers_question
    if p is not None and p < ANSWERS_WELL:
        tail = (f" · the cited evidence {'may not answer' if p >= ANSWERS else 'does not answer'} "
                f"the question (p {p:.2f})")
    return f":{color}-badge[{icon} {words} · {round(answer.support_ratio * 100)} % of sentences supported{tail}]"


def show_error(e: Exception) -> None:
    """User errors as the service words them, with the remedy in the app's terms where the
    error leaves that to the front end; anything else is a bug and shown as one."""
    if isinstance(e, ReviewerRequiredError):
        st.error(f"{safe.text(e)}: enter your **Reviewer name** in the sidebar.", icon=":material/error:")
    elif isinstance(e, WorkbenchError):
        st.error(safe.text(e), icon=":material/error:")
    else:
        st.exception(e)


_STAGE_WORDS = {"retrieval": "Retrieval", "extract": "Extract", "verify": "Verify", "compose": "Compose",
                "quality_review": "Quality review", "finalize": "Finalize"}


def running_jobs_panel(wb: Workbench) -> None:
    """In the sidebar of every page: the runs going on in the background and their current stage,
    refreshed every second until they end (then the page reruns once to show what they stored)."""
    active = [j for j in wb.job_list() if j.kind == "ask" and j.status not in ("finished", "failed")]
    if not active:
        return

    @st.fragment(run_every=1.0)
    def panel() -> None:
        jobs = [j for j in wb.job_list() if j.kind == "ask" and j.status not in ("finished", "failed")]
        if not jobs:
            st.rerun(scope="app")
        for j in jobs:
            events = wb.job_events(j.job_id)
            where = ""
            if events:
                ev = events[-1]
                where = (f"question {ev.question_index + 1} of {ev.question_total}: " if ev.question_total > 1
                         else "") + f"{_STAGE_WORDS.get(ev.stage, ev.stage)} {ev.status}"
            st.progress(min(max(j.progress, 0.0), 1.0),
                        text=f":material/sync: Run {'queued' if j.status == 'queued' else 'running'}"
                             + (f" — {where}" if where else ""))
        st.page_link(state.PAGE_RUN, label="Follow on the Run page", icon=":material/play_circle:")

    panel()


STAGE_NAMES = {"retrieval": "Retrieval", "extract": "Extract", "verify": "Verify", "compose": "Compose",
               "quality_review": "Quality review", "finalize": "Finalize"}


def stage_table(events: list[StageEvent], running_for: float = 0.0) -> pd.DataFrame | None:
    """The latest question's stages as a table: status, time, counts, note. `running_for`: the
    seconds since the last event, added to a stage still running, so its time goes on (a
    first question's indexing sat at "0.00" for a minute)."""
    if not events:
        return None
    q = events[-1].question_index
    rows: dict[str, dict] = {}
    for ev in events:
        if ev.question_index != q:
            continue
        row = rows.setdefault(ev.stage, {"Stage": STAGE_NAMES.get(ev.stage, ev.stage), "Counts": ""})
        counts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in ev.counts.items())
        running = ev.status in ("started", "progress")
        took = ev.elapsed + (running_for if running and ev is events[-1] else 0.0)
        row.update({"Status": "running" if running else ev.status,
                    "Time (s)": f"{took:.1f}" if running else f"{ev.elapsed:.2f}", "Counts": counts or row["Counts"],
                    "Note": safe.text(ev.message)})
    frame = pd.DataFrame([rows[s] for s in STAGES if s in rows])
    return frame[["Stage", "Status", "Time (s)", "Counts", "Note"]]


def reading_layout() -> None:
    """Pages that show a PDF beside other content: narrower side padding (the page gets the
    width), and the keyed viewer pane (`wb_viewer_pane`) stays beside the content while the page
    scrolls, as tall as the window (the wrapper Streamlit puts around a keyed container is what
    sticks inside the tall column)."""
    st.html("<style>.stMainBlockContainer { padding-left: 0.75rem; padding-right: 0.75rem; padding-top: 2.5rem;"
            " padding-bottom: 1.5rem; max-width: none; }"
            " div:has(> .st-key-wb_viewer_pane), .st-key-wb_viewer_pane { position: sticky; top: 3.75rem;"
            " z-index: 3; }</style>")


def default_documents(wb: Workbench, by_id: dict[str, Document], kind: str = "question") -> list[str]:
    """The documents a fresh session (a reload) starts with: those of the newest run of this kind
    that are still there, else every document when there is one only, else none (never every
    document: a 113-page sample preselected beside the contract asked about is a slow surprise)."""
    for run in sorted((r for r in wb.runs() if r.kind == kind), key=lambda r: r.created_at, reverse=True):
        kept = [d for d in run.document_ids if d in by_id]
        if kept:
            return kept
    return list(by_id) if len(by_id) == 1 else []


def ingest_done(ingested: int, files: int) -> str:
    """The upload's last progress line: how many files were ingested and how many refused (never
    "Done: 1 file(s)." beside a refused file's error)."""
    refused = files - ingested
    return f"Done: {ingested} of {files} file(s) ingested" + (f", {refused} refused (below)." if refused else ".")
