"""Related documents in a review table (issue 43): an amendment linked to the contract it changes.
The contract's row then answers from both — the amendment's clause first and marked as such, the
original clause still cited — and its cells say they are stale until answered again; unlinking
makes them stale once more. One contract of the corpus and an amendment typeset in the test."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pymupdf
import pytest

from workbench.config import load_settings
from workbench.errors import NotFoundError, WorkbenchError
from workbench.service import Workbench

pytestmark = [pytest.mark.corpus, pytest.mark.slow]

ADAMS = "ADAMSGOLFINC_03_21_2005-EX-10.17-ENDORSEMENT AGREEMENT.PDF"  # governed by the laws of Kansas
AMENDMENT = (
    "AMENDMENT NO. 1 TO THE ENDORSEMENT AGREEMENT\n\n"
    "This Amendment No. 1 amends the Endorsement Agreement between Adams Golf, Ltd. and Nick Price.\n\n"
    "1. Governing Law. The governing law section of the Agreement is deleted and replaced as follows: This "
    "Agreement shall be governed and construed according to the laws of the State of Texas.\n\n"
    "2. Except as amended by this Amendment, the Agreement remains in full force and effect.\n")
CHECKLIST = "Governing law: Which state's or country's laws govern this agreement?\n"


def _typeset(text: str, path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    assert page.insert_textbox(pymupdf.Rect(72, 72, 540, 720), text, fontsize=11, fontname="tiro") >= 0
    doc.save(path)
    return path


@pytest.fixture(scope="module")
def related(corpus: Path, tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("related")
    wb = Workbench(load_settings(data_dir=tmp / "data", index_on_ingest=False, embed_threads=1))
    adams = wb.ingest(corpus / "cuad" / "pdf" / ADAMS, source_type="contract")
    amendment = wb.ingest(_typeset(AMENDMENT, tmp / "amendment-1.pdf"), source_type="contract")
    table = wb.create_table([adams.id], wb.checklist(CHECKLIST), name="amended")
    wb.wait([r.job_id for r in wb.run_table(table.table_id)], timeout=600)
    before = wb.table_view(table.table_id).cell(ADAMS, "Governing law")
    wb.relate_documents(table.table_id, ADAMS, [amendment.id])
    stale = wb.table_view(table.table_id).cell(ADAMS, "Governing law")
    records = wb.run_table(table.table_id)
    wb.wait([r.job_id for r in records], timeout=600)
    yield wb, table, adams, amendment, before, stale, records
    wb.store.dispose()


def test_before_the_link_the_row_reads_its_own_contract(related):
    *_, before, _stale, _records = related
    assert before.short_answer == "Kansas" and not any(c.amendment for c in before.citations)


def test_linking_an_amendment_makes_the_rows_cells_stale_and_only_they_run_again(related):
    _wb, _table, _adams, _amendment, _before, stale, records = related
    assert stale.status == "stale" and any("related documents changed" in s for s in stale.stale)
    assert [(r.row_key, r.column_key) for r in records] == [(ADAMS, "Governing law")]


def test_the_row_answers_from_both_the_amendments_clause_first_and_marked(related):
    wb, table, adams, amendment, *_ = related
    cell = wb.table_view(table.table_id).cell(ADAMS, "Governing law")
    assert cell.status == "done" and not cell.stale
    assert wb.run(cell.run_id).document_ids == [adams.id, amendment.id]
    assert (cell.short_answer, cell.normalized) == ("Texas", "Texas")
    first = cell.citations[0]
    assert first.amendment and first.document_id == amendment.id and "State of Texas" in first.quote
    assert all(not c.amendment for c in cell.citations if c.document_id == adams.id)


def test_exports_mark_the_amendments_quote(related):
    wb, table, *_ = related
    data, _media, _ext = wb.export_table(table.table_id, "csv")
    [row] = [r for r in csv.DictReader(io.StringIO(data.decode("utf-8-sig"))) if r["document"] == ADAMS]
    assert row["citations"].split(" | ")[0].split("]")[1].startswith(" amendment,")


def test_unlinking_makes_the_cells_stale_again_and_bad_links_are_refused(related):
    wb, table, adams, *_ = related
    with pytest.raises(WorkbenchError, match="cannot amend itself"):
        wb.relate_documents(table.table_id, ADAMS, [adams.id])
    with pytest.raises(NotFoundError):
        wb.relate_documents(table.table_id, "no-such.pdf", [])
    with pytest.raises(NotFoundError):
        wb.relate_documents(table.table_id, ADAMS, ["0" * 64])
    wb.relate_documents(table.table_id, ADAMS, [])
    cell = wb.table_view(table.table_id).cell(ADAMS, "Governing law")
    assert cell.status == "stale" and any("related documents changed" in s for s in cell.stale)
