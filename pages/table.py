"""Table: a data room's documents x a checklist's questions. Every cell is a run of one question
over one document, filled in by jobs as they finish; its short answer quotes the document, and a
click opens the evidence in Review. Cells are text, never HTML: document text is untrusted."""

import time

import pandas as pd
import streamlit as st
from st_aggrid import AgGrid, GridOptionsBuilder

from workbench.models import TableCell, TableColumn, TableView
from workbench.ui import safe, state
from workbench.ui.viewer import evidence_highlights, pdf_viewer, viewer_documents
from workbench.ui.widgets import show_error
from workbench.ui.workspace import get_workbench

NEW = "__new__"
PENDING = ("queued", "running")
MARK = {"queued": "queued…", "running": "running…", "failed": "failed", "not_run": "not run"}
REVIEW_MARK = {"accepted": " ✓", "rejected": " ✗", "corrected": " ✎"}
CONFIDENCE_ORDER = {"insufficient": 0, "low": 1, "medium": 2, "high": 3}

st.title("Table")
wb = get_workbench()
docs = wb.documents()
if not docs:
    st.info("No documents yet. Upload the data room's PDFs on the **Documents** page first.")
    st.page_link(state.PAGE_DOCUMENTS, label="Go to Documents", icon=":material/description:")
    st.stop()
by_id = {d.id: d for d in docs}
tables = {t.table_id: t for t in wb.tables()}
options = [*tables, NEW]
current = st.session_state.get(state.TABLE)
if current not in options:
    current = next(iter(tables), NEW)
# A new key after a table is started: the browser keeps a picker's last value ("New table…") and
# sends it back on the next full rerun (the one that follows the last cell), which would leave the table.
chosen = st.selectbox("Table", options, index=options.index(current),
                      key=f"table_pick_{st.session_state.get('table_pick_gen', 0)}",
                      format_func=lambda i: "New table…" if i == NEW else
                      f"{tables[i].name} · {len(tables[i].rows)} documents × {len(tables[i].columns)} questions · {i}")
st.session_state[state.TABLE] = chosen


def checklist_input(key: str, *, built_in: bool = True) -> list[TableColumn]:
    """The questions: the built-in contract checklist, typed, or an uploaded text file."""
    sources = (["Built-in contract checklist"] if built_in else []) + ["Type questions", "Upload a file"]
    source = st.radio("Checklist", sources, horizontal=True, key=f"{key}_source")
    text = ""
    if source == "Type questions":
        text = st.text_area("Questions, one a line (\"Label: question\")", key=f"{key}_text", height=120,
                            placeholder="Governing law: Which state's laws govern this agreement?\n"
                                        "Non-compete: Does this agreement restrict a party from competing?")
    elif source == "Upload a file":
        up = st.file_uploader("Checklist (.txt, one question a line)", type=["txt"], key=f"{key}_file")
        text = up.getvalue().decode("utf-8", errors="replace") if up is not None else ""
    try:
        cols = wb.checklist() if source.startswith("Built-in") else wb.checklist(text) if text.strip() else []
    except Exception as e:  # noqa: BLE001 - the checklist's problem, worded by the service
        show_error(e)
        return []
    if cols:
        st.caption(f"{len(cols)} question(s): " + safe.text(", ".join(c.key for c in cols)))
    return cols


def start(table_id: str) -> None:
    try:
        records = wb.run_table(table_id, identity=state.identity())
    except Exception as e:  # noqa: BLE001
        show_error(e)
        return
    st.session_state[state.TABLE] = table_id
    st.session_state["table_pick_gen"] = st.session_state.get("table_pick_gen", 0) + 1  # follows state.TABLE
    st.session_state["table_progress"] = (table_id, time.monotonic(), None)
    st.session_state["table_flash"] = f"{len(records)} cell(s) queued." if records else \
        "Every cell is answered and current: nothing to run."
    st.rerun()


if chosen == NEW:
    with st.container(border=True):
        picked = st.multiselect("Documents (one row each)", list(by_id), default=list(by_id), key="table_docs",
                                format_func=lambda i: f"{by_id[i].filename} ({by_id[i].pages} p.)")
        columns = checklist_input("table_new")
        name = st.text_input("Name", key="table_name", placeholder="e.g. Project Falcon data room")
        if st.button("Run", type="primary", icon=":material/play_arrow:", key="table_run"):
            if not picked or not columns:
                st.error("Choose at least one document and give at least one question.")
            else:
                try:
                    table = wb.create_table(picked, columns, name=name or "Review table", identity=state.identity())
                except Exception as e:  # noqa: BLE001
                    show_error(e)
                else:
                    start(table.table_id)
    st.stop()

