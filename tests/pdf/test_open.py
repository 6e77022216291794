"""Opening PDFs: identity, metadata, and every kind of bad input in the shared corpus."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from workbench.config import Settings
from workbench.errors import (
    DamagedPdfError,
    EmptyFileError,
    NotAPdfError,
    PasswordRequiredError,
    TooLargeError,
    TooManyPagesError,
    WrongPasswordError,
)
from workbench.pdf import open_pdf


def test_document_id_is_sha256_of_the_bytes_and_path_or_bytes_agree(make_pdf):
    path = make_pdf(["Hello world."])
    data = path.read_bytes()
    from_path, from_bytes = open_pdf(path), open_pdf(data, filename="x.pdf")
    assert from_path.document.id == from_bytes.document.id == hashlib.sha256(data).hexdigest()
    assert from_path.document.filename == path.name and from_bytes.document.filename == "x.pdf"
    assert from_path.pdf_bytes == data and from_path.document.size_bytes == len(data)


def test_metadata_gives_title_author_and_iso_dates(make_pdf):
    path = make_pdf(["x"], metadata={"title": "Safety Rules", "author": "J. Doe",
                                     "creationDate": "D:20200806083000-04'00'"})
    doc = open_pdf(path).document
    assert (doc.title, doc.author, doc.created) == ("Safety Rules", "J. Doe", "2020-08-06")


def test_empty_file_is_refused(tmp_path):
    p = tmp_path / "e.pdf"
    p.write_bytes(b"")
    with pytest.raises(EmptyFileError, match="empty"):
        open_pdf(p)


def test_text_file_named_pdf_is_not_a_pdf(tmp_path):
    p = tmp_path / "notes.pdf"
    p.write_text("plain text, not a PDF\n" * 20)
    with pytest.raises(NotAPdfError, match="not a PDF"):
        open_pdf(p)


def test_size_and_page_limits_come_from_settings(make_pdf):
    path = make_pdf(["one", "two", "three"])
    with pytest.raises(TooLargeError, match="MAX_UPLOAD_MB"):
        open_pdf(path, settings=Settings(max_upload_mb=0.0001))
    with pytest.raises(TooManyPagesError, match="3 pages"):
        open_pdf(path, settings=Settings(max_pages=2))


def _rows(manifest, folder):
    return [r for r in manifest if r["dest"].startswith(folder + "/")]


def test_every_encrypted_corpus_file_needs_its_password(corpus: Path, manifest):
    rows = _rows(manifest, "encrypted")
    assert rows
    for r in rows:
        path = corpus / "pdfs" / r["dest"]
        with pytest.raises(PasswordRequiredError, match="password"):
            open_pdf(path)
        with pytest.raises(WrongPasswordError, match="wrong"):
            open_pdf(path, password=r["password"] + "x")
        doc = open_pdf(path, password=r["password"])
        assert doc.document.pages == int(r["pages"]) and doc.document.encrypted
        if "aes-256" in r["dest"]:  # its MANIFEST says: text "Secret!"
            assert doc.locate("Secret!") is not None


def test_every_scanned_corpus_file_opens_and_names_its_pages_without_text(corpus: Path, manifest):
    """With OCR off (or unavailable) scanned pages are named; tests/pdf/test_ocr.py reads them."""
    rows = _rows(manifest, "scanned")
    assert rows
    for r in rows:
        doc = open_pdf(corpus / "pdfs" / r["dest"], settings=Settings.model_construct(ocr="off")).document
        assert doc.unread_pages == doc.pages_without_text and not doc.ocr_pages
        assert not doc.has_text_layer
        assert doc.pages_without_text == list(range(1, int(r["pages"]) + 1))
        assert any("no text layer" in w and "OCR" in w for w in doc.warnings)


def test_empty_and_half_truncated_corpus_files_are_refused(corpus: Path):
    with pytest.raises(EmptyFileError):
        open_pdf(corpus / "pdfs/malformed/empty_0bytes.pdf")
    with pytest.raises(DamagedPdfError, match="damaged"):
        open_pdf(corpus / "pdfs/malformed/tracemonkey_truncated-50pct_DERIVED.pdf")


def test_repairable_corpus_files_open_with_their_text(corpus: Path):
    dmca = open_pdf(corpus / "pdfs/malformed/dmca_truncated-98pct_DERIVED.pdf")
    assert dmca.document.pages == 18
    assert any("repaired on open" in w for w in dmca.document.warnings)
    assert dmca.locate("THE DIGITAL MILLENNIUM COPYRIGHT ACT") is not None
    zen = open_pdf(corpus / "pdfs/malformed/zen_of_python_corrupted.pdf")
    assert zen.locate("Beautiful is better than ugly") is not None
    assert any("damaged" in w and "zlib" in w for w in zen.document.warnings)
    geometry = open_pdf(corpus / "pdfs/malformed/malformed-from-issue-932.pdf")
    assert geometry.document.pages == 1


def test_every_other_corpus_pdf_opens_with_text(corpus: Path, manifest):
    for r in manifest:
        if r["dest"].split("/")[0] in {"encrypted", "scanned", "malformed"}:
            continue
        doc = open_pdf(corpus / "pdfs" / r["dest"])
        assert doc.document.pages == int(r["pages"]), r["dest"]
        assert doc.document.has_text_layer
