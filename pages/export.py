"""Export: the reviewed results as files (human labels applied), one format at a time."""

import streamlit as st

from workbench.errors import ExportBlockedError
from workbench.service import export_formats
from workbench.ui import safe, state
from workbench.ui.widgets import run_label, show_error
from workbench.ui.workspace import get_workbench

FORMAT_NAMES = {
    "json": "Audit trail (JSON)", "csv": "Evidence table (CSV)", "md": "Report (Markdown)", "html": "Report (HTML)",
    "bibtex": "Bibliography (BibTeX)", "csljson": "Bibliography (CSL-JSON)",
    "webannotation": "W3C Web Annotations (JSON-LD)", "pdf": "Annotated PDF", "jsonl": "Relabels (JSONL training set)",
}

st.title("Export")
wb = get_workbench()
runs = sorted(wb.runs(), key=lambda r: r.created_at, reverse=True)
if not runs:
    st.info("No runs yet: ask a question on the **Run** page, review it, then export it here.")
    st.stop()
docs = {d.id: d for d in wb.documents()}
labels = {r.run_id: run_label(r, docs) for r in runs}
default = [st.session_state[state.RUN]] if st.session_state.get(state.RUN) in labels else [runs[0].run_id]
chosen = st.multiselect("Runs", list(labels), default=default, format_func=labels.get)
if not chosen:
    st.caption("Choose at least one run.")
    st.stop()

stem = chosen[0] if len(chosen) == 1 else f"{len(chosen)}-runs"
fmt = st.selectbox("Format", export_formats(), format_func=lambda f: FORMAT_NAMES.get(f, f))
force = st.checkbox("Export even if the safety gate blocks it",
                    help="The gate blocks answers whose sentences are not covered or supported by verified "
                         "evidence; a forced export records who forced it and why.")
reason = st.text_input("Reason for forcing", disabled=not force)
if force and not reason.strip():
    st.caption("A forced export needs a reason.")
if force and not state.reviewer():
    st.caption("A forced export records who forced it: enter your **Reviewer name** in the sidebar.")
forced = force and bool(reason.strip()) and bool(state.reviewer())
try:
    out = wb.export(chosen, fmt, force=forced, reason=reason.strip() or None, by=state.reviewer() or None,
                    identity=state.identity())
except ExportBlockedError as e:  # the reasons are fields; the remedy in this page's terms
    st.error("**Blocked by the safety gate** — the answer needs a human check:\n"
             + "\n".join(f"- {safe.text(r.removeprefix('needs human check: '))}" for r in e.reasons)
             + "\n\nReview the evidence, or tick *Export even if the safety gate blocks it* and give a "
               "reason (it is recorded in the export).", icon=":material/block:")
except Exception as e:  # noqa: BLE001 - user errors worded by the service
    show_error(e)
else:
    if out.forced:
        st.warning(f"Forced past the safety gate by {safe.text(out.forced.by)}: “{safe.text(out.forced.reason)}” — "
                   "recorded in the export.", icon=":material/gpp_maybe:")
    st.download_button(f"Download {FORMAT_NAMES.get(fmt, fmt)}", out.data, file_name=f"evidence-{stem}.{out.extension}",
                       mime=out.media_type, type="primary", icon=":material/download:")
    st.caption(f"{out.hashes_checked} quote hashes re-checked against the stored PDFs.")

st.divider()
trail = [wb.audit_trail(r) for r in chosen]
body = trail[0] if len(trail) == 1 else trail
with st.expander("Preview the audit trail (JSON, human labels applied)"):
    st.json(body, expanded=1)
