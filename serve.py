"""Entry file for `streamlit run serve.py`: the app (app.py) plus the page-image route the
PDF viewer loads from. Streamlit detects the st.App below and serves it with uvicorn."""

import pymupdf  # noqa: F401  - imported once at start (≈1.4 s) instead of on the first page request
import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from workbench.ui.viewer.routes import ROUTES

# app.py uses st.navigation. Without this, Streamlit's legacy `pages/` folder detection runs the
# very first session of a fresh server in the old multipage mode, so a deep link like
# /review?run=… opened first would run pages/review.py without app.py (no sidebar, no state).
PagesManager.uses_pages_directory = False

app = st.App("app.py", routes=ROUTES)
