"""`workbench ingest` and `workbench locate`: JSON lines on stdout, exit 2 with one stderr line
for bad input, never a traceback."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.cli import main

ROOT = Path(__file__).resolve().parents[1]
INGEST_KEYS = {"document_id", "filename", "pages", "has_text_layer", "pages_without_text", "title", "warnings"}
LOCATE_KEYS = {"quote", "found", "page", "page_label", "pages", "start", "end", "text", "text_sha256", "rects"}
TEXT = ("The Supplier shall deliver the Goods to the Buyer within ten business days of each purchase order "
        "and shall bear the risk of loss until delivery.")


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def test_ingest_json_prints_one_object_per_file(make_pdf, capsys, data_dir):
    a, b = make_pdf([TEXT], name="a.pdf"), make_pdf([TEXT, TEXT], name="b.pdf")
    code, rows, err = run(["ingest", str(a), str(b), "--json"], capsys)
    assert code == 0 and err == ""
    assert [r["filename"] for r in rows] == ["a.pdf", "b.pdf"] and [r["pages"] for r in rows] == [1, 2]
    assert all(r.keys() >= INGEST_KEYS and r["has_text_layer"] and r["pages_without_text"] == [] for r in rows)


AGREEMENT = ("MASTER SUPPLY AGREEMENT. This Agreement is entered into by and between the parties hereto. WHEREAS the "
             "Supplier wishes to supply Goods to the Buyer, the parties agree as follows. This Agreement is governed by "
             "the laws of the State of Delaware. Either party may terminate this Agreement on written notice. "
             "IN WITNESS WHEREOF the parties have signed this Agreement as of the Effective Date.")


def test_a_document_typed_by_no_one_is_typed_from_its_words_as_the_app_does(make_pdf, capsys, data_dir):
    """A contract ingested from the command line without --source-type is a contract (its clause
    topics then count towards relevance), not "other"; a type named on the command line wins."""
    code, rows, _ = run(["ingest", str(make_pdf([AGREEMENT], name="msa.pdf")), "--json"], capsys)
    assert code == 0 and rows[0]["source_type"] == "contract"
    code, rows, _ = run(["ingest", str(make_pdf([TEXT], name="memo.pdf")), "--json"], capsys)
    assert code == 0 and rows[0]["source_type"] == "other"  # no clear signal: other
    code, rows, _ = run(["ingest", str(make_pdf([AGREEMENT, TEXT], name="typed.pdf")), "--source-type", "policy",
                         "--json"], capsys)
    assert code == 0 and rows[0]["source_type"] == "policy"


def test_ingest_scanned_and_encrypted_corpus_files(corpus, capsys, data_dir, monkeypatch):
    monkeypatch.setenv("WORKBENCH_OCR", "off")  # named as scanned; tests/pdf/test_ocr_cli.py reads it by OCR
    scanned = corpus / "pdfs/scanned/grumman-service-kit-1974_scanned.pdf"
    code, rows, _ = run(["ingest", str(scanned), "--json"], capsys)
    assert code == 0 and rows[0]["pages_without_text"] == [1, 2] and rows[0]["warnings"]
    enc = corpus / "pdfs/encrypted/password-example_pw-test.pdf"
    monkeypatch.setattr(sys, "stdin", io.StringIO("test\n"))
    code, rows, _ = run(["ingest", str(enc), "--password-stdin", "--json"], capsys)
    assert code == 0 and rows[0]["pages"] == 4
    code, rows, err = run(["ingest", str(enc), "--json"], capsys)
    assert code == 2 and rows == [] and "--password-stdin" in err


@pytest.mark.parametrize("content, needle", [(b"", "empty"), (b"hello, not a pdf\n" * 30, "not a PDF"),
                                             (b"%PDF-1.7\n garbage", "damaged")])
def test_bad_input_exits_2_with_one_stderr_line(tmp_path, capsys, data_dir, content, needle):
    p = tmp_path / "bad.pdf"
    p.write_bytes(content)
    code, rows, err = run(["ingest", str(p), "--json"], capsys)
    assert code == 2 and rows == []
    assert err.count("\n") == 1 and needle in err and "Traceback" not in err


def test_missing_file_and_missing_quotes_file_are_usage_errors(make_pdf, tmp_path, capsys, data_dir):
    code, _, err = run(["ingest", str(tmp_path / "nope.pdf")], capsys)
    assert code == 2 and "no such file" in err
    code, _, err = run(["locate", str(make_pdf([TEXT])), "--quotes", str(tmp_path / "q.txt")], capsys)
    assert code == 2 and "no such file" in err


def test_locate_json_reports_found_and_not_found_quotes(make_pdf, tmp_path, capsys, data_dir):
    pdf = make_pdf([TEXT])
    quotes = tmp_path / "q.txt"
    quotes.write_text("deliver the Goods to the Buyer within ten business days\n\nwithin thirty days of delivery\n")
    code, rows, err = run(["locate", str(pdf), "--quotes", str(quotes), "--json"], capsys)
    assert code == 0 and err == "" and len(rows) == 2
    hit, miss = rows
    assert hit.keys() >= LOCATE_KEYS and miss.keys() >= LOCATE_KEYS
    assert hit["found"] and hit["page"] == 1 and hit["pages"] == [1]
    assert hit["text"].replace("\n", " ") == "deliver the Goods to the Buyer within ten business days"
    assert all(len(r) == 5 and r[0] == 1 for r in hit["rects"])
    assert miss["found"] is False and miss["rects"] == [] and miss["text"] is None
    assert hit.get("closest") is None  # a verbatim find needs no candidate


def test_a_quote_not_found_verbatim_gets_the_closest_passage_flagged_never_an_anchor(make_pdf, tmp_path, capsys,
                                                                                    data_dir):
    """As a quote typed from the paper original of a scan OCR misread one letter of (issue 42)."""
    pdf = make_pdf([TEXT])
    quotes = tmp_path / "q.txt"
    quotes.write_text("deliver the Goods to the Buyer within ten business dags of each purchase order\n"
                      "the moon is made of green cheese entirely\n")
    code, rows, _ = run(["locate", str(pdf), "--quotes", str(quotes), "--json"], capsys)
    near, nothing = rows
    assert code == 0 and near["found"] is False and near["text_sha256"] is None and near["rects"] == []
    offered = near["closest"]
    assert offered["page"] == 1 and 0.9 < offered["similarity"] < 1.0
    assert " ".join(offered["text"].split()).startswith("deliver the Goods to the Buyer within ten business days")
    assert offered["rects"] and all(r[0] == 1 for r in offered["rects"])
    assert nothing["found"] is False and nothing["closest"] is None  # nothing near: no candidate invented

    assert main(["locate", str(pdf), "--quotes", str(quotes)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("NOT FOUND  deliver the Goods")
    assert lines[1].startswith("  closest (not verbatim, similarity 0.9") and "p. 1 [" in lines[1]
    assert lines[2].startswith("NOT FOUND  the moon") and len(lines) == 3


def test_cli_process_has_no_traceback_for_bad_input(tmp_path):
    p = tmp_path / "notes.pdf"
    p.write_text("not a pdf\n")
    proc = subprocess.run([sys.executable, "-m", "workbench", "ingest", str(p), "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
