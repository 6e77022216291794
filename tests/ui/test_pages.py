"""AppTest specifications for each page of the app (app.py with st.navigation). The viewer and
the citation chips are custom components, opaque to AppTest: their data is read from the
element's proto here, and they are exercised in Chromium by test_browser.py."""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.ui.conftest import QUESTION, shown, two_document_run

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app.py"
PAGES = ROOT / "pages"
TIMEOUT = 60


# app.py run from a folder without a `pages/` sibling: AppTest resets Streamlit's legacy
# pages-folder detection before every run, which would otherwise run pages/*.py without app.py
# from the second run on (the real server is protected in serve.py).
ENTRY = Path(tempfile.mkdtemp(prefix="wb-apptest-")) / "app_entry.py"
ENTRY.write_text(f"exec(compile(open({str(APP)!r}).read(), {str(APP)!r}, 'exec'))\n")


def app(**query) -> AppTest:
    at = AppTest.from_file(str(ENTRY), default_timeout=TIMEOUT)
    at.query_params.update(query)
    return at


def on_page(at: AppTest, page: str, reviewer: str | None = None) -> AppTest:
    at.run()
    if reviewer:
        at.text_input(key="reviewer_name").set_value(reviewer).run()
    at.switch_page(str(PAGES / f"{page}.py")).run()
    assert not at.exception, at.exception
    return at


def texts(at: AppTest) -> str:
    parts = [e.value for e in (*at.markdown, *at.caption, *at.info, *at.warning, *at.error, *at.success)]
    return "\n".join(shown(p) for p in parts)


def component_data(at: AppTest, name: str) -> list[dict]:
    """The data dicts sent to custom components whose name contains `name`."""
    out = []
    for node in at.get("bidi_component"):
        proto = node.proto
        if name in proto.component_name:
            out.append(json.loads(proto.json))
    return out


# --- navigation ---------------------------------------------------------------------------
def test_app_offers_the_seven_pages_in_order_and_asks_for_the_reviewer_name(data_dir):
    at = app()
    at.run()
    assert not at.exception
    assert at.title[0].value == "Documents"
    assert at.sidebar.text_input(key="reviewer_name").label == "Reviewer name"
    for page, title in [("run", "Run"), ("review", "Review"), ("answer", "Answer"), ("check", "Check a draft"),
                        ("dashboard", "Dashboard"), ("export", "Export")]:
        at.switch_page(str(PAGES / f"{page}.py")).run()
        assert not at.exception, (page, at.exception)
        assert at.title[0].value == title


def test_a_server_started_with_sign_in_off_on_a_store_that_requires_it_asks_for_sign_in(
        data_dir, make_pdf, monkeypatch):
    """The team's store has accounts; someone starts the app on it with sign-in off: the app
    signs in anyway, and nothing of the workspace is shown before it."""
    from workbench.config import get_settings
    from workbench.service import Workbench

    monkeypatch.setenv("WORKBENCH_SIGN_IN", "true")
    get_settings.cache_clear()
    team = Workbench(get_settings())
    team.ingest(make_pdf(["The merger price is forty million."], name="secret.pdf"), "secret-merger.pdf",
                source_type="contract")
    team.add_user("Ada Admin", "admin", "correct horse admin")
    monkeypatch.setenv("WORKBENCH_SIGN_IN", "false")
    get_settings.cache_clear()
    at = app()
    at.run()
    assert not at.exception
    assert at.title[0].value == "Sign in"
    assert not [t for t in at.sidebar.text_input if t.key == "reviewer_name"]
    assert "secret-merger" not in texts(at)


# --- Documents ------------------------------------------------------------------------------
def test_documents_upload_ingests_with_the_chosen_source_type_and_lists_it(data_dir, make_pdf):
    pdf = make_pdf(["The contractor shall deliver the report within thirty days."], name="contract.pdf")
    at = app()
    at.run()
    at.file_uploader[0].set_value(("contract.pdf", pdf.read_bytes(), "application/pdf")).run()
    at.selectbox(key=next(s.key for s in at.selectbox if s.label.startswith("Source type"))).set_value("contract").run()
    at.button[0].click().run() if at.button[0].label == "Ingest" else next(
        b for b in at.button if b.label == "Ingest").click().run()
    assert not at.exception, at.exception
    assert any("contract.pdf" in s.value and "ingested" in s.value for s in at.success)
    table = at.dataframe[0].value
    assert list(table["File"]) == ["contract.pdf"]
    assert list(table["Source type"]) == ["contract"]


