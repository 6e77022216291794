"""Documents: upload PDFs (source type each), see ingest progress, warnings and errors; load the
sample document; the document list."""

from pathlib import Path

import streamlit as st

from workbench.errors import PasswordRequiredError, WorkbenchError, WrongPasswordError
from workbench.models import SOURCE_TYPES, Document
from workbench.ui import safe, state
from workbench.ui.widgets import ingest_done, page_ranges, show_error
from workbench.ui.workspace import get_workbench

SAMPLE = Path(__file__).resolve().parents[1] / "assets" / "sample" / "NIST.SP.800-171r2.pdf"

st.title("Documents")
wb = get_workbench()
results: list[dict] = st.session_state.setdefault(state.INGEST_RESULTS, [])
pending: dict[str, dict] = st.session_state.setdefault(state.PENDING_PASSWORDS, {})


def describe(doc: Document) -> None:
    """What a reviewer should know about a freshly ingested document."""
    how = {"content": " (from its content: change it below if that is wrong)", "default": ""}.get(doc.source_type_from, "")
    st.success(f"**{safe.text(doc.filename)}** ingested: {doc.pages} pages, source type *{safe.text(doc.source_type)}*"
               f"{how}.", icon=":material/check_circle:")
    if doc.unread_pages:
        pages = page_ranges(doc.unread_pages)
        st.warning(f"**{safe.text(doc.filename)}**: pages without readable text (scanned, or fonts that map no "
                   f"characters): {pages}. Quotes on these pages cannot be found or verified; OCR the file first "
                   "if they matter.",
                   icon=":material/document_scanner:")
    if doc.ocr_pages:
        st.info(f"**{safe.text(doc.filename)}**: {ocr_summary(doc)}. Quotes there are what OCR read: check "
                "them against the page image.", icon=":material/document_scanner:")
    for w in doc.warnings:
        if (doc.unread_pages or doc.ocr_pages) and "text layer" in w:  # said once, above
            continue
        st.warning(f"**{safe.text(doc.filename)}**: {safe.text(without_name(doc.filename, w))}", icon=":material/warning:")


def ocr_summary(doc: Document) -> str:
    """"pages 1-2 read by OCR (tesseract 5.3.0, eng), confidence 0.91, 37 uncertain words"."""
    o = doc.ocr_pages
    words = sum(p.words for p in o)
    mean = sum(p.mean_confidence * p.words for p in o) / words if words else 0.0
    low = sum(p.low_confidence_words for p in o)
    return (f"page{'s' if len(o) > 1 else ''} {page_ranges([p.page for p in o])} read by OCR ({o[0].engine}, "
            f"{o[0].languages}), confidence {mean:.2f}" + (f", {low} uncertain word{'s' if low != 1 else ''}"
                                                             if low else ""))


def without_name(name: str, message: str) -> str:
    """The service's messages name the file; the app names it in bold already."""
    for prefix in (f"{name}: ", f"{name} "):
        if message.startswith(prefix):
            return message[len(prefix):]
    return message


def ingest(name: str, data: bytes, source_type: str, password: str | None = None, on_ocr=None) -> None:
    """Ingest one file; a document ingested now is what the Run page asks about next (the sample
    and earlier uploads stay one click away there). `on_ocr(done, total)`: pages read by OCR."""
    try:
        doc = wb.ingest(data, name, password=password, source_type=source_type, on_ocr=on_ocr)
    except PasswordRequiredError as e:
        pending[name] = {"data": data, "source_type": source_type, "message": str(e)}
        results.append({"name": name, "error": None, "password": True})
    except WrongPasswordError as e:
        pending[name] = {"data": data, "source_type": source_type, "message": str(e)}
        results.append({"name": name, "error": str(e)})
    except WorkbenchError as e:
        results.append({"name": name, "error": str(e)})
    else:
        pending.pop(name, None)
        fresh = [r["document"].id for r in results if r.get("document")]
        st.session_state[state.RUN_DOCS] = [*fresh, doc.id]
        st.session_state.pop("run_docs_widget", None)
        results.append({"name": name, "document": doc})
        wb.prepare([doc.id])  # index it in the background: the first question will not wait


left, right = st.columns([3, 2], gap="large")
with left:
    st.subheader("Upload PDFs")
    nonce = st.session_state.get(state.UPLOAD_NONCE, 0)
    files = st.file_uploader("PDF files", type=["pdf"], accept_multiple_files=True, key=f"uploader_{nonce}",
                             help="Several at once. The same file uploaded twice is one document.")
    types: dict[str, str] = {}
    for f in files or []:
        types[f.file_id] = st.selectbox(
            f"Source type of {safe.text(f.name)}", ("auto", *SOURCE_TYPES), key=f"stype_{f.file_id}",
            format_func=lambda t: "auto (from the content)" if t == "auto" else t,
            help="auto reads the first pages (an agreement → contract, an act → statute, a standard or "
                 "guideline → policy, an abstract and references → paper). Your choice wins; it can be "
                 "changed after ingest.")
    if st.button("Ingest", type="primary", disabled=not files, icon=":material/upload:"):
        results.clear()
        progress = st.progress(0.0, text="Ingesting…")
        for i, f in enumerate(files):
            progress.progress(i / len(files), text=f"Ingesting {safe.text(f.name)} ({i + 1} of {len(files)})…")

            def on_ocr(done: int, total: int, i: int = i, name: str = f.name) -> None:
                progress.progress((i + done / max(1, total)) / len(files),
                                  text=f"Reading {safe.text(name)} by OCR: page {done} of {total} "
                                       f"(file {i + 1} of {len(files)})…")

            ingest(f.name, f.getvalue(), types[f.file_id], on_ocr=on_ocr)
        progress.progress(1.0, text=ingest_done(sum(1 for r in results if r.get("document")), len(files)))
        st.session_state[state.UPLOAD_NONCE] = nonce + 1
        st.rerun()

