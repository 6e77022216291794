"""The Run page: runs go on in the background (workbench.jobs through the service), the document
selection is remembered across pages, labels name the documents, the card shows the answer."""

from __future__ import annotations

from tests.ui.conftest import QUESTION
from tests.ui.test_pages import PAGES, app, on_page, texts


def test_the_document_selection_survives_a_visit_to_another_page(workspace, make_pdf):
    wb, doc, _ = workspace
    other = wb.ingest(make_pdf(["Another document about retention."], name="other.pdf"), "other.pdf")
    at = on_page(app(), "run")
    assert at.multiselect[0].value == [doc.id]  # the last run's documents
    at.multiselect[0].set_value([other.id]).run()
    at.switch_page(str(PAGES / "answer.py")).run()
    at.switch_page(str(PAGES / "run.py")).run()
    assert not at.exception, at.exception
    assert at.multiselect[0].value == [other.id]


def test_a_finished_run_shows_its_documents_answer_and_badge_and_labels_name_the_documents(workspace):
    wb, doc, seeded = workspace
    at = on_page(app(), "run")
    at.text_area[0].set_value("How often must audit records be reviewed?")
    next(b for b in at.button if b.label == "Run").click().run()
    assert not at.exception, at.exception
    shown = texts(at)
    assert "policy.pdf" in shown and "% of sentences supported" in shown, shown
    answer = wb.reviewed(wb.runs()[0].run_id).answer.final_answer
    assert answer and any(answer in t.value for t in at.text), "the results card shows the answer"
    at = on_page(app(run=seeded.run_id), "review")
    (picker,) = [s for s in at.selectbox if s.label == "Run"]
    assert any(QUESTION in o and "policy.pdf" in o for o in picker.options), picker.options


def test_a_running_stage_shows_its_time_going_on_and_finished_ones_their_own():
    """The first question on a 154-page contract sat at "Extract running 0.00" for over a minute:
    the running stage's clock goes on between events; finished stages keep their measured time."""
    from workbench.models import StageEvent
    from workbench.ui.widgets import stage_table

    events = [StageEvent(stage="retrieval", status="started"), StageEvent(stage="retrieval", status="done", elapsed=0.04),
              StageEvent(stage="extract", status="started", elapsed=0.0)]
    rows = stage_table(events, running_for=42.0).set_index("Stage")
    assert rows.loc["Extract", "Status"] == "running" and rows.loc["Extract", "Time (s)"] == "42.0"
    assert rows.loc["Retrieval", "Status"] == "done" and rows.loc["Retrieval", "Time (s)"] == "0.04"
    done = stage_table([*events, StageEvent(stage="extract", status="done", elapsed=61.5)], running_for=3.0)
    assert done.set_index("Stage").loc["Extract", "Time (s)"] == "61.50"


def test_a_fresh_session_preselects_the_last_runs_documents_not_every_document(workspace, make_pdf):
    wb, doc, _ = workspace  # the seeded run asked about `doc`
    wb.ingest(make_pdf(["A long sample nobody asked about."], name="sample.pdf"), "sample.pdf")
    at = on_page(app(), "run")  # a reload: a new session
    assert at.multiselect[0].value == [doc.id]
    at = on_page(app(), "check")
    assert at.multiselect[0].value == [doc.id]
