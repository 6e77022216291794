"""Documents after ingest: source type inferred from the content (the user's choice wins),
changed later with issued IDs kept, and soft-deleted with runs that cite it still readable."""

from __future__ import annotations

from tests.ui.conftest import policy_pdf, seed_run, workspace  # noqa: F401 - fixtures
from workbench.config import get_settings
from workbench.service import Workbench

AGREEMENT = ("Reseller Agreement. This Agreement is entered into by and between the parties hereto. WHEREAS the "
             "Reseller wishes to resell the products; the parties agree as follows. This Agreement is governed by "
             "the laws of Delaware. In witness whereof the parties have signed this Agreement.")


def test_auto_infers_the_type_from_the_content_and_a_choice_wins(data_dir, make_pdf):
    wb = Workbench(get_settings())
    doc = wb.ingest(make_pdf([AGREEMENT], name="reseller.pdf"), "reseller.pdf", source_type="auto")
    assert (doc.source_type, doc.source_type_from) == ("contract", "content")
    mine = wb.ingest(make_pdf([AGREEMENT + " Annex."], name="r2.pdf"), "r2.pdf", source_type="paper")
    assert (mine.source_type, mine.source_type_from) == ("paper", "user")


def test_nist_sp_800_171_is_inferred_as_policy(data_dir, corpus):
    wb = Workbench(get_settings())
    assert wb.ingest(corpus / "pdfs/regulatory/NIST.SP.800-171r2.pdf", source_type="auto").source_type == "policy"


def test_changing_the_type_keeps_issued_ids_and_new_evidence_follows_it(workspace, make_pdf):  # noqa: F811
    wb, doc, run = workspace  # policy: REQ-P…
    old_ids = [e.requirement_id for e in run.evidence]
    assert wb.set_source_type(doc.id, "contract").source_type == "contract"
    assert wb.document(doc.id).source_type == "contract"
    assert [e.requirement_id for e in wb.run(run.run_id).evidence] == old_ids
    added = wb.add_evidence(run.run_id, doc.id, quote="Accounts are reviewed every quarter.", reviewer="ann")
    assert added.evidence.requirement_id.startswith("REQ-C")


def test_a_removed_document_leaves_the_list_but_its_runs_stay_readable(workspace):  # noqa: F811
    wb, doc, run = workspace
    wb.remove_document(doc.id, by="ann")
    assert doc.id not in {d.id for d in wb.documents()}
    removed = wb.document(doc.id)
    assert removed.removed_at is not None and removed.removed_by == "ann"
    assert wb.reviewed(run.run_id).statuses and wb.export([run.run_id], "csv").data
    again = seed_run(wb, doc.id, run_id="run-after")  # the store still has the bytes
    assert again.run_id == "run-after"
    wb.ingest(wb.pdf_bytes(doc.id), "policy.pdf")  # ingesting it again brings it back
    assert doc.id in {d.id for d in wb.documents()}