def test_documents_encrypted_upload_asks_for_the_password_and_opens_with_it(data_dir, corpus):
    pdf = corpus / "pdfs" / "encrypted" / "password-example_pw-test.pdf"
    at = app()
    at.run()
    at.file_uploader[0].set_value((pdf.name, pdf.read_bytes(), "application/pdf")).run()
    next(b for b in at.button if b.label == "Ingest").click().run()
    assert any("encrypted" in w.value for w in at.warning), texts(at)
    assert all(shown(w.value).count(pdf.name) <= 1 and "--password" not in w.value for w in at.warning), texts(at)
    at.text_input(key=f"pw_input_{pdf.name}").set_value("wrong")
    at.button(key=next(b.key for b in at.button if b.label == "Open with password")).click().run()
    assert at.error and pdf.name in shown(at.error[0].value)
    assert shown(at.error[0].value).count(pdf.name) == 1 and "password is wrong" in at.error[0].value
    at.text_input(key=f"pw_input_{pdf.name}").set_value("test")
    next(b for b in at.button if b.label == "Open with password").click().run()
    assert not at.exception, at.exception
    assert any(pdf.name in shown(s.value) and "ingested" in s.value for s in at.success), texts(at)


def test_documents_damaged_upload_is_explained_not_a_traceback(data_dir, corpus):
    pdf = corpus / "pdfs" / "malformed" / "zen_of_python_corrupted.pdf"
    empty = corpus / "pdfs" / "malformed" / "empty_0bytes.pdf"
    at = app()
    at.run()
    at.file_uploader[0].set_value([(pdf.name, pdf.read_bytes(), "application/pdf"),
                                   (empty.name, empty.read_bytes(), "application/pdf")]).run()
    next(b for b in at.button if b.label == "Ingest").click().run()
    assert not at.exception, at.exception
    messages = [shown(e.value) for e in at.error] + [shown(s.value) for s in at.success]
    assert any(empty.name in m for m in messages)
    assert any(pdf.name in m for m in messages)
    assert all("Traceback" not in m for m in messages)


def test_documents_sample_button_ingests_the_bundled_nist_publication(data_dir):
    at = app()
    at.run()
    next(b for b in at.button if b.label == "Load the sample document").click().run()
    assert not at.exception, at.exception
    assert any("NIST.SP.800-171r2.pdf" in s.value for s in at.success)
    assert list(at.dataframe[0].value["Pages"]) == [113]
    # loaded: the button that would load it again is gone, the page says it is there
    assert not [b for b in at.button if b.label == "Load the sample document"]
    assert "The sample document is loaded" in texts(at)


def test_run_asks_about_the_documents_just_ingested_not_the_whole_workspace(data_dir, make_pdf):
    """A new user loads the sample, then uploads a contract: the Run page's selection is the
    contract, so a contract question does not also search the NIST sample (whose "contracts or
    agreements" sentence was verified for "What law governs this agreement?"). The rest of the
    workspace is one click away in the same selector."""
    pdf = make_pdf(["This Agreement shall be governed by the laws of the State of New York."], name="contract.pdf")
    at = app()
    at.run()
    next(b for b in at.button if b.label == "Load the sample document").click().run()
    at.file_uploader[0].set_value(("contract.pdf", pdf.read_bytes(), "application/pdf")).run()
    next(b for b in at.button if b.label == "Ingest").click().run()
    assert not at.exception, at.exception
    at.switch_page(str(PAGES / "run.py")).run()
    assert not at.exception, at.exception
    chosen = at.multiselect(key="run_docs_widget")
    assert len(chosen.options) == 2  # both offered
    assert chosen.value == [hashlib.sha256(pdf.read_bytes()).hexdigest()]  # a document's id is its SHA-256


# --- Run --------------------------------------------------------------------------------------
def test_run_without_documents_sends_the_user_to_documents(data_dir):
    at = on_page(app(), "run")
    assert "No documents yet" in texts(at)


