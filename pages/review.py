"""Review: the evidence grid beside the PDF viewer; label each item Supported / Unsupported /
Contradicted (the documents say otherwise: not supported, and the verdict says why).
Deep link: ?run=<run id>&evidence=<REQ-…> opens that item highlighted."""

import pandas as pd
import streamlit as st
from st_aggrid import AgGrid, GridOptionsBuilder

from workbench.models import EvidenceStatus
from workbench.ui import safe, state
from workbench.ui.selection import grid_selection_options
from workbench.ui.viewer import evidence_highlights, pdf_viewer, viewer_documents
from workbench.ui.widgets import reading_layout, run_picker, show_error
from workbench.ui.workspace import get_workbench

st.title("Review")
wb = get_workbench()
run = run_picker(wb, key="review_run")
if run is None:
    st.stop()

record_problems = wb.reviewed(run.run_id).record_problems
if record_problems:  # forged events are set aside, erased ones cannot be: either way, say so first
    st.error("**The review record of this run cannot be trusted**; exports are refused until an admin has "
             "looked into it (docs/security/record.md).\n\n" + "\n".join(f"- {safe.text(p)}" for p in record_problems),
             icon=":material/gpp_bad:")

ORDERS = wb.REVIEW_ORDERS
items: list[EvidenceStatus] = wb.review_queue(run.run_id, st.session_state.get("review_order", "document"))
if not items:
    st.info("This run extracted no evidence: nothing to review. The Answer page explains what is missing.")
    state.write_query_params(run.run_id)
    st.stop()

ids = [s.evidence.requirement_id for s in items]
by_id = {s.evidence.requirement_id: s for s in items}
wanted = st.session_state.get(state.EVIDENCE)
if wanted and wanted not in by_id:
    # kept until another item is chosen: the reruns that follow (viewer, grid) must not hide it
    st.session_state["review_missing_link"] = (run.run_id, wanted, ids[0])
    wanted = None
if not wanted:
    state.select_evidence(run.run_id, ids[0])
    wanted = ids[0]
missing = st.session_state.get("review_missing_link")
if missing and missing[0] == run.run_id and missing[2] == wanted:
    st.warning(f"The evidence named in the link ({safe.text(missing[1])}) is not part of this run; "
               f"showing {safe.text(missing[2])} instead.")
elif missing:
    del st.session_state["review_missing_link"]
current = by_id[wanted]
state.write_query_params(run.run_id, wanted)
docs = {d.id: d for d in wb.documents()}


def go(offset: int) -> None:
    i = (ids.index(st.session_state[state.EVIDENCE]) + offset) % len(ids)
    state.select_evidence(run.run_id, ids[i])


def label(value: str, adjudication: bool = False) -> None:
    name = state.reviewer()
    if not name:
        st.session_state["review_flash"] = ("error", "Enter your **Reviewer name** in the sidebar first.")
        return
    ev_id = st.session_state[state.EVIDENCE]
    try:
        wb.review(run.run_id, ev_id, value, name, st.session_state.get(state.NOTE, ""),
                  adjudication=adjudication or bool(st.session_state.get(state.ADJUDICATE)), identity=state.identity())
    except Exception as e:  # noqa: BLE001 - shown by the page below
        st.session_state["review_flash"] = ("exception", e)
        return
    st.session_state[state.NOTE] = ""
    words = {"supported": "Supported", "unsupported": "Unsupported", "contradicted": "Contradicted",
             "reset": "Reset to the verifier's verdict"}
    st.session_state["review_flash"] = ("success", f"{safe.text(ev_id)}: {words[value]} (by {safe.text(name)}).")


def add_selection(sel: dict) -> None:
    """A text selection in the viewer (exact offsets into the document's text) becomes evidence."""
    name = state.reviewer()
    if not name:
        st.session_state["review_flash"] = ("error", "Enter your **Reviewer name** in the sidebar first, then "
                                            "select the text again.")
        return
    try:
        status = wb.add_evidence(run.run_id, str(sel.get("document_id") or current.evidence.document_id),
                                 start=int(sel["start"]), end=int(sel["end"]), reviewer=name,
                                 note=st.session_state.get(state.NOTE, ""), identity=state.identity())
    except Exception as e:  # noqa: BLE001 - shown by the page below
        st.session_state["review_flash"] = ("exception", e)
        return
    rid = status.evidence.requirement_id
    state.select_evidence(run.run_id, rid)
    st.session_state["review_flash"] = (
        "success", f"{safe.text(rid)} added as evidence ({safe.text(status.evidence.span.cite)}), "
                   f"Supported by {safe.text(status.reviewer)}.")