table = tables[chosen]
in_table = {r.document_id for r in table.rows}
with st.expander("Add documents or questions — only the new and stale cells run"):
    more_docs = st.multiselect("Documents to add (a file of a name the table has: its new version)",
                               [d for d in by_id if d not in in_table], key="table_more_docs",
                               format_func=lambda i: by_id[i].filename)
    more_cols = checklist_input("table_more", built_in=True)
    if st.button("Add and run", icon=":material/add:", key="table_add"):
        try:
            wb.add_to_table(table.table_id, document_ids=more_docs, columns=more_cols)
        except Exception as e:  # noqa: BLE001
            show_error(e)
        else:
            start(table.table_id)

with st.expander("Amendments and side letters — a row reads them too, their clauses first"):
    row_key = st.selectbox("Document they change", [r.key for r in table.rows], key="table_relate_row")
    row = next((r for r in table.rows if r.key == row_key), None)
    if row is not None:
        linked = st.multiselect("Amendments and side letters", [d for d in by_id if d != row.document_id],
                                default=[d for d in row.related if d in by_id], key=f"table_relate_{row.key}",
                                format_func=lambda i: by_id[i].filename)
        if st.button("Link and run", icon=":material/link:", key="table_relate"):
            try:
                wb.relate_documents(table.table_id, row.key, linked, identity=state.identity())
            except Exception as e:  # noqa: BLE001
                show_error(e)
            else:
                start(table.table_id)

flash = st.session_state.pop("table_flash", None)
if flash:
    st.success(flash)


def cell_text(c: TableCell) -> str:
    """What a grid cell shows, as plain text: the short answer (its normal form beside it when it
    reads otherwise), or the cell's state; stale and reviewed cells say so."""
    if c.status in MARK:
        return MARK[c.status] if c.status != "failed" else f"failed: {c.error or ''}"
    short = " ".join((c.short_answer or "").split())
    if c.normalized and c.normalized.lower() != short.lower():
        short = f"{short} → {c.normalized}"
    short = short if len(short) <= 140 else short[:139] + "…"  # the whole clause is under the grid
    return ("stale: " if c.status == "stale" else "") + short + REVIEW_MARK.get(c.review, "")


def progress(view: TableView) -> None:
    n = len(view.cells)
    done = view.counts.get("done", 0) + view.counts.get("stale", 0)
    pending = sum(view.counts.get(s, 0) for s in PENDING)
    parts = [f"{view.counts.get(s, 0)} {w}" for s, w in (("done", "done"), ("running", "running"),
                                                          ("queued", "queued"), ("failed", "failed"),
                                                          ("stale", "stale"), ("not_run", "not run"))
             if view.counts.get(s)]
    tail = ""
    seen = st.session_state.get("table_progress")
    if pending and seen and seen[0] == view.table.table_id:
        if seen[2] is None:
            st.session_state["table_progress"] = seen = (seen[0], time.monotonic(), done)
        rate = (done - seen[2]) / max(1e-6, time.monotonic() - seen[1])
        if rate > 0:
            tail = f" · about {max(1, round(pending / rate))} s left"
    st.progress(done / n if n else 0.0, text=f"{len(view.table.rows)} documents × {len(view.table.columns)} "
                                             f"questions: {', '.join(parts)}{tail}")


def cell_viewer(c: TableCell) -> None:
    """The cell's evidence in the PDF, the short answer's quote the target: clicking a cell opens
    its evidence, highlighted, without leaving the table."""
    ids = [x.requirement_id for x in c.citations]
    if not c.run_id or not ids:
        return
    by_rid = {e.requirement_id: e for e in wb.reviewed(c.run_id).run.evidence if e.span}
    shown = [by_rid[i] for i in ids if i in by_rid]
    if not shown:
        return
    target = by_rid.get(c.basis or "", shown[0])
    pdf_viewer(target.document_id, evidence_highlights(shown),
               documents=viewer_documents(wb, [e.document_id for e in [target, *shown]],
                                          {k: d.filename for k, d in by_id.items()}),
               target=target.requirement_id, page=target.span.page if target.span else None, height=560,
               key="table_viewer", order=ids, cites={e.requirement_id: e.span.cite for e in shown if e.span},
               ocr_low=wb.settings.ocr_low_confidence)