def test_run_page_offers_question_checklist_and_backends_and_refuses_an_empty_question(workspace):
    at = on_page(app(), "run")
    assert at.text_area[0].label == "Question"
    assert set(at.selectbox[0].options) >= {"rules", "openai"}
    next(b for b in at.button if b.label == "Run").click().run()
    assert any("Type a question" in e.value for e in at.error)
    at.radio[0].set_value("Checklist").run()
    assert at.text_area[0].label.startswith("Checklist")
    at.text_area[0].set_value("First question?\n\n  Second question?  \n").run()
    assert "2 question(s)" in texts(at)


def test_run_executes_the_pipeline_and_shows_every_stage_done(workspace):
    at = on_page(app(), "run")
    at.text_area[0].set_value("How often must audit records be reviewed?")
    next(b for b in at.button if b.label == "Run").click().run()
    assert not at.exception, at.exception
    stages = at.table[0].value
    assert list(stages["Stage"]) == ["Retrieval", "Extract", "Verify", "Compose", "Quality review", "Finalize"]
    assert all("done" in s or "skipped" in s for s in stages["Status"])
    assert "How often must audit records be reviewed?" in texts(at)


# --- Review -----------------------------------------------------------------------------------
def test_review_deep_link_selects_the_evidence_and_sends_its_rects_to_the_viewer(workspace):
    wb, doc, run = workspace
    target = run.evidence[1]
    at = on_page(app(run=run.run_id, evidence=target.requirement_id), "review")
    viewer = component_data(at, "pdf_viewer")[0]
    assert viewer["document_id"] == doc.id
    assert viewer["target"] == target.requirement_id
    assert viewer["page"] == 2
    boxes = [h for h in viewer["highlights"] if h["id"] == target.requirement_id]
    assert [(h["page"], h["x0"], h["y0"], h["x1"], h["y1"]) for h in boxes] == [tuple(r) for r in target.span.rects]
    assert at.query_params["evidence"] == [target.requirement_id] or at.query_params["evidence"] == target.requirement_id


def test_review_unsupported_without_a_reviewer_name_is_refused(workspace):
    wb, doc, run = workspace
    ev = run.evidence[0].requirement_id
    at = on_page(app(run=run.run_id, evidence=ev), "review")
    next(b for b in at.button if b.label == "Unsupported").click().run()
    assert any("Reviewer name" in e.value for e in at.error)
    assert wb.history(run.run_id, ev) == []


def test_review_unsupported_records_reviewer_note_and_shows_history(workspace):
    wb, doc, run = workspace
    ev = run.evidence[0].requirement_id
    at = on_page(app(run=run.run_id, evidence=ev), "review", reviewer="Dana")
    at.text_input(key="review_note").set_value("quote is about processes, not users")
    next(b for b in at.button if b.label == "Unsupported").click().run()
    assert not at.exception, at.exception
    [event] = wb.history(run.run_id, ev)
    assert (event.label, event.reviewer, event.note, event.verifier_verdict) == (
        "unsupported", "Dana", "quote is about processes, not users", "supported")
    history = at.table[-1].value
    assert list(history["Reviewer"]) == ["Dana"]
    assert list(history["Change"]) == ["— → unsupported"]
    next(b for b in at.button if b.label == "Reset").click().run()
    assert [e.label for e in wb.history(run.run_id, ev)] == ["unsupported", "reset"]


def test_review_next_and_previous_move_through_the_items_with_shortcuts(workspace):
    wb, doc, run = workspace
    ids = [e.requirement_id for e in run.evidence]
    at = on_page(app(run=run.run_id, evidence=ids[0]), "review")
    nxt = next(b for b in at.button if b.label == "Next")
    assert nxt.proto.shortcut.upper() == "J"
    shortcuts = {b.label: b.proto.shortcut.upper() for b in at.button}
    assert (shortcuts["Previous"], shortcuts["Supported"], shortcuts["Unsupported"]) == ("K", "S", "U")
    nxt.click().run()
    assert component_data(at, "pdf_viewer")[0]["target"] == ids[1]
    next(b for b in at.button if b.label == "Previous").click().run()
    next(b for b in at.button if b.label == "Previous").click().run()
    assert component_data(at, "pdf_viewer")[0]["target"] == ids[-1]


