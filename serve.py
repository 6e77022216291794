"""Entry file for `streamlit run serve.py`: the app (app.py) plus the page-image route the
PDF viewer loads from. Streamlit detects the st.App below and serves it with uvicorn."""

# Heavy imports happen once at server start instead of during the first visitor's page load:
# PyMuPDF ≈1.4 s, pandas ≈0.9 s, plotly ≈0.3 s on this machine. (Not st_aggrid: imported before
# the runtime exists, its component is never registered and the grid stays empty.)
import pandas  # noqa: F401
import plotly.express  # noqa: F401
import pymupdf  # noqa: F401
import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

import workbench.service  # noqa: F401
from workbench.ui import boot
from workbench.ui.viewer.routes import ROUTES

# app.py uses st.navigation. Without this, Streamlit's legacy `pages/` folder detection runs the
# very first session of a fresh server in the old multipage mode, so a deep link like
# /review?run=… opened first would run pages/review.py without app.py (no sidebar, no state).
PagesManager.uses_pages_directory = False

# The pages' URLs first: a deep link connects without Streamlit's 0.1 s guess at the base path (boot.py).
app = st.App("app.py", routes=[*boot.routes(), *ROUTES])