def detail(view: TableView) -> None:
    """The chosen cell: short answer, confidence, citations (each opens Review), review actions."""
    keys = [(c.row_key, c.column_key) for c in view.cells]
    sel = st.session_state.get(state.TABLE_CELL)
    if sel not in keys:
        sel = next(((c.row_key, c.column_key) for c in view.cells if c.run_id), keys[0])
    a, b = st.columns(2)
    rows = [r.key for r in view.table.rows]
    cols = [c.key for c in view.table.columns]
    row = a.selectbox("Document", rows, index=rows.index(sel[0]), key="table_cell_row")
    col = b.selectbox("Question", cols, index=cols.index(sel[1]), key="table_cell_col")
    st.session_state[state.TABLE_CELL] = (row, col)
    c = view.cell(row, col)
    if c is None:
        return
    with st.container(border=True):
        st.markdown(f"**{safe.text(c.column_key)}** · {safe.text(c.filename)} — {safe.text(c.question)}")
        if c.status in MARK:
            st.info(f"This cell is {MARK[c.status].rstrip('…')}." + (f" {safe.text(c.error)}" if c.error else ""))
            return
        for why in c.stale:
            st.warning(f"Stale: {safe.text(why)}. Run the table again to refresh it.", icon=":material/update:")
        if c.record_problems:
            st.error("The review record of this cell's run cannot be trusted: " + safe.text("; ".join(c.record_problems)))
        st.caption("Short answer" + (f" · normalised: {safe.text(c.normalized)}" if c.normalized else "")
                   + f" · confidence {c.grounding_confidence}"
                   + (f" · {c.review} by {safe.text(c.reviewed_by)}" if c.review != "unreviewed" else " · not reviewed")
                   + (f" ({safe.text(c.review_note)})" if c.review_note else ""))
        safe.plain(c.short_answer or "")
        if c.review == "corrected":
            st.caption("The engine said: " + safe.text(c.machine_short_answer))
        if not c.citations:
            st.caption("No verified evidence in this document: not found. A reviewer may correct it, or add the "
                       "evidence the engine missed on the Review page.")
        for x in c.citations:
            left, right = st.columns([5, 1])
            where = f"p. {x.page_label or x.page}" if x.page else "not located"
            left.caption(f"{safe.text(x.requirement_id)} · {safe.text(where)}"
                         + (" · **from an amendment**" if x.amendment else "")
                         + (" · the short answer's" if x.requirement_id == c.basis else ""))
            left.text(x.quote)
            if right.button("Open", key=f"open_{c.run_id}_{x.requirement_id}", icon=":material/open_in_new:",
                            help="Open this evidence in Review, highlighted in the PDF"):
                state.select_evidence(c.run_id, x.requirement_id)
                st.switch_page(state.PAGE_REVIEW, query_params=state.deep_link_params(c.run_id, x.requirement_id))
        if c.run_id and not c.citations and st.button("Open the run in Review", key=f"open_run_{c.run_id}"):
            state.select_run(c.run_id)
            st.switch_page(state.PAGE_REVIEW, query_params=state.deep_link_params(c.run_id))
        cell_viewer(c)
        if not wb.may(state.identity(), "label"):
            st.caption("Your role may read this table; reviewing cells needs the reviewer role.")
            return
        note = st.text_input("Note", key="table_cell_note", placeholder="Why? (recorded with your decision)")
        fix = st.text_input("Correct the answer", key="table_cell_fix", placeholder="e.g. Delaware, 30 days, No")
        act = st.columns(4)
        try:
            if c.basis and act[0].button("Accept", key="table_accept", icon=":material/thumb_up:", width="stretch"):
                wb.review_cell(view.table.table_id, row, col, "supported", state.reviewer(), note, identity=state.identity())
                st.rerun()
            if c.basis and act[1].button("Reject", key="table_reject", icon=":material/thumb_down:", width="stretch"):
                wb.review_cell(view.table.table_id, row, col, "unsupported", state.reviewer(), note,
                               identity=state.identity())
                st.rerun()
            if act[2].button("Save correction", key="table_correct", icon=":material/edit:", width="stretch"):
                wb.correct_cell(view.table.table_id, row, col, fix, state.reviewer(), note, identity=state.identity())
                st.rerun()
            if c.review == "corrected" and act[3].button("Withdraw", key="table_uncorrect", icon=":material/undo:",
                                                         width="stretch"):
                wb.correct_cell(view.table.table_id, row, col, None, state.reviewer(), note, identity=state.identity())
                st.rerun()
        except Exception as e:  # noqa: BLE001
            show_error(e)


