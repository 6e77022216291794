"""Bibliographic facts read from the documents' own first pages (workbench.pdf.bibinfo), on
corpus PDFs, and the BibTeX / CSL-JSON entries the service exports from them."""

from __future__ import annotations

import json

import bibtexparser
import pytest

from workbench.pdf import open_pdf
from workbench.pdf.bibinfo import read_bibinfo


def bib(path):
    parsed = open_pdf(path)
    return parsed, read_bibinfo(parsed, parsed.document.title)


def test_nist_sp_800_171r2_is_a_february_2020_report_with_its_full_title_and_doi(corpus):
    parsed, info = bib(corpus / "pdfs/regulatory/NIST.SP.800-171r2.pdf")
    # The info dictionary is the 2024 re-export's, its title cut short: the cover says otherwise.
    assert parsed.document.created.startswith("2024") and parsed.document.title.endswith("Nonfederal Systems")
    assert info.title == "Protecting Controlled Unclassified Information in Nonfederal Systems and Organizations"
    assert info.doi == "10.6028/NIST.SP.800-171r2"
    assert info.report_number == "NIST SP 800-171r2"
    assert info.issued == "2020-02" and info.kind == "report"
    assert info.institution == "National Institute of Standards and Technology"


def test_other_corpus_documents_say_what_they_are_and_nothing_is_invented(corpus):
    _, hpc = bib(corpus / "pdfs/regulatory/NIST.SP.800-223_HPC-security.pdf")
    assert (hpc.doi, hpc.report_number, hpc.issued, hpc.kind) == (
        "10.6028/NIST.SP.800-223", "NIST SP 800-223", "2024-02", "report")
    _, fips = bib(corpus / "pdfs/regulatory/NIST.FIPS.201-2.pdf")
    assert fips.doi is None  # the withdrawal notice in front names FIPS 201-3's DOI, not this one's
    assert (fips.report_number, fips.issued, fips.kind) == ("FIPS 201-2", "2013-08", "report")
    _, qwen = bib(corpus / "pdfs/science/Qwen2-technical-report_arXiv2407.10671.pdf")
    assert (qwen.arxiv, qwen.kind, qwen.issued) == ("2407.10671", "article", "2024-09-10")
    _, contract = bib(corpus / "pdfs/contract/CUAD_CERES-Collaboration-Agreement.pdf")
    assert (contract.doi, contract.report_number, contract.issued, contract.kind) == (None, None, None, None)
    _, book = bib(corpus / "pdfs/large/freeculture_Lessig.pdf")
    assert book.title is None  # the metadata's "Free Culture" is already the full title


def test_a_contract_without_a_title_in_its_metadata_is_titled_by_its_first_heading_not_its_file(corpus):
    """CUAD filings carry no metadata title and one type size: the heading naming the agreement
    is the title, the filing's stamps ("Exhibit 10.7", "REDACTED COPY") are not."""
    parsed, info = bib(corpus / "cuad/pdf/ADUROBIOTECH,INC_06_02_2020-EX-10.7-CONSULTING AGREEMENT(1).PDF")
    assert not parsed.document.title and info.title == "CONSULTING AGREEMENT"
    _, stamped = bib(corpus / "cuad/pdf/ACCELERATEDTECHNOLOGIESHOLDINGCORP_04_24_2003-EX-10.13-JOINT VENTURE AGREEMENT.PDF")
    assert stamped.title == "JOINT VENTURE AGREEMENT"


@pytest.fixture
def nist_run(data_dir, corpus):
    from workbench.config import get_settings
    from workbench.models import Evidence, Run, Verification
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    doc = wb.ingest(corpus / "pdfs/regulatory/NIST.SP.800-171r2.pdf", source_type="policy")
    span = wb.parsed(doc.id).locate("Limit system access to authorized users")
    rid = wb.store.assign_evidence_id(doc.id, span.start, span.end, "policy")
    wb.store.save_run(Run(run_id="run-bib", question="Who may access the system?", document_ids=[doc.id],
                          evidence=[Evidence(requirement_id=rid, source_type="policy", document_id=doc.id,
                                             exact_quote=span.text, chunk_id="c0", span=span)],
                          verifications=[Verification(requirement_id=rid, verified=True, score=0.9)]))
    return wb


def test_the_exported_bibtex_and_csl_carry_the_documents_own_year_title_and_doi(nist_run):
    lib = bibtexparser.parse_string(nist_run.export(["run-bib"], "bibtex", force=True, reason="test",
                                                    by="t").data.decode())
    assert lib.failed_blocks == []
    (entry,) = lib.entries
    assert entry.entry_type == "techreport" and entry.key.endswith("2020")
    assert entry["title"] == "{Protecting Controlled Unclassified Information in Nonfederal Systems and Organizations}"
    assert (entry["year"], entry["month"]) == ("2020", "feb")
    assert entry["doi"] == "10.6028/NIST.SP.800-171r2" and entry["number"] == "NIST SP 800-171r2"
    assert entry["institution"] == "National Institute of Standards and Technology"
    (item,) = json.loads(nist_run.export(["run-bib"], "csljson", force=True, reason="test", by="t").data)
    assert item["type"] == "report" and item["issued"] == {"date-parts": [[2020, 2]]}
    assert item["DOI"] == "10.6028/NIST.SP.800-171r2" and item["number"] == "NIST SP 800-171r2"
    assert item["title"].endswith("Nonfederal Systems and Organizations")
