"""The composed answer with each [REQ-…] as a clickable citation chip (its text is the ID).

A components-v2 element: the chips sit inline in the sentences. A click is first offered to a
PDF viewer on the same page (a "wb:evidence" event, workbench/ui/selection.py), which shows the
quote at once and tells the app itself; only when no viewer takes it does the click come back to
Python as a one-run trigger."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

import streamlit as st

from workbench.models import Answer, ReviewedRun
from workbench.text.citations import ID_PATTERN, SENTENCE_ID_PATTERN

# A citation is a bracket of one or more IDs: [REQ-P001] or [REQ-P001, REQ-P010].
_ID = rf"(?:{ID_PATTERN}|{SENTENCE_ID_PATTERN})"
CITATION = re.compile(rf"\[({_ID}(?:\s*,\s*{_ID})*)\]")

_JS = "const CIT = /" + CITATION.pattern.replace("/", "\\/") + "/g;" + r"""
function render(root, data, onCite) {
  root.innerHTML = "";
  let block = root, prev = null;
  for (const s of data.sentences) {
    if (s.source !== prev) {  // a run over several documents: one paragraph per document
      block = s.source ? root.appendChild(document.createElement("div")) : root;
      if (s.source) block.className = "wb-doc";
      prev = s.source;
    }
    const span = document.createElement("span");
    span.className = "wb-sent" + (s.supported ? "" : " unsupported");
    if (!s.supported && s.reason) span.title = "Unsupported: " + s.reason;
    let last = 0;
    if (s.prefix && s.text.startsWith(s.prefix)) {  // "In the Adams Golf Endorsement Agreement: "
      const src = span.appendChild(document.createElement("span"));
      src.className = "wb-src";
      src.textContent = s.prefix;
      last = s.prefix.length;
    }
    for (const m of s.text.matchAll(CIT)) {
      span.appendChild(document.createTextNode(s.text.slice(last, m.index)));
      for (const id of m[1].split(/\s*,\s*/)) {  // one chip per cited ID
        const b = document.createElement("button");
        b.type = "button";
        b.className = "wb-chip" + (data.status[id] ? " " + data.status[id] : "") + (id === data.current ? " current" : "");
        b.dataset.citation = id;
        b.textContent = id;
        const src = (data.sources || {})[id];  // a run over several documents: the chip names its own
        if (src) b.dataset.source = src;
        b.title = "Open " + id + (src ? " (" + src + ")" : "") + " in Review";
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
    block.appendChild(span);
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
.wb-doc { margin: 0 0 .6em; }
.wb-src { font-weight: 600; }
.wb-chip:hover { background: #d9e5ff; }
.wb-chip.current { outline: 2px solid #d9480f; outline-offset: 1px; }
.wb-chip.unsupported { border-color: #d33; background: #ffecec; color: #a11; text-decoration: line-through; }
"""

_component = st.components.v2.component(
    "evidence_workbench.answer_text", html='<div class="wb-answer"></div>', css=_CSS, js=_JS, isolate_styles=True
)


def answer_sentences(answer: Answer, titles: Iterable[str] = ()) -> list[dict]:
    """The sentences to render; with `titles` (a run over several documents), each sentence's
    document (`source`) and the words that name it (`prefix`, compose.named), so the page shows
    one paragraph per document with its name set off."""
    from workbench.pipeline.compose import source_prefix

    prefixes = {t: source_prefix(t) for t in titles}

    def source(text: str) -> tuple[str | None, str | None]:
        return next(((t, p) for t, p in prefixes.items() if text.startswith(p)), (None, None))

    if answer.sentences:
        out = [{"text": s.text, "supported": s.supported, "reason": s.reason} for s in answer.sentences]
    else:
        out = [{"text": answer.final_answer, "supported": True, "reason": ""}] if answer.final_answer else []
    if prefixes:
        for s in out:
            s["source"], s["prefix"] = source(s["text"])
    return out


def cited_ids(answer: Answer) -> list[str]:
    seen: dict[str, None] = {}
    for s in answer_sentences(answer):
        for m in CITATION.finditer(s["text"]):
            for i in re.split(r"\s*,\s*", m.group(1)):
                seen.setdefault(i, None)
    return list(seen)


def chip_sources(reviewed: ReviewedRun) -> dict[str, str]:
    """Each evidence ID's document short title when the run spans several documents ({} for one):
    the chip's tooltip names the document its quote is in."""
    titles = reviewed.run.document_titles
    return {s.evidence.requirement_id: titles[s.evidence.document_id] for s in reviewed.statuses
            if s.evidence.document_id in titles}


def answer_with_chips(answer: Answer, status: dict[str, str], *, key: str,
                      on_cite: Callable[[], None] | None = None, current: str | None = None,
                      sources: dict[str, str] | None = None) -> str | None:
    """Render the answer; returns the ID of the chip clicked in this run, if any (a click a
    viewer on the page took is not). `status` maps an evidence ID to its final status
    ("supported"/"unsupported"); `current`: the evidence shown now, its chips outlined; `sources`
    an evidence ID to its document's short title (chip_sources), shown in the chip's tooltip."""
    result = _component(key=key, data={"sentences": answer_sentences(answer, set((sources or {}).values())),
                                       "status": status, "current": current, "sources": sources or {}},
                        on_cite_change=on_cite or (lambda: None))
    return getattr(result, "cite", None)
