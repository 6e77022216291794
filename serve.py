"""Entry file for `streamlit run serve.py`: the app (app.py) plus the page-image route the
PDF viewer loads from. Streamlit detects the st.App below and serves it with uvicorn."""

import pymupdf  # noqa: F401  - imported once at start (≈1.4 s) instead of on the first page request
import streamlit as st

from workbench.ui.viewer.routes import ROUTES

app = st.App("app.py", routes=ROUTES)
