"""The reviewer's name survives a browser reload: kept in this browser's localStorage (like a
remembered login name), never in the URL, so a shared deep link cannot record decisions under
someone else's name."""

from __future__ import annotations

import streamlit as st

from workbench.ui import state

_JS = r"""
const KEY = "evidence-workbench.reviewer";
export default function ({ data, parentElement, setTriggerValue }) {
  const mark = parentElement.querySelector("span");  // parentElement is a shadow root: no dataset
  const name = (data && data.name || "").trim();
  if (name) {
    localStorage.setItem(KEY, name);
    mark.dataset.restored = "1";
  } else if (!mark.dataset.restored) {
    mark.dataset.restored = "1";  // once per page load: a cleared field stays cleared
    const stored = localStorage.getItem(KEY);
    if (stored) setTriggerValue("restore", stored);
  }
}
"""

_component = st.components.v2.component(
    "evidence_workbench.reviewer_memory", html="<span></span>", js=_JS, isolate_styles=True
)


def _restore() -> None:
    got = st.session_state.get("reviewer_memory")
    value = getattr(got, "restore", None) or (got.get("restore") if isinstance(got, dict) else None)
    if value and not state.reviewer():
        st.session_state[state.REVIEWER] = value


def remember_reviewer() -> None:
    """Mount after the Reviewer name input: stores what is typed, restores it after a reload."""
    _component(key="reviewer_memory", data={"name": state.reviewer()}, on_restore_change=_restore)