def test_review_deep_link_to_unknown_evidence_warns_and_falls_back(workspace):
    wb, doc, run = workspace
    at = app(run=run.run_id, evidence="REQ-P999")
    at.run()  # the root deep link opens Review
    assert at.title[0].value == "Review"
    assert any("REQ-P999" in w.value for w in at.warning)
    assert component_data(at, "pdf_viewer")[0]["target"] == run.evidence[0].requirement_id


# --- Answer -----------------------------------------------------------------------------------
def test_answer_shows_badge_chips_and_quality(workspace):
    wb, doc, run = workspace
    at = on_page(app(run=run.run_id), "answer")
    assert QUESTION in texts(at)
    assert "Well supported" in texts(at) and "100 %" in texts(at)
    chips = component_data(at, "answer_text")[0]
    assert [s["text"] for s in chips["sentences"]] == [s.text for s in run.answer.sentences]
    assert chips["status"][run.evidence[0].requirement_id] == "supported"


def test_answer_shows_the_cited_evidence_in_a_viewer_beside_it(workspace):
    """A chip click lands beside the answer (no page switch): the viewer is on the Answer page,
    showing the first cited item, with every cited item's boxes and the chips' order."""
    wb, doc, run = workspace
    a, b = run.evidence[0].requirement_id, run.evidence[1].requirement_id
    at = on_page(app(run=run.run_id), "answer")
    (viewer,) = component_data(at, "pdf_viewer")
    assert (viewer["document_id"], viewer["target"], viewer["order"]) == (doc.id, a, [a, b])
    assert {h["id"] for h in viewer["highlights"]} == {a, b}
    assert component_data(at, "answer_text")[0]["current"] == a
    assert any(p.label == f"Review {a}" for p in at.get("page_link"))


def test_review_viewer_moves_through_the_grid_order_with_j_and_k_itself(workspace):
    wb, doc, run = workspace
    at = on_page(app(run=run.run_id, evidence=run.evidence[0].requirement_id), "review")
    (viewer,) = component_data(at, "pdf_viewer")
    assert viewer["keys"] is True
    assert viewer["order"] == [s.evidence.requirement_id for s in wb.review_queue(run.run_id, "document")]


def test_answer_is_recomposed_after_a_human_marks_its_evidence_unsupported(workspace):
    wb, doc, run = workspace
    rejected = run.evidence[0].requirement_id
    wb.review(run.run_id, rejected, "unsupported", "Dana", "wrong clause")
    at = on_page(app(run=run.run_id), "answer")
    assert "Revised after review" in texts(at)
    chips = component_data(at, "answer_text")[0]
    assert chips["status"][rejected] == "unsupported"
    assert [s["supported"] for s in chips["sentences"]] == [True]  # its sentence is gone, the other stands
    assert all(rejected not in s["text"] for s in chips["sentences"])
    reviewed = wb.reviewed(run.run_id)
    coverage = f"citation coverage {round(reviewed.answer.citation_coverage * 100)} %"
    assert coverage in texts(at)  # the header shows the reviewed numbers the quality rows are computed from
    tables = [t.value for t in at.table]
    quality = next(t for t in tables if "Check" in t.columns)
    assert list(quality["Detail"]) == [q.detail for q in reviewed.answer.quality]
    revisions = next(t for t in tables if "Revision" in t.columns)
    assert list(revisions["By"]) == ["Dana"]  # each revision names who caused it


def test_answer_states_no_authoritative_evidence_plainly(workspace):
    wb, doc, run = workspace
    from workbench.models import NO_AUTHORITATIVE_EVIDENCE, Answer

    empty = run.model_copy(update={"run_id": "run-none", "evidence": run.evidence[2:],
                                   "verifications": run.verifications[2:],
                                   "answer": Answer(result=NO_AUTHORITATIVE_EVIDENCE,
                                                    missing_evidence=["how long logs are kept"],
                                                    message="No verified evidence.")})
    wb.store.save_run(empty)
    at = on_page(app(run="run-none"), "answer")
    assert any("No authoritative evidence" in e.value for e in at.error)
    assert "how long logs are kept" in texts(at)
    assert not component_data(at, "answer_text")


