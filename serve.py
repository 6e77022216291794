"""Entry file for `streamlit run serve.py`: the app (app.py) plus the page-image route the
PDF viewer loads from. Streamlit detects the st.App below and serves it with uvicorn."""

import streamlit as st

from workbench.ui.viewer.routes import ROUTES

app = st.App("app.py", routes=ROUTES)