def viewer_selected(ev_id: str) -> None:
    """The viewer already shows it (J/K, a grid row, a highlight): make it the page's selection."""
    if ev_id != st.session_state.get(state.EVIDENCE):
        state.select_evidence(run.run_id, ev_id)


# The page gets 69 % of the width: at 1440 × 900 with the sidebar open "Fit width" is ≥ 90 % on a
# letter page (a contract's 10 pt text ≥ 11 px tall, 90 % without sideways scrolling). The grid
# beside it shows what a reviewer decides on.
reading_layout()
multi_doc = len({s.evidence.document_id for s in items}) > 1
left, right = st.columns([0.31, 0.69], gap="small")
# The viewer first: its element reaches the browser before the grid's and the card's, so a deep
# link's page image is asked for while the rest of the page is still being drawn.
with right, st.container(key="wb_viewer_pane"):
    span = current.evidence.span
    doc_id = current.evidence.document_id
    if span is None:
        st.warning(f"{safe.text(current.evidence.requirement_id)}'s quote could not be anchored in the PDF, so there is no box to "
                   "show (rejected as quote_not_found).")
    # Every document of the run and every item's boxes: J/K or a row into another document is
    # shown by the viewer itself, the card follows one run later.
    events = pdf_viewer(
        doc_id,
        evidence_highlights(s.evidence for s in items),
        documents=viewer_documents(wb, [doc_id, *(s.evidence.document_id for s in items)],
                                   {k: d.filename for k, d in docs.items()}),
        target=current.evidence.requirement_id,
        page=span.page if span else None,
        scroll_token=st.session_state.get(state.SCROLL_TOKEN, 0),
        height=None,
        fill_offset=110,
        selectable=True,
        key="review_viewer",
        order=ids,
        keys=True,
        on_select=viewer_selected,
        # The caption (document, item, its page) is the viewer's: it follows J/K, a row, at once.
        cites={s.evidence.requirement_id: s.evidence.span.cite for s in items if s.evidence.span},
        hint="J/K next/previous · select text to add it as evidence",
        ocr_low=wb.settings.ocr_low_confidence,
    )
    if events.add:
        add_selection(events.add)
        st.rerun()