def test_answer_says_a_failed_backend_stage_failed_instead_of_claiming_no_evidence(workspace):
    wb, doc, run = workspace
    from workbench.models import NO_AUTHORITATIVE_EVIDENCE, Answer, StageFailure

    failed = run.model_copy(update={
        "run_id": "run-failed", "backend": "openai", "evidence": [], "verifications": [],
        "failures": [StageFailure(stage="extract", error="BackendError",
                                  message="Cannot connect to http://127.0.0.1:9/v1")],
        "answer": Answer(result=NO_AUTHORITATIVE_EVIDENCE, message="The openai backend failed in the extract stage.")})
    wb.store.save_run(failed)
    at = on_page(app(run="run-failed"), "answer")
    errors = " ".join(e.value for e in at.error)
    assert "A backend stage failed" in errors and "extract stage" in errors
    assert "No authoritative evidence" not in errors


# --- Dashboard and Export -----------------------------------------------------------------------
def test_dashboard_charts_pass_rate_reasons_confusion_and_confidence(workspace):
    wb, doc, run = workspace
    wb.review(run.run_id, run.evidence[0].requirement_id, "unsupported", "Dana")
    at = on_page(app(), "dashboard")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Evidence items"] == "3"
    assert metrics["Verifier pass rate"] == "67 %"
    assert metrics["Reviewed"] == "1 / 3"
    # κ from one label is no number to show: the count and a word instead
    assert metrics["Cohen's κ · 1 label"] == "too few labels"
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    # titles above the charts (the charts' toolbar covered titles drawn inside them)
    assert not any(c["layout"].get("title", {}).get("text") for c in charts)
    titles = [m.value for m in at.markdown]
    assert "**Rejection reasons (verifier) · 1 item**" in titles  # counts read: 1 item, 1 run
    assert "**Answer confidence · runs per level, 1 run**" in titles
    assert "**Verifier vs human · 1 label: agreement 0 %, κ needs 20 labels**" in titles
    heat = next(c for c in charts if c["data"][0]["type"] == "heatmap")
    assert heat["data"][0]["z"] == [[0, 1], [0, 0]]


def test_export_offers_every_format_and_downloads_the_audit_trail(workspace):
    wb, doc, run = workspace
    at = on_page(app(run=run.run_id), "export")
    assert at.multiselect[0].value == [run.run_id]
    assert set(at.selectbox[0].options) >= {"Audit trail (JSON)", "Evidence table (CSV)", "Annotated PDF",
                                            "Bibliography (BibTeX)", "W3C Web Annotations (JSON-LD)"}
    [download] = at.get("download_button")
    assert download.proto.label == "Download Audit trail (JSON)"
    at.selectbox[0].set_value("csv").run()
    [download] = at.get("download_button")
    assert download.proto.label == "Download Evidence table (CSV)"



def test_documents_scanned_upload_names_the_pages_without_text(data_dir, corpus, monkeypatch):
    monkeypatch.setenv("WORKBENCH_OCR", "off")  # OCR unavailable or off: named (tests/ui/test_ocr_pages.py reads it)
    pdf = corpus / "pdfs" / "scanned" / "grumman-service-kit-1974_scanned.pdf"
    at = app()
    at.run()
    at.file_uploader[0].set_value((pdf.name, pdf.read_bytes(), "application/pdf")).run()
    next(b for b in at.button if b.label == "Ingest").click().run()
    assert not at.exception, at.exception
    scanned = [w.value for w in at.warning if "without readable text" in w.value]
    assert scanned and "scanned" in scanned[0] and ": 1-2." in scanned[0], texts(at)


def test_run_checklist_of_two_questions_stores_two_runs_and_lists_both(workspace):
    wb, doc, _ = workspace
    at = on_page(app(), "run")
    at.radio[0].set_value("Checklist").run()
    at.text_area[0].set_value("How often must audit records be reviewed?\nWho may access the system?").run()
    next(b for b in at.button if b.label == "Run").click().run()
    assert not at.exception, at.exception
    [progress] = at.get("progress")
    assert progress.proto.value == 100 and progress.proto.text.startswith("2 question(s) done")
    shown = texts(at)
    assert "How often must audit records be reviewed?" in shown and "Who may access the system?" in shown
    assert len(wb.runs()) == 3  # the seeded run plus one per question


