"""Ingesting a stored PDF again without naming a source type keeps the type a reviewer chose."""

from __future__ import annotations

import json

from workbench.cli import main
from workbench.config import get_settings
from workbench.service import Workbench

TEXT = "The Supplier shall deliver the Goods to the Buyer within ten business days of each purchase order."


def test_reingest_without_a_source_type_keeps_the_stored_one(make_pdf, data_dir):
    wb = Workbench(get_settings())
    pdf = make_pdf([TEXT], name="supply.pdf")
    assert wb.ingest(pdf, source_type="contract").source_type == "contract"
    # e.g. `workbench verify supply.pdf` ingests without a type: the contract stays a contract
    assert wb.ingest(pdf).source_type == "contract"
    assert [d.source_type for d in wb.documents()] == ["contract"]
    assert wb.ingest(pdf, source_type="policy").source_type == "policy"  # an explicit choice wins


def test_a_new_document_without_a_source_type_is_other(make_pdf, data_dir):
    assert Workbench(get_settings()).ingest(make_pdf([TEXT])).source_type == "other"


def test_cli_ingest_reports_the_stored_source_type(make_pdf, data_dir, capsys):
    pdf = str(make_pdf([TEXT], name="supply.pdf"))
    assert main(["ingest", pdf, "--source-type", "contract", "--json"]) == 0
    assert main(["ingest", pdf, "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["source_type"] for r in rows] == ["contract", "contract"]
