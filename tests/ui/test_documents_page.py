"""The Documents page: change a document's source type after ingest, remove it only after a
confirmation (it leaves the list; its runs stay), the sample not ingested twice."""

from __future__ import annotations

import pytest

from tests.ui.test_pages import app, on_page, texts
from workbench.ui.widgets import ingest_done


def button(at, label: str):
    return next(b for b in at.button if b.label == label)


def test_change_type_then_remove_with_confirmation(workspace):
    wb, doc, run = workspace
    at = on_page(app(), "documents")
    (kind,) = [s for s in at.selectbox if s.label == "Source type"]
    kind.set_value("contract").run()
    button(at, "Save type").click().run()
    assert not at.exception, at.exception
    assert wb.document(doc.id).source_type == "contract"
    assert "keep their letter" in texts(at)

    button(at, "Remove…").click().run()
    assert any("Remove" in w.value and "stay readable" in w.value for w in at.warning)
    button(at, "Cancel").click().run()
    assert wb.document(doc.id).removed_at is None  # nothing happens without the confirmation
    button(at, "Remove…").click().run()
    button(at, "Yes, remove it").click().run()
    assert not at.exception, at.exception
    assert wb.document(doc.id).removed_at is not None and wb.documents() == []
    assert "No documents yet" in texts(at)
    assert wb.reviewed(run.run_id).statuses  # its run is still readable


@pytest.mark.parametrize(("ingested", "files", "line"), [
    (1, 1, "Done: 1 of 1 file(s) ingested."),
    (0, 1, "Done: 0 of 1 file(s) ingested, 1 refused (below)."),  # a refused upload is not "Done: 1 file(s)"
    (2, 3, "Done: 2 of 3 file(s) ingested, 1 refused (below)."),
])
def test_the_upload_says_how_many_files_were_ingested_and_how_many_refused(ingested, files, line):
    assert ingest_done(ingested, files) == line