def test_deep_link_at_the_root_opens_review_on_that_evidence(workspace):
    wb, doc, run = workspace
    target = run.evidence[2].requirement_id
    at = app(run=run.run_id, evidence=target)
    at.run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Review"
    assert component_data(at, "pdf_viewer")[0]["target"] == target


def test_export_blocked_by_the_gate_downloads_only_when_forced_with_a_reason(workspace):
    wb, doc, run = workspace
    wb.review(run.run_id, "SENT-1", "unsupported", "Dana")  # a reviewer says the sentence overstates its quote
    at = on_page(app(run=run.run_id), "export", reviewer="Dana")
    assert any("Blocked by the safety gate" in e.value for e in at.error)
    assert not at.get("download_button")
    at.checkbox[0].check().run()
    assert not at.get("download_button")  # forcing needs a reason
    next(t for t in at.text_input if t.label == "Reason for forcing").set_value("auditor asked for the draft").run()
    assert not at.exception, at.exception
    [download] = at.get("download_button")
    assert download.proto.label == "Download Audit trail (JSON)"
    assert any("auditor asked for the draft" in w.value for w in at.warning)


def test_answer_sentence_labelled_unsupported_by_a_reviewer_lowers_support(workspace):
    wb, doc, run = workspace
    at = on_page(app(run=run.run_id), "answer", reviewer="Dana")
    at.button(key="sent_uns_2").click().run()
    assert not at.exception, at.exception
    [event] = wb.history(run.run_id, "SENT-2")
    assert (event.label, event.reviewer) == ("unsupported", "Dana")
    assert "50 %" in texts(at) and "labelled unsupported by Dana" in texts(at)
    at.button(key="sent_rst_2").click().run()
    assert "100 %" in texts(at)


def test_review_page_names_a_forged_review_event_and_ignores_it(workspace):
    """An event inserted with the database's insert rights alone (issue 37): the page says so
    first, and the forger's label decides nothing."""
    from sqlalchemy import text

    wb, doc, run = workspace
    ev = run.evidence[0].requirement_id
    with wb.store.engine.begin() as conn:
        conn.execute(text("INSERT INTO review_events (id, run_id, requirement_id, label, reviewer, note, timestamp) "
                          "VALUES (-1, :r, :e, 'unsupported', 'Ada Admin', '', '2026-01-01 00:00:00')"),
                     {"r": run.run_id, "e": ev})
    at = on_page(app(run=run.run_id, evidence=ev), "review")
    assert not at.exception, at.exception
    assert "review record of this run cannot be trusted" in at.error[0].value
    assert "review event -1" in at.error[0].value and "Ada Admin" in at.error[0].value
    assert wb.reviewed(run.run_id).status_for(ev).human_label is None


def test_a_two_document_run_gives_both_viewers_every_document_and_every_items_boxes(tmp_path, monkeypatch,
                                                                                  make_pdf):
    """So that J/K, a grid row or a chip naming the other document is shown by the viewer itself
    (tests/ui/test_viewer_documents_browser.py): each document's page sizes, name and labels, and
    each box naming its document. Sign-in off: no links."""
    wb, run, where, order, cited = two_document_run(tmp_path, monkeypatch, make_pdf)
    doc_ids = {doc_id for _, doc_id, _ in where.values()}
    for page, query in (("review", {"evidence": order[0]}), ("answer", {})):
        at = on_page(app(run=run.run_id, **query), page)
        (viewer,) = component_data(at, "pdf_viewer")
        assert set(viewer["documents"]) == doc_ids, page
        for doc_id, d in viewer["documents"].items():
            assert len(d["sizes"]) == wb.document(doc_id).pages and d["link"] == ""
            assert d["name"] == wb.document(doc_id).filename
        boxes = {(h["id"], h["doc"], h["page"]) for h in viewer["highlights"]}
        want = order if page == "review" else cited
        assert {(i, where[i][1], where[i][2]) for i in want} == boxes, page
