"""Every session-state key and query parameter the app uses, in one place, plus the few
helpers that move the selection between them (deep links: ?run=…&evidence=…)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

# Query parameters (deep links)
QP_RUN = "run"
QP_EVIDENCE = "evidence"

# Session state
REVIEWER = "reviewer_name"  # sidebar text input, asked once (sign-in off)
REVIEWER_KEPT = "reviewer_name_kept"  # the same name outside the widget (survives a page switch)
IDENTITY = "signed_in_identity"  # sign-in on: the Identity (as a dict) of who signed in
ADJUDICATE = "review_adjudicate"  # Review: record the next label as an adjudication
RUN = "selected_run"  # run id shown on Review / Answer / Dashboard / Export
EVIDENCE = "selected_evidence"  # requirement id highlighted on Review
SCROLL_TOKEN = "viewer_scroll_token"  # bumped on every selection so the viewer re-scrolls
GRID_SELECTION = "grid_last_selection"  # last row the grid reported, to tell new clicks apart
LAST_RUN_IDS = "last_run_ids"  # runs created by the latest click on Run
RUN_DOCS = "run_document_selection"  # the Run page's documents, kept while other pages are shown
WATCHED_JOB = "watched_job"  # the background job (workbench.jobs) the Run page follows
JOB_QUESTIONS = "job_questions"  # job id -> its questions, for the live heading
INGEST_RESULTS = "ingest_results"  # per uploaded file: document or error, shown until next upload
PENDING_PASSWORDS = "pending_passwords"  # uploaded files waiting for a password: name -> bytes
NOTE = "review_note"
UPLOAD_NONCE = "upload_nonce"  # bumped to clear the uploader after ingest
QP_SEEN = "query_params_seen"  # {"page", "seen": the (run, evidence) pairs this page has read or written}
TABLE = "selected_table"  # the review table shown on the Table page
TABLE_CELL = "selected_table_cell"  # (row key, column key) of the cell shown under the grid

# Page scripts, for st.Page / st.switch_page / st.page_link. Absolute, so the app also runs
# from an entry file elsewhere (the AppTest tests do that: see tests/ui/test_pages.py).
PAGES_DIR = Path(__file__).resolve().parents[2] / "pages"
FAVICON = Path(__file__).resolve().parent / "favicon.png"
PAGE_DOCUMENTS = str(PAGES_DIR / "documents.py")
PAGE_RUN = str(PAGES_DIR / "run.py")
PAGE_REVIEW = str(PAGES_DIR / "review.py")
PAGE_ANSWER = str(PAGES_DIR / "answer.py")
PAGE_CHECK = str(PAGES_DIR / "check.py")
PAGE_TABLE = str(PAGES_DIR / "table.py")
PAGE_DASHBOARD = str(PAGES_DIR / "dashboard.py")
PAGE_EXPORT = str(PAGES_DIR / "export.py")


def sync_from_query_params(page: str) -> None:
    """Adopt ?run=…&evidence=… from the URL (a deep link, a reload, a link to another page) into
    the session. A pair this page has already read or written is an echo, not news: the browser
    sends its URL with every rerun, and a J/K pressed before the last run's URL reached it sends
    the one before, which must not move the selection back."""
    qp = st.query_params
    run_id = qp.get(QP_RUN)
    ev = qp.get(QP_EVIDENCE)
    seen = _seen_on(page)
    if (run_id, ev) in seen:
        return
    _remember(seen, (run_id, ev))
    if run_id and run_id != st.session_state.get(RUN):
        st.session_state[RUN] = run_id
        st.session_state[EVIDENCE] = None
    if ev and ev != st.session_state.get(EVIDENCE):
        select_evidence(st.session_state.get(RUN), ev)


def _seen_on(page: str) -> list:
    """The (run, evidence) pairs read or written on this page since it was entered."""
    mem = st.session_state.get(QP_SEEN)
    if not isinstance(mem, dict) or mem.get("page") != page:
        mem = st.session_state[QP_SEEN] = {"page": page, "seen": []}
    return mem["seen"]


def _remember(seen: list, pair: tuple) -> None:
    if pair in seen:
        seen.remove(pair)
    seen.append(pair)
    del seen[:-64]


def select_run(run_id: str | None) -> None:
    if run_id != st.session_state.get(RUN):
        st.session_state[RUN] = run_id
        st.session_state[EVIDENCE] = None


def select_evidence(run_id: str | None, requirement_id: str | None) -> None:
    """Make this the evidence shown (and scrolled to) in the viewer."""
    if run_id:
        st.session_state[RUN] = run_id
    st.session_state[EVIDENCE] = requirement_id
    st.session_state[SCROLL_TOKEN] = st.session_state.get(SCROLL_TOKEN, 0) + 1


def deep_link_params(run_id: str | None, requirement_id: str | None = None) -> dict[str, str]:
    out = {}
    if run_id:
        out[QP_RUN] = run_id
    if requirement_id:
        out[QP_EVIDENCE] = requirement_id
    return out


def write_query_params(run_id: str | None, requirement_id: str | None = None) -> None:
    """Keep the URL naming what is on screen, so it can be copied and reloaded."""
    want = deep_link_params(run_id, requirement_id)
    mem = st.session_state.get(QP_SEEN)
    if isinstance(mem, dict):
        _remember(mem["seen"], (run_id, requirement_id))
    if dict(st.query_params) != want:
        st.query_params.from_dict(want)


def identity():
    """The signed-in Identity (sign-in on), else None."""
    from workbench.models import Identity

    raw = st.session_state.get(IDENTITY)
    return Identity(**raw) if raw else None


def reviewer() -> str:
    """Who the next decision is recorded for: the signed-in name, else the sidebar's."""
    ident = identity()
    return ident.name if ident else (st.session_state.get(REVIEWER) or "").strip()