with right:
    st.subheader("Sample document")
    st.caption("NIST SP 800-171 Rev. 2 (113 pages, a US government work) — security requirements such as "
               "“3.5.3 Use multifactor authentication…”.")
    if any(d.filename == SAMPLE.name for d in wb.documents()):  # loaded: nothing to offer but using it
        st.caption(":material/check_circle: The sample document is loaded: ask it a question on the **Run** page.")
    elif st.button("Load the sample document", icon=":material/library_add:"):
        results.clear()
        with st.spinner("Ingesting the sample document…"):
            ingest(SAMPLE.name, SAMPLE.read_bytes(), "policy")
        st.rerun()
    if flash := st.session_state.pop("sample_flash", None):
        st.info(flash, icon=":material/info:")

for r in results:
    if r.get("document"):
        describe(r["document"])
    elif r.get("password") and r["name"] in pending:
        st.warning(f"**{safe.text(r['name'])}** is encrypted: enter its password below to open it.", icon=":material/lock:")
    elif r.get("error"):
        st.error(f"**{safe.text(r['name'])}**: {safe.text(without_name(r['name'], r['error']))}", icon=":material/error:")

for name, item in list(pending.items()):
    with st.form(f"pw_{name}", border=True):
        st.markdown(f":material/lock: **{safe.text(name)}** needs a password to open.")
        pw = st.text_input("Password", type="password", key=f"pw_input_{name}")
        if st.form_submit_button("Open with password"):
            results.clear()
            ingest(name, item["data"], item["source_type"], password=pw)
            st.rerun()

st.subheader("Documents in this workspace")
try:
    docs = wb.documents()
except Exception as e:  # noqa: BLE001 - shown to the user, not swallowed
    show_error(e)
    docs = []
if not docs:
    st.info("No documents yet: upload PDFs above or load the sample document.")
else:
    st.dataframe(
        [{
            "Title": d.title or d.filename, "File": d.filename, "Source type": d.source_type, "Pages": d.pages,
            "Text layer": "yes" if d.has_text_layer and not d.pages_without_text else
            ("partly" if d.has_text_layer else "no"),
            "OCR": f"{page_ranges([p.page for p in d.ocr_pages])} "
                   f"({min(p.mean_confidence for p in d.ocr_pages):.2f})" if d.ocr_pages else "",
            "Warnings": "; ".join(d.warnings), "ID (SHA-256)": d.id[:12] + "…",
        } for d in docs],
        hide_index=True, width="stretch",
        # Fixed widths so a long title cannot push Pages, Text layer and Warnings off a 1440 px screen.
        column_config={
            "Title": st.column_config.TextColumn(width="medium"), "File": st.column_config.TextColumn(width="small"),
            "Source type": st.column_config.TextColumn(width="small"),
            "Pages": st.column_config.NumberColumn(width="small"),
            "Text layer": st.column_config.TextColumn(width="small"),
            "OCR": st.column_config.TextColumn(width="small", help="Pages read by OCR (lowest page confidence)"),
            "Warnings": st.column_config.TextColumn(width="medium"),
            "ID (SHA-256)": st.column_config.TextColumn(width="small"),
        },
    )
    st.page_link(state.PAGE_RUN, label="Ask a question about these documents", icon=":material/play_circle:")

    with st.expander("Change a document's source type, or remove it"):
        by_id = {d.id: d for d in docs}
        chosen = st.selectbox("Document", list(by_id), key="doc_manage",
                              format_func=lambda i: f"{by_id[i].title or by_id[i].filename} ({by_id[i].filename})")
        doc = by_id[chosen]
        c = st.columns([2, 1, 1], vertical_alignment="bottom")
        new_type = c[0].selectbox("Source type", SOURCE_TYPES, index=SOURCE_TYPES.index(doc.source_type),
                                  key=f"doc_type_{chosen}")
        admin = wb.may(state.identity(), "remove_document")
        if not admin:
            st.caption("Changing a source type or removing a document is an admin's.")
        if c[1].button("Save type", disabled=new_type == doc.source_type or not admin, width="stretch"):
            wb.set_source_type(chosen, new_type, identity=state.identity())
            st.session_state["doc_flash"] = (
                "success", f"{safe.text(doc.filename)} is now a *{new_type}*. Evidence IDs already issued keep their "
                           "letter; evidence found from now on gets the new one.")
            st.rerun()
        if c[2].button("Remove…", icon=":material/delete:", width="stretch", disabled=not admin):
            st.session_state["doc_remove"] = chosen
        if st.session_state.get("doc_remove") == chosen:
            st.warning(f"Remove **{safe.text(doc.filename)}** from the workspace? It leaves this list and new runs; "
                       "runs that cite it stay readable and exportable, and the removal is recorded. Ingesting the "
                       "same file again brings it back.", icon=":material/delete:")
            r = st.columns(2)
            if r[0].button("Yes, remove it", type="primary", width="stretch"):
                wb.remove_document(chosen, state.reviewer() or None, identity=state.identity())
                st.session_state.pop("doc_remove", None)
                st.session_state["doc_flash"] = ("success", f"{safe.text(doc.filename)} removed.")
                st.rerun()
            if r[1].button("Cancel", width="stretch"):
                st.session_state.pop("doc_remove", None)
                st.rerun()
    if flash := st.session_state.pop("doc_flash", None):
        getattr(st, flash[0])(flash[1])
