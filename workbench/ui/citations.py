"""The composed answer with each [REQ-…] as a clickable citation chip (its text is the ID).

A components-v2 element: the chips sit inline in the sentences. A click is first offered to a
PDF viewer on the same page (a "wb:evidence" event, workbench/ui/selection.py), which shows the
quote at once and tells the app itself; only when no viewer takes it does the click come back to
Python as a one-run trigger."""

from __future__ import annotations

import re
from collections.abc import Callable

import streamlit as st

from workbench.models import Answer
from workbench.text.citations import ID_PATTERN, SENTENCE_ID_PATTERN

# A citation is a bracket of one or more IDs: [REQ-P001] or [REQ-P001, REQ-P010].
_ID = rf"(?:{ID_PATTERN}|{SENTENCE_ID_PATTERN})"
CITATION = re.compile(rf"\[({_ID}(?:\s*,\s*{_ID})*)\]")

_JS = "const CIT = /" + CITATION.pattern.replace("/", "\\/") + "/g;" + r"""
function render(root, data, onCite) {
  root.innerHTML = "";
  for (const s of data.sentences) {
    const span = document.createElement("span");
    span.className = "wb-sent" + (s.supported ? "" : " unsupported");
    if (!s.supported && s.reason) span.title = "Unsupported: " + s.reason;
    let last = 0;
    for (const m of s.text.matchAll(CIT)) {
      span.appendChild(document.createTextNode(s.text.slice(last, m.index)));
      for (const id of m[1].split(/\s*,\s*/)) {  // one chip per cited ID
        const b = document.createElement("button");
        b.type = "button";
        b.className = "wb-chip" + (data.status[id] ? " " + data.status[id] : "") + (id === data.current ? " current" : "");
        b.dataset.citation = id;
        b.textContent = id;
        b.title = "Open " + id + " in Review";
        b.addEventListener("click", () => {
          const detail = { id, handled: false };
          window.dispatchEvent(new CustomEvent("wb:evidence", { detail }));
          for (const c of root.querySelectorAll(".wb-chip.current")) c.classList.remove("current");
          for (const c of root.querySelectorAll(`.wb-chip[data-citation="${id}"]`)) c.classList.add("current");
          if (!detail.handled) onCite(id);
        });
        span.appendChild(b);
      }
      last = m.index + m[0].length;
    }
    span.appendChild(document.createTextNode(s.text.slice(last) + " "));
    root.appendChild(span);
  }
}
export default function ({ data, parentElement, setTriggerValue }) {
  const root = parentElement.querySelector(".wb-answer");
  if (root) render(root, data, id => setTriggerValue("cite", id));
}
"""

_CSS = """
.wb-answer { font: inherit; font-size: 1.05rem; line-height: 1.75; color: inherit; }
.wb-sent.unsupported { background: rgba(255, 75, 75, .10); border-bottom: 2px dotted #d33; }
.wb-chip { display: inline-block; margin: 0 2px; padding: 0 7px; border-radius: 10px; cursor: pointer;
  border: 1px solid #6b8fd6; background: #eef3ff; color: #1d4fb8; font: 600 .8rem/1.5 monospace; }
.wb-chip:hover { background: #d9e5ff; }
.wb-chip.current { outline: 2px solid #d9480f; outline-offset: 1px; }
.wb-chip.unsupported { border-color: #d33; background: #ffecec; color: #a11; text-decoration: line-through; }
"""

_component = st.components.v2.component(
    "evidence_workbench.answer_text", html='<div class="wb-answer"></div>', css=_CSS, js=_JS, isolate_styles=True
)


def answer_sentences(answer: Answer) -> list[dict]:
    if answer.sentences:
        return [{"text": s.text, "supported": s.supported, "reason": s.reason} for s in answer.sentences]
    return [{"text": answer.final_answer, "supported": True, "reason": ""}] if answer.final_answer else []


def cited_ids(answer: Answer) -> list[str]:
    seen: dict[str, None] = {}
    for s in answer_sentences(answer):
        for m in CITATION.finditer(s["text"]):
            for i in re.split(r"\s*,\s*", m.group(1)):
                seen.setdefault(i, None)
    return list(seen)


def answer_with_chips(answer: Answer, status: dict[str, str], *, key: str,
                      on_cite: Callable[[], None] | None = None, current: str | None = None) -> str | None:
    """Render the answer; returns the ID of the chip clicked in this run, if any (a click a
    viewer on the page took is not). `status` maps an evidence ID to its final status
    ("supported"/"unsupported"); `current`: the evidence shown now, its chips outlined."""
    result = _component(key=key, data={"sentences": answer_sentences(answer), "status": status, "current": current},
                        on_cite_change=on_cite or (lambda: None))
    return getattr(result, "cite", None)
