"""The one Workbench per server process. Pages get it through `get_workbench()` (a
st.cache_resource); the page-image route, which runs outside any script, through
`shared_workbench()`. Both are the same object, so caches are shared. Its settings say whether
sign-in is on: this process's setting, or the store's record that sign-in is required."""

from __future__ import annotations

import threading

import streamlit as st

from workbench.config import get_settings
from workbench.service import Workbench

_lock = threading.Lock()
_instance: Workbench | None = None


def shared_workbench() -> Workbench:
    global _instance
    with _lock:
        if _instance is None or _instance.settings.data_dir != get_settings().data_dir:
            wb = Workbench(get_settings())
            if not wb.settings.sign_in and wb.sign_in_required():
                # The store requires sign-in (an account exists, or a server with sign-in on has
                # used it): this server signs in too, whatever its own setting, so the pages and
                # the page-image routes are closed like the actions the service already refuses.
                wb = Workbench(wb.settings.model_copy(update={"sign_in": True}))
            _instance = wb
            # Index what the workspace holds (e.g. the sample) while the first visitor looks around.
            _instance.prepare([d.id for d in _instance.documents()])
        return _instance


@st.cache_resource(show_spinner=False)
def _cached(data_dir: str) -> Workbench:
    return shared_workbench()


def get_workbench() -> Workbench:
    """The workspace for this server, keyed by data dir (tests switch WORKBENCH_DATA_DIR)."""
    return _cached(str(get_settings().data_dir))
