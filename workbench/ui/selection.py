"""The browser-side selection bus: a "wb:evidence" event on the app's window names an evidence
id, and the PDF viewer mounted on the page (workbench/ui/viewer) moves its highlight to it at
once, then reports it to the app. Senders need not know the viewer: the grid's rows and the
answer's citation chips dispatch the event; a "wb:key" event forwards J/K pressed inside the
grid's iframe. Nothing here carries document text: only an evidence id that the viewer looks up
among the boxes the app gave it."""

from __future__ import annotations

from st_aggrid import JsCode

# The grid lives in an iframe of the app's own origin: events go to the parent window, built with
# the parent's CustomEvent so its listeners see an ordinary event.
_SEND = """
function wbSend(type, detail) {
  const w = window.parent || window;
  w.dispatchEvent(new w.CustomEvent(type, { detail: detail }));
}
"""

GRID_ROW_CLICKED = JsCode("function (e) {" + _SEND + """
  if (e.data && e.data.ID) wbSend("wb:evidence", { id: String(e.data.ID) });
}""")

GRID_KEY_DOWN = JsCode("function (e) {" + _SEND + """
  const k = e.event && e.event.key;
  if ((k === "j" || k === "k" || k === "J" || k === "K") && !e.event.ctrlKey && !e.event.metaKey
      && !e.event.altKey && !e.event.shiftKey) {
    e.event.preventDefault();
    wbSend("wb:key", { key: k.toLowerCase() });
  }
}""")


def grid_selection_options() -> dict:
    """gridOptions for st_aggrid (with allow_unsafe_jscode=True: the code is these constants)."""
    return {"onRowClicked": GRID_ROW_CLICKED, "onCellKeyDown": GRID_KEY_DOWN}