def grid(view: TableView) -> None:
    f1, f2 = st.columns(2)
    show = f1.selectbox("Rows", ["All documents", "With a cell not yet reviewed", "With a cell not found",
                                 "With a stale or failed cell"], key="table_filter")
    order = f2.selectbox("Order", ["Document order", "Low confidence first"], key="table_order")
    by_row: dict[str, list[TableCell]] = {}
    for c in view.cells:
        by_row.setdefault(c.row_key, []).append(c)
    keep = {
        "All documents": lambda cs: True,
        "With a cell not yet reviewed": lambda cs: any(c.run_id and c.review == "unreviewed" for c in cs),
        "With a cell not found": lambda cs: any(c.short_answer == "not found" for c in cs),
        "With a stale or failed cell": lambda cs: any(c.status in ("stale", "failed") for c in cs),
    }[show]
    rows = [r for r in view.table.rows if keep(by_row.get(r.key, []))]
    if order == "Low confidence first":
        rows.sort(key=lambda r: min((CONFIDENCE_ORDER[c.grounding_confidence] for c in by_row[r.key] if c.run_id),
                                    default=9))
    frame = pd.DataFrame([{"Document": r.filename, **{c.column_key: cell_text(c) for c in by_row[r.key]}}
                          for r in rows], columns=["Document", *[c.key for c in view.table.columns]])
    gob = GridOptionsBuilder.from_dataframe(frame)
    gob.configure_default_column(filter=True, sortable=True, resizable=True, wrapText=True, autoHeight=True,
                                 minWidth=140)
    gob.configure_column("Document", pinned="left", width=260)
    for col in view.table.columns:
        gob.configure_column(col.key, headerTooltip=col.question, tooltipField=col.key, flex=1, minWidth=200)
    gob.configure_grid_options(tooltipShowDelay=300, autoSizeStrategy=None)
    res = AgGrid(frame, gridOptions=gob.build(), height=min(620, 80 + 150 * max(1, len(rows))),
                 key=f"table_grid_{view.table.table_id}", update_on=["cellClicked"], show_toolbar=False,
                 show_search=False, show_download_button=False)
    ev = res.event_data or {}
    field = (ev.get("colDef") or {}).get("field") or ev.get("colId")
    doc = (ev.get("data") or {}).get("Document")
    if field and doc and field != "Document" and (doc, field) != st.session_state.get("table_clicked"):
        st.session_state["table_clicked"] = (doc, field)
        st.session_state[state.TABLE_CELL] = (doc, field)
        st.session_state.pop("table_cell_row", None)
        st.session_state.pop("table_cell_col", None)


def body() -> TableView:
    view = wb.table_view(table.table_id)
    progress(view)
    grid(view)
    detail(view)
    return view


view = wb.table_view(table.table_id)
todo = [c for c in view.cells if c.status in ("stale", "failed", "not_run")]
if todo and st.button(f"Run {len(todo)} new, stale or failed cell(s)", icon=":material/refresh:", key="table_rerun"):
    start(table.table_id)
pending = any(c.status in PENDING for c in view.cells)


@st.fragment(run_every=2.0 if pending else None)
def live() -> None:
    now = body()
    if pending and not any(c.status in PENDING for c in now.cells):
        st.rerun(scope="app")  # all answered: stop refreshing


live()
with st.expander("Export"):
    st.caption("XLSX: a row per document and a column per question, stale, corrected and not-found cells filled "
               "(see its Legend sheet), every citation and every cell's review events on their own sheets. "
               "Each file is made when you click, with the reviews made up to then.")
    for fmt in wb.TABLE_FORMATS:
        st.download_button(f"Download {fmt.upper()}",
                           lambda fmt=fmt: wb.export_table(table.table_id, fmt)[0],  # made on click, not each rerun
                           file_name=f"table-{table.table_id}.{fmt}", mime=wb.table_media_type(fmt),
                           key=f"table_dl_{fmt}", on_click="ignore")