with left:
    n_done = sum(1 for s in items if s.human_label)
    per_reviewer: dict[str, int] = {}
    for s in items:
        for who in s.reviewer_labels:
            per_reviewer[who] = per_reviewer.get(who, 0) + 1
    conflicts = sum(s.conflict for s in items)
    first = {s.evidence.requirement_id: r for s in items if (r := wb.review_first_reason(s))}
    st.caption(f"{safe.text(run.question)} — {len(items)} evidence items, {n_done} reviewed by a human"
               + (" (" + ", ".join(f"{safe.text(k)}: {v}" for k, v in per_reviewer.items()) + ")" if per_reviewer else "")
               + (f"; **{conflicts} open conflict(s)** between reviewers" if conflicts else "")
               + (f"; **{len(first)} read by OCR with low confidence**, listed first" if first else "") + ".")
    st.selectbox("Order", list(ORDERS), format_func=ORDERS.get, key="review_order", label_visibility="collapsed")
    mark = {"supported": "✓", "unsupported": "✗", "contradicted": "≠"}  # the grid fits its column: words are in the card
    rows = pd.DataFrame([{
        "ID": s.evidence.requirement_id,
        "Document": (docs[s.evidence.document_id].title or docs[s.evidence.document_id].filename)
        if s.evidence.document_id in docs else s.evidence.document_id[:12],
        "p.": s.evidence.span.page if s.evidence.span else None,
        "Verifier": mark.get(s.verifier_verdict, s.verifier_verdict),
        "Human": ("⚠" if s.conflict else "") + mark.get(s.human_label or "", ""),
        "Final": mark.get(s.final_status, s.final_status),
        "Quote": s.evidence.exact_quote,
        # Hidden: what the quick search also finds ("unsupported", a reviewer's name, a reason).
        "Statuses": f"verifier {s.verifier_verdict}; human {s.human_label or 'not reviewed'}; final {s.final_status}",
        "Reviewers": "; ".join(f"{k}: {v}" for k, v in s.reviewer_labels.items()) + (" (adjudicated)" if s.adjudicated else ""),
        "Reason": first.get(s.evidence.requirement_id) or ("added by a reviewer" if s.human_added else
                   (s.verification.rejection_reason or s.verification.verification_rationale) if s.verification else ""),
    } for s in items])
    gob = GridOptionsBuilder.from_dataframe(rows)
    gob.configure_default_column(filter=True, sortable=True, resizable=True, tooltipField="Quote",
                                 suppressHeaderMenuButton=True, suppressHeaderFilterButton=True)
    # Every column a reviewer decides on fits the column's width, no sideways scroll; the quote
    # takes what is left (in full in its tooltip and in the card below).
    widths = {"ID": 74, "Document": 90, "p.": 38, "Verifier": 58, "Human": 56, "Final": 48}
    tips = {"Verifier": "The verifier's verdict: ✓ supported, ✗ unsupported",
            "Human": "The human label: ✓ supported, ✗ unsupported, ≠ contradicted, ⚠ reviewers disagree",
            "Final": "Final status (the human's word, else the verifier's): ✓ supported, ✗ unsupported",
            "p.": "Page in the PDF"}
    for col, w in widths.items():
        gob.configure_column(col, width=w, minWidth=w, maxWidth=None if col == "Document" else w + 24,
                             headerTooltip=tips.get(col), cellStyle={"textAlign": "center"} if col in tips else None)
    gob.configure_column("Document", hide=not multi_doc)
    gob.configure_column("Quote", flex=1, minWidth=60)
    for col in ("Statuses", "Reviewers", "Reason"):
        gob.configure_column(col, hide=True)
    search = st.text_input("Search evidence", key="grid_search",
                           placeholder="Search: any word of the quote, ID, verdict, reviewer",
                           label_visibility="collapsed")
    gob.configure_grid_options(rowHeight=30, autoSizeStrategy=None, tooltipShowDelay=300,
                               quickFilterText=search, includeHiddenColumnsInQuickFilter=True,
                               **grid_selection_options())
    gob.configure_selection("single", pre_selected_rows=[str(ids.index(wanted))], suppressRowDeselection=True)
    grid = AgGrid(rows, gridOptions=gob.build(), height=330, key=f"grid_{run.run_id}", update_on=["selectionChanged"],
                  server_sync_strategy="server_wins", show_toolbar=False, show_search=False,
                  show_download_button=False, allow_unsafe_jscode=True,
                  custom_css={".ag-cell, .ag-header-cell": {"padding-left": "6px !important",
                                                            "padding-right": "6px !important"}})
    sel = grid.selected_rows
    picked = sel.iloc[0]["ID"] if sel is not None and len(sel) else None
    if picked and picked != st.session_state.get(state.GRID_SELECTION):
        st.session_state[state.GRID_SELECTION] = picked
        # Where the viewer shows a document, a row's click reached it first and it told the app;
        # the grid's report comes later and may echo a row J/K has since moved on from.
        if picked != wanted and not events.takes_selection:
            state.select_evidence(run.run_id, picked)
            st.rerun()

    with st.container(border=True):
        ev = current.evidence
        head = f"**{safe.text(ev.requirement_id)}**"
        if ev.span:
            head += f" · {safe.text(ev.span.cite)}" + (f"–{ev.span.pages[-1]}" if len(ev.span.pages) > 1 else "")
        if ev.section_heading:
            head += f" · {safe.text(ev.section_heading)}"
        if ev.span and ev.span.read_by_ocr:  # what the machine read, not the PDF's own text: say so
            low = ev.span.ocr_min_confidence
            head += (f" · :orange-badge[read by OCR, confidence {ev.span.ocr_confidence:.2f}"
                     + (f" (lowest word {low:.2f})" if low is not None else "") + "]")
        st.markdown(head)
        if ev.requirement_id in first:  # why it leads the queue: the words themselves may be misread
            st.warning(safe.text(first[ev.requirement_id]), icon=":material/document_scanner:")
        with st.container(border=True):  # the PDF's own characters, never read as Markdown
            safe.plain(ev.exact_quote)
        v = current.verification
        verdict_color = "green" if current.verifier_verdict == "supported" else "red"
        human = current.human_label
        st.markdown(
            f"Verifier: :{verdict_color}-badge[{current.verifier_verdict}]"
            + (f" — {safe.text(v.rejection_reason)} {safe.text(v.verification_rationale)}" if v else "")
            + "  \nHuman: " + (f":{'green' if human == 'supported' else 'red'}-badge[{human}]"
                               f" by {safe.text(current.reviewer)}" if human else ":gray-badge[not reviewed]")
            + f"  \nFinal status: **{current.final_status}**"
        )
        if not current.hash_ok:
            st.error("The stored PDF no longer yields this quote's SHA-256: the evidence cannot be trusted.")
        if current.human_added:
            st.caption(f":material/person_add: Added by {safe.text(current.reviewer)} — the pipeline missed it"
                       + (f": {safe.text(current.note)}" if current.note else "."))
        if current.conflict or current.adjudicated:
            who = ", ".join(f"{safe.text(k)}: {v}" for k, v in current.reviewer_labels.items())
            if current.conflict:
                st.warning(f"**Reviewers disagree** ({who}). An adjudicator's decision settles it.",
                           icon=":material/gavel:")
            else:
                st.caption(f":material/gavel: Settled by {safe.text(current.reviewer)} (adjudication); "
                           f"reviewers said {who}.")
            a = st.columns(3)
            a[0].button("Adjudicate: Supported", on_click=label, args=("supported", True), key="adj_sup",
                        icon=":material/gavel:", width="stretch")
            a[1].button("Adjudicate: Unsupported", on_click=label, args=("unsupported", True), key="adj_uns",
                        icon=":material/gavel:", width="stretch")
            a[2].button("Adjudicate: Contradicted", on_click=label, args=("contradicted", True), key="adj_con",
                        icon=":material/gavel:", width="stretch")
        st.text_input("Note", key=state.NOTE, placeholder="Why? (recorded with your decision)")
        st.checkbox("Record as adjudication", key=state.ADJUDICATE,
                    help="The decision that settles reviewers' disagreement (needs the adjudicator role when "
                         "sign-in is on).")
        if not state.reviewer():
            st.caption(":material/person: Enter your **Reviewer name** in the sidebar to record decisions.")
        b = st.columns(3)
        b[0].button("Supported", on_click=label, args=("supported",), shortcut="S", type="primary",
                    icon=":material/thumb_up:", width="stretch")
        b[1].button("Unsupported", on_click=label, args=("unsupported",), shortcut="U",
                    icon=":material/thumb_down:", width="stretch", help="The quote does not state it")
        b[2].button("Contradicted", on_click=label, args=("contradicted",), shortcut="X",
                    icon=":material/block:", width="stretch", help="The quote says otherwise (not supported)")
        b = st.columns(3)
        b[0].button("Reset", on_click=label, args=("reset",), icon=":material/undo:", width="stretch",
                    help="Withdraw the human label: the verifier's verdict counts again.")
        b[1].button("Previous", on_click=go, args=(-1,), shortcut="K", icon=":material/arrow_upward:", width="stretch")
        b[2].button("Next", on_click=go, args=(1,), shortcut="J", icon=":material/arrow_downward:", width="stretch")
        st.caption("Shortcuts: **J** next · **K** previous · **S** supported · **U** unsupported · "
                   "**X** contradicted")
        flash = st.session_state.pop("review_flash", None)
        if flash and flash[0] == "exception":
            show_error(flash[1])
        elif flash:
            getattr(st, flash[0])(flash[1])

    st.markdown("**History**")
    try:
        events = wb.history(run.run_id, current.evidence.requirement_id)
    except Exception as e:  # noqa: BLE001
        show_error(e)
        events = []
    if events:
        st.table(pd.DataFrame([{
            "When (UTC)": e.timestamp.strftime("%Y-%m-%d %H:%M:%S"), "Reviewer": safe.text(e.reviewer),
            "Change": f"{e.previous_label or '—'} → {e.label}", "Verifier said": e.verifier_verdict or "",
            "Note": safe.text(e.note),
        } for e in events]), hide_index=True)
    else:
        st.caption("No human decisions on this item yet.")
