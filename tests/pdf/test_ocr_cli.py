"""`workbench locate` and `workbench ask` on a scan (issue 42): a quote on an OCR'd page comes back
with page, offsets, SHA-256 and boxes over its words, said to be read by OCR, from the reading
ingest kept (no page is read again)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import CountingOcr, words_read_under
from workbench.cli import main
from workbench.config import get_settings
from workbench.models import sha256_text

QUOTE = "Spring Plunger Elimination Kit No. SK-107 (ordered separately) must be installed"


@pytest.fixture
def in_ocr_workspace(ocr_workspace, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(ocr_workspace.data_dir))
    monkeypatch.setenv("WORKBENCH_OCR_LANGUAGES", "eng")
    get_settings.cache_clear()
    yield ocr_workspace
    get_settings.cache_clear()


def test_locate_on_an_ingested_scan_quotes_what_ocr_read_with_boxes_over_the_words(
        in_ocr_workspace, ocr_reference, tmp_path, capsys):
    quotes = tmp_path / "quotes.txt"
    quotes.write_text(QUOTE + "\n")
    with CountingOcr() as counted:
        code = main(["locate", str(in_ocr_workspace.pdf), "--quotes", str(quotes), "--json"])
    out = capsys.readouterr().out
    assert code == 0 and counted.pages == 0  # the workspace's reading, not a second one
    [row] = [json.loads(line) for line in out.splitlines()]
    assert row["found"] and row["page"] == 1 and row["text_sha256"] == sha256_text(row["text"])
    assert " ".join(row["text"].split()) == QUOTE and row["end"] - row["start"] == len(row["text"])
    assert 0.5 < row["ocr_confidence"] <= 1.0
    assert " ".join(words_read_under(ocr_reference, row["rects"]).split()) == QUOTE


def test_ask_on_a_scan_cites_evidence_from_the_ocr_page_and_says_so(in_ocr_workspace, tmp_path, capsys):
    out = tmp_path / "trail.json"
    with CountingOcr() as counted:
        code = main(["ask", str(in_ocr_workspace.pdf), "--question",
                     "What must be installed on aircraft AA1-0001 through AA1-0224 with this kit?",
                     "--out", str(out)])
    capsys.readouterr()
    assert code == 0 and counted.pages == 0
    trail = json.loads(out.read_text())
    doc = in_ocr_workspace.wb.parsed(in_ocr_workspace.doc.id)
    spans = [r for r in trail["extracted_requirements"] if r.get("text_sha256")]
    assert spans, trail
    for r in spans:
        text = doc.text[r["start"]:r["end"]]
        assert sha256_text(text) == r["text_sha256"] and r["page"] in (1, 2)
        assert r["read_by_ocr"] and 0 < r["ocr_confidence"] <= 1  # the trail says the quote is what OCR read
    assert any("Spring Plunger Elimination Kit" in r["exact_quote"] for r in spans), [r["exact_quote"] for r in spans]
