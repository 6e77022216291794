"""A review table on real CUAD contracts: every cell a stored run, its short answer the words of a
verified quote (normalised beside them), "not found" when nothing is verified, stale when its
document, question or the engine changes, and the reviewer's correction recorded append-only and
winning. One workspace for the module: two contracts, three questions."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from workbench.config import load_settings
from workbench.errors import ReviewerRequiredError
from workbench.models import CELL_ID, NO_AUTHORITATIVE_EVIDENCE, TableColumn
from workbench.service import Workbench

pytestmark = [pytest.mark.corpus, pytest.mark.slow]

ADAMS = "ADAMSGOLFINC_03_21_2005-EX-10.17-ENDORSEMENT AGREEMENT.PDF"
CANO = "CANOPETROLEUM,INC_12_13_2007-EX-10.1-Sponsorship Agreement.PDF"
CHECKLIST = """# three columns
Governing law: Which state's or country's laws govern this agreement?
Agreement date: What is the date of this agreement?
Audit rights: Does this agreement give a party the right to audit the books or records of the other?
"""


@pytest.fixture(scope="module")
def built(corpus: Path, tmp_path_factory: pytest.TempPathFactory):
    data = tmp_path_factory.mktemp("table") / "data"
    wb = Workbench(load_settings(data_dir=data, index_on_ingest=False, embed_threads=1))
    ids = [wb.ingest(corpus / "cuad" / "pdf" / f, source_type="contract").id for f in (ADAMS, CANO)]
    table = wb.create_table(ids, wb.checklist(CHECKLIST), name="two contracts")
    records = wb.run_table(table.table_id)
    wb.wait([r.job_id for r in records], timeout=600)
    return wb, table, records


def _cell(wb: Workbench, table_id: str, filename: str, column: str):
    return wb.table_view(table_id).cell(filename, column)


def test_every_cell_is_a_stored_run_of_one_question_over_one_document(built):
    wb, table, records = built
    view = wb.table_view(table.table_id)
    assert len(records) == 6 and view.counts == {"done": 6}
    for c in view.cells:
        run = wb.run(c.run_id)  # a normal run: review, history and exports read it as any other
        assert run.document_ids == [c.document_id] and run.question == c.question
    assert {wb.job(r.job_id).kind for r in records} == {"cell"}


def test_a_fact_cell_shows_the_words_of_its_verified_quote_normalised_beside_them(built):
    wb, table, _ = built
    law = _cell(wb, table.table_id, ADAMS, "Governing law")
    assert (law.short_answer, law.normalized, law.kind) == ("Kansas", "Kansas", "jurisdiction")
    basis = law.citations[0]
    assert basis.requirement_id == law.basis and "laws of the State of Kansas" in basis.quote and basis.page
    assert _cell(wb, table.table_id, CANO, "Governing law").normalized == "Texas"
    date = _cell(wb, table.table_id, CANO, "Agreement date")
    assert date.normalized == "2007-12-05" and date.short_answer in date.citations[0].quote


def test_a_cell_without_verified_evidence_reads_not_found_never_no(built):
    wb, table, _ = built
    audit = _cell(wb, table.table_id, ADAMS, "Audit rights")
    assert audit.kind == "yes_no" and audit.status == "done"
    assert (audit.short_answer, audit.result, audit.citations) == ("not found", NO_AUTHORITATIVE_EVIDENCE, [])
    assert audit.grounding_confidence == "insufficient"


def test_adding_a_question_runs_only_its_new_cells_and_a_changed_question_makes_its_cells_stale(built):
    wb, table, _ = built
    wb.add_to_table(table.table_id, columns=[TableColumn(key="Term", question="What is the initial term of this agreement?")])
    new = wb.run_table(table.table_id)
    assert sorted((r.row_key, r.column_key) for r in new) == [(ADAMS, "Term"), (CANO, "Term")]
    wb.wait([r.job_id for r in new], timeout=600)
    assert wb.run_table(table.table_id) == []  # nothing new, nothing stale: nothing runs

    wb.add_to_table(table.table_id, columns=[TableColumn(key="Term", question="How long does this agreement last?")])
    view = wb.table_view(table.table_id)
    stale = [c for c in view.cells if c.status == "stale"]
    assert [(c.row_key, c.column_key) for c in stale] == [(ADAMS, "Term"), (CANO, "Term")]
    assert stale[0].stale == ["the question changed"] and stale[0].short_answer  # the old answer stays, marked
    again = wb.run_table(table.table_id)
    assert [r.column_key for r in again] == ["Term", "Term"]
    wb.wait([r.job_id for r in again], timeout=600)
    assert wb.table_view(table.table_id).counts == {"done": 8}


def test_a_new_version_of_a_document_or_another_engine_makes_cells_stale(built, corpus: Path, tmp_path: Path):
    wb, table, _ = built
    other = Workbench(load_settings(data_dir=wb.settings.data_dir, index_on_ingest=False, top_k=wb.settings.top_k + 1))
    assert other.engine_version() != wb.engine_version()
    assert all(c.status == "stale" and any("engine changed" in s for s in c.stale)
               for c in other.table_view(table.table_id).cells)

    copy = tmp_path / CANO
    shutil.copy(corpus / "cuad" / "pdf" / CANO, copy)
    with copy.open("ab") as f:
        f.write(b"\n% a new version of the same contract\n")
    newer = wb.ingest(copy, source_type="contract")
    grown = wb.add_to_table(table.table_id, document_ids=[newer.id])
    assert [r.document_id for r in grown.rows if r.key == CANO] == [newer.id] and len(grown.rows) == 2
    cano = [c for c in wb.table_view(table.table_id).cells if c.row_key == CANO]
    assert all(c.status == "stale" and c.stale[0].startswith("the document changed") for c in cano)


def test_a_correction_is_an_append_only_event_with_who_and_why_and_it_wins(built):
    wb, table, _ = built
    with pytest.raises(ReviewerRequiredError):
        wb.correct_cell(table.table_id, ADAMS, "Governing law", "Missouri", reviewer="")
    ev = wb.correct_cell(table.table_id, ADAMS, "Governing law", "the laws of Missouri", reviewer="dana",
                         note="amendment 2 moved governing law")
    law = _cell(wb, table.table_id, ADAMS, "Governing law")
    assert (law.short_answer, law.normalized, law.review, law.reviewed_by) == (
        "the laws of Missouri", "Missouri", "corrected", "dana")
    assert law.machine_short_answer == "Kansas" and law.review_note == "amendment 2 moved governing law"

    wb.correct_cell(table.table_id, ADAMS, "Governing law", None, reviewer="dana", note="amendment withdrawn")
    assert _cell(wb, table.table_id, ADAMS, "Governing law").short_answer == "Kansas"
    history = [e for e in wb.history(law.run_id) if e.requirement_id == CELL_ID]
    assert [(e.label, e.value, e.reviewer) for e in history] == [("supported", "the laws of Missouri", "dana"),
                                                                 ("reset", None, "dana")]
    assert history[0].id == ev.id and wb.record_problems(law.run_id) == []  # chained like every decision


def test_rejecting_the_quote_a_cell_rests_on_moves_the_cell_off_it(built):
    wb, table, _ = built
    date = _cell(wb, table.table_id, ADAMS, "Agreement date")
    wb.review_cell(table.table_id, ADAMS, "Agreement date", "unsupported", reviewer="lee", note="a signature date")
    after = _cell(wb, table.table_id, ADAMS, "Agreement date")
    assert after.basis != date.basis and date.basis not in [c.requirement_id for c in after.citations]
    assert wb.reviewed(date.run_id).status_for(date.basis).final_status == "unsupported"


def test_the_xlsx_export_is_the_table_as_read_and_every_quote_hashes_to_its_document_text(built):
    from tests.export.xlsx_read import Workbook
    from workbench.models import sha256_text

    wb, table, _ = built
    data, media, ext = wb.export_table(table.table_id, "xlsx")
    assert (media, ext) == ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx")
    book, view = Workbook(data), wb.table_view(table.table_id)
    grid = book.rows("Table")
    assert grid[0] == ["Document", *[c.key for c in view.table.columns], "Document SHA-256"]
    assert [r[0] for r in grid[1:]] == [r.filename for r in view.table.rows]  # a row per document
    legend = {c.value: c.fill for c in book.cells("Legend").values()}
    cells = book.cells("Table")
    for i, row in enumerate(view.table.rows):
        for j, col in enumerate(view.table.columns):
            c, shown = view.cell(row.key, col.key), cells[f"{'BCDEFGH'[j]}{i + 2}"]
            assert all(x.requirement_id in shown.value for x in c.citations)
            want = ("stale" if c.status == "stale" else "corrected" if c.review == "corrected"
                    else "not found" if c.result == NO_AUTHORITATIVE_EVIDENCE else None)
            assert shown.fill == (legend[want] if want else None), (row.key, col.key, c.status, c.review)
    cites = book.records("Citations")
    assert len(cites) == sum(len(c.citations) for c in view.cells) > 0
    for r in cites:  # an auditor recomputes each hash from the document's text and the offsets
        exact = wb.parsed(r["Document SHA-256"]).text[r["Start"]:r["End"]]
        assert sha256_text(exact) == r["Quote SHA-256"] and " ".join(exact.split()) == r["Quote"]
