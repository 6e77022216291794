"""AppTest specification of the Table page: a checklist typed in builds a table whose cells fill
in as their jobs finish; the grid shows each cell's short answer as text, and a cell's detail its
quote and the way to Review."""

from __future__ import annotations

import time

from tests.ui.test_pages import app, on_page
from workbench.config import get_settings

AMENDMENT = ("AMENDMENT NO. 1 TO THE SERVICES AGREEMENT. The governing law section is replaced as follows: This "
             "Agreement shall be governed by the laws of the State of Texas.")
CONTRACT = ("SERVICES AGREEMENT. This Agreement shall be governed by the laws of the State of Delaware. "
            "Either party may terminate it on thirty (30) days' written notice. **Bold** <b>tag</b> [x](http://e.x)")


def test_table_page_builds_a_table_from_a_typed_checklist_and_fills_the_grid(data_dir, make_pdf):
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    wb.ingest(make_pdf([CONTRACT], name="services.pdf"), source_type="contract")
    at = on_page(app(), "table")
    assert at.title[0].value == "Table"
    at.radio(key="table_new_source").set_value("Type questions").run()
    at.text_area(key="table_new_text").set_value(
        "Governing law: Which state's laws govern this agreement?\nAudit rights: Does this agreement allow an audit?"
    ).run()
    at.text_input(key="table_name").set_value("Falcon").run()
    at.button(key="table_run").click().run()
    assert not at.exception, at.exception
    (table,) = wb.tables()
    assert (table.name, [c.key for c in table.columns]) == ("Falcon", ["Governing law", "Audit rights"])
    deadline = time.monotonic() + 300
    while True:  # the app's own in-process queue answers the cells: the page says how far it is
        at.run()
        assert not at.exception, at.exception
        progress = at.get("progress")[0].proto.text
        if "running" not in progress and "queued" not in progress:
            break
        assert time.monotonic() < deadline, progress
        time.sleep(0.5)
    assert "2 done" in progress
    (node,) = [n for n in at.get("component_instance") if n.proto.id.endswith(table.table_id)]
    grid = _frame(node.proto)
    assert [c for c in grid.columns if not c.startswith("::")] == ["Document", "Governing law", "Audit rights"]
    row = grid.iloc[0].to_dict()  # one row per document, every cell plain text
    assert row["Document"] == "services.pdf" and row["Governing law"] == "Delaware" and row["Audit rights"] == "not found"
    texts = [t.value for t in at.text]
    assert any("laws of the State of Delaware" in t for t in texts)  # the cell's quote, as text
    assert at.button(key=next(b.key for b in at.button if b.key and b.key.startswith("open_"))).label == "Open"
    # the exports are offered, XLSX first; each file is made on click (its bytes: tests/export/test_xlsx.py)
    downloads = [d.proto for d in at.get("download_button")]
    assert [d.label for d in downloads] == ["Download XLSX", "Download CSV", "Download JSON"]

    # an amendment linked to the row: the row reads it too, and its clause is the answer, marked
    amendment = wb.ingest(make_pdf([AMENDMENT], name="amendment-1.pdf"), source_type="contract")
    at.run()
    at.selectbox(key="table_relate_row").set_value("services.pdf").run()
    at.multiselect(key="table_relate_services.pdf").set_value([amendment.id]).run()
    at.button(key="table_relate").click().run()
    assert not at.exception, at.exception
    assert wb.table(table.table_id).rows[0].related == [amendment.id]
    _settle(at, deadline=time.monotonic() + 300)
    grid = _frame(next(n for n in at.get("component_instance") if n.proto.id.endswith(table.table_id)).proto)
    assert grid.iloc[0].to_dict()["Governing law"] == "Texas"
    assert any("from an amendment" in c.value for c in at.caption)


def _settle(at, deadline: float) -> str:
    while True:
        at.run()
        assert not at.exception, at.exception
        progress = at.get("progress")[0].proto.text
        if "running" not in progress and "queued" not in progress:
            return progress
        assert time.monotonic() < deadline, progress
        time.sleep(0.5)


def _frame(proto):
    """The data frame a grid component was sent (Arrow IPC), as pandas."""
    import pyarrow as pa

    (arg,) = [a for a in proto.special_args if a.HasField("arrow_dataframe")]
    return pa.ipc.open_stream(arg.arrow_dataframe.data.data).read_all().to_pandas()
