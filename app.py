"""Evidence Workbench: the Streamlit app. Run it with `make run` (or `streamlit run serve.py`,
which adds the page-image route the PDF viewer needs)."""

import streamlit as st

from workbench.ui import sign_in, state
from workbench.ui.reviewer_memory import remember_reviewer
from workbench.ui.widgets import running_jobs_panel
from workbench.ui.workspace import get_workbench

# A local icon: a ":material/…" page icon makes the browser fetch the favicon from Google Fonts.
st.set_page_config(page_title="Evidence Workbench", page_icon=str(state.FAVICON), layout="wide")

wb = get_workbench()
if wb.settings.sign_in:  # identity from a login, not a name box; nothing shown before it
    who = sign_in.current(wb)
    if who is None:
        sign_in.form(wb)
        st.stop()
    with st.sidebar:
        sign_in.sidebar(wb, who)
else:
    # A page switch (a citation chip, st.switch_page) can start the next page's run before the
    # browser re-sends the sidebar's value: keep the name outside the widget too and put it back.
    if state.REVIEWER not in st.session_state and st.session_state.get(state.REVIEWER_KEPT):
        st.session_state[state.REVIEWER] = st.session_state[state.REVIEWER_KEPT]
    with st.sidebar:
        st.text_input(
            "Reviewer name",
            key=state.REVIEWER,
            placeholder="e.g. Dana Reviewer",
            help="Recorded on every review decision you make; this browser remembers it.",
        )
        remember_reviewer()
    st.session_state[state.REVIEWER_KEPT] = st.session_state.get(state.REVIEWER, "")

pages = [
    st.Page(state.PAGE_DOCUMENTS, title="Documents", icon=":material/description:", default=True),
    st.Page(state.PAGE_RUN, title="Run", icon=":material/play_circle:"),
    st.Page(state.PAGE_TABLE, title="Table", icon=":material/table_chart:"),
    st.Page(state.PAGE_REVIEW, title="Review", icon=":material/rule:"),
    st.Page(state.PAGE_ANSWER, title="Answer", icon=":material/article:"),
    st.Page(state.PAGE_CHECK, title="Check a draft", icon=":material/fact_check:"),
    st.Page(state.PAGE_DASHBOARD, title="Dashboard", icon=":material/monitoring:"),
    st.Page(state.PAGE_EXPORT, title="Export", icon=":material/download:"),
]
page = st.navigation(pages)
state.sync_from_query_params(page.title)
if page.title != "Run":  # the Run page follows its runs itself
    with st.sidebar:
        running_jobs_panel(wb)
if page.title == "Documents" and st.query_params.get(state.QP_EVIDENCE):
    # /?run=…&evidence=… (a hand-made or shortened deep link) opens Review, like /review?….
    st.switch_page(state.PAGE_REVIEW, query_params=dict(st.query_params))
page.run()
