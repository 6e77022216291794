"""The workspace's parsed-document cache: keyed by parser version and SHA-256, without a second
copy of the PDF bytes, bounded in memory, loud (logged) when it has to rebuild, and data only:
a file planted in the data folder is never executed."""

from __future__ import annotations

import hashlib
import json
import logging
import pickle

import pytest

from workbench.pdf import open_pdf
from workbench.pdf.cache import PARSER_VERSION, ParsedCache


@pytest.fixture
def pdfs(make_pdf):
    """Three stored PDFs by id, and a parse function that counts its calls."""
    data = {}
    for i in range(3):
        raw = make_pdf([f"Document {i} says the tenant shall pay rent."], name=f"d{i}.pdf").read_bytes()
        data[hashlib.sha256(raw).hexdigest()] = raw
    calls: list[str] = []

    def parse(doc_id: str):
        calls.append(doc_id)
        return open_pdf(data[doc_id])

    return data, parse, calls


def test_the_file_is_named_by_sha256_and_parser_version_and_holds_no_pdf_bytes(pdfs, tmp_path):
    data, parse, _ = pdfs
    doc_id, raw = next(iter(data.items()))
    cache = ParsedCache(tmp_path, parse)
    parsed = cache.get(doc_id)
    path = tmp_path / f"{doc_id}.v{PARSER_VERSION}.json"
    assert cache.path(doc_id) == path and path.is_file()
    assert raw not in path.read_bytes()  # the store keeps the bytes; the cache does not copy them
    assert parsed.pdf_bytes is None and "tenant shall pay rent" in parsed.text


def test_a_new_workspace_reads_the_file_instead_of_parsing_again(pdfs, tmp_path):
    data, parse, calls = pdfs
    doc_id = next(iter(data))
    text = ParsedCache(tmp_path, parse).get(doc_id).text
    assert ParsedCache(tmp_path, parse).get(doc_id).text == text
    assert calls == [doc_id]


def test_a_corrupt_file_is_logged_and_rebuilt(pdfs, tmp_path, caplog):
    data, parse, calls = pdfs
    doc_id = next(iter(data))
    cache = ParsedCache(tmp_path, parse)
    cache.get(doc_id)
    cache.path(doc_id).write_bytes(b"not a cache file")
    with caplog.at_level(logging.WARNING, logger="workbench.pdf.cache"):
        assert "tenant" in ParsedCache(tmp_path, parse).get(doc_id).text
    assert len(calls) == 2 and "unreadable" in caplog.text and doc_id in caplog.text
    written = json.loads(cache.path(doc_id).read_bytes())  # rewritten
    assert (written["parser_version"], written["document"]["id"]) == (PARSER_VERSION, doc_id)


def test_a_file_for_another_document_or_parser_version_is_not_used(pdfs, tmp_path, caplog):
    data, parse, calls = pdfs
    a, b, _ = data
    cache = ParsedCache(tmp_path, parse)
    cache.get(b)
    cache.path(a).write_bytes(cache.path(b).read_bytes())  # named a, holds b
    with caplog.at_level(logging.WARNING, logger="workbench.pdf.cache"):
        assert ParsedCache(tmp_path, parse).get(a).document.id == a
    older = json.loads(cache.path(b).read_bytes())
    older["parser_version"] = PARSER_VERSION - 1
    older["document"]["id"] = a
    cache.path(a).write_text(json.dumps(older))
    assert ParsedCache(tmp_path, parse).get(a).document.id == a
    assert calls == [b, a, a] and "another document or parser version" in caplog.text


def test_memory_holds_at_most_max_docs(pdfs, tmp_path):
    data, parse, _ = pdfs
    a, b, c = data
    cache = ParsedCache(tmp_path, parse, max_docs=2)
    first = cache.get(a)
    assert cache.get(a) is first
    cache.get(b)
    cache.get(c)  # evicts a, the least recently used
    assert cache.get(a) is not first and cache.get(a).text == first.text  # back from disk


def test_a_cached_document_keeps_the_section_headings_of_the_pdf_outline(corpus, tmp_path):
    """The outline is read from the PDF's bytes, which the cache drops: read before, or every
    quote under "4.1.4.1 Mandatory Items on the Front of the PIV Card" was placed under its
    parent "4.1.4 Visual Card Topography" once the document came from the workspace."""
    raw = (corpus / "pdfs/regulatory/NIST.FIPS.201-2.pdf").read_bytes()
    doc_id = hashlib.sha256(raw).hexdigest()
    fresh = open_pdf(raw)
    at = fresh.text.index("The photograph shall be placed in the upper left")
    assert fresh.heading_at(at) == "4.1.4.1 Mandatory Items on the Front of the PIV Card"
    ParsedCache(tmp_path, lambda _d: open_pdf(raw)).get(doc_id)
    cached = ParsedCache(tmp_path, lambda _d: pytest.fail("parsed again")).get(doc_id)
    assert cached.heading_at(at) == fresh.heading_at(at)
    assert cached.page_labels == fresh.page_labels


# --- issue 37, item 3: whoever can write the data folder must not run code ----------------------
class _Payload:
    """What an attacker plants: unpickling it runs code (here: creates a marker file)."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (exec, (f"open({self.marker!r}, 'w').write('ran')",))


def _plant(folder, marker) -> list:
    """A malicious pickle at the cache file's path, and as the pickle an older version wrote."""
    bomb = pickle.dumps(_Payload(marker))
    paths = list(folder.glob("*"))
    paths += [p.with_name(p.name.split(".")[0] + f".v{PARSER_VERSION - 1}.pkl") for p in paths]
    for path in paths:
        path.write_bytes(bomb)
    return paths


def test_a_planted_pickle_is_never_executed_and_the_document_is_parsed_again(pdfs, tmp_path, caplog):
    data, parse, calls = pdfs
    doc_id = next(iter(data))
    folder, marker = tmp_path / "parsed", tmp_path / "marker"
    ParsedCache(folder, parse).get(doc_id)
    assert _plant(folder, marker)
    with caplog.at_level(logging.WARNING, logger="workbench.pdf.cache"):
        parsed = ParsedCache(folder, parse).get(doc_id)
    assert not marker.exists(), "the planted pickle ran"
    assert "tenant shall pay rent" in parsed.text and parsed.document.id == doc_id
    assert len(calls) == 2 and doc_id in caplog.text  # ignored with a log line, parsed again


def test_workbench_show_never_runs_a_planted_pickle(make_pdf, data_dir, tmp_path, capsys):
    import json

    from workbench.cli import main
    from workbench.config import get_settings
    from workbench.models import Evidence, Run, Verification
    from workbench.service import Workbench

    quote = "the tenant shall pay rent"
    wb = Workbench(get_settings())
    doc = wb.ingest(make_pdf(["Document 9 says the tenant shall pay rent on the first day of each month."]))
    span = wb.parsed(doc.id).locate(quote)
    span.page_label = None  # a run stored before page labels: show reads the parsed document
    rid = wb.store.assign_evidence_id(doc.id, span.start, span.end, "other")
    ev = Evidence(requirement_id=rid, source_type="other", document_id=doc.id, exact_quote=quote, chunk_id="c0",
                  span=span)
    wb.store.save_run(Run(run_id="run-planted", question="q", document_ids=[doc.id], evidence=[ev],
                          verifications=[Verification(requirement_id=rid, verified=True)]))
    marker = tmp_path / "marker"
    assert _plant(data_dir / "parsed", marker)
    assert main(["show", "run-planted", "--json"]) == 0
    (req,) = json.loads(capsys.readouterr().out.splitlines()[0])["extracted_requirements"]
    assert not marker.exists(), "the planted pickle ran"
    assert req["hash_ok"] and req["page"] == 1 and req["exact_quote"] == quote


def test_a_cached_document_reads_as_the_fresh_parse_did(corpus, tmp_path):
    """Plain data holds all a parse gives: text, pages, words, lines, segments, furniture, labels."""
    raw = (corpus / "pdfs/regulatory/NIST.FIPS.201-2.pdf").read_bytes()
    doc_id = hashlib.sha256(raw).hexdigest()
    fresh = ParsedCache(tmp_path, lambda _d: open_pdf(raw)).get(doc_id)
    cached = ParsedCache(tmp_path, lambda _d: pytest.fail("parsed again")).get(doc_id)
    assert cached is not fresh and cached.document == fresh.document
    for field in ("text", "pages", "words", "lines", "pdf_labels", "page_labels", "furniture"):
        assert getattr(cached, field) == getattr(fresh, field), field
    assert cached.segments() == fresh.segments()
    quote = "The photograph shall be placed in the upper left"
    assert cached.locate(quote) == fresh.locate(quote)


def test_the_section_tree_is_kept_with_the_parse(tmp_path):
    """Sections are read once, at parse time, and a cached document gives them back as parsed."""
    import pymupdf

    from workbench.pdf.document import open_pdf

    pdf = pymupdf.open()
    page = pdf.new_page()
    page.insert_text((72, 72), "1. Definitions", fontsize=11)
    page.insert_text((72, 90), "The terms below have these meanings in this Agreement.", fontsize=11)
    page.insert_text((72, 120), "2. Term", fontsize=11)
    page.insert_text((72, 138), "2.1 Renewal. This Agreement renews for one year.", fontsize=11)
    path = tmp_path / "s.pdf"
    pdf.save(path)
    parsed = open_pdf(path)
    doc_id = parsed.document.id
    cache = ParsedCache(tmp_path / "cache", lambda _id: parsed)
    fresh = cache.get(doc_id).sections()
    again = ParsedCache(tmp_path / "cache", lambda _id: 1 / 0).get(doc_id)
    assert [s.label for s in fresh] == ["1. Definitions", "2. Term", "2.1 Renewal."]
    assert again.sections() == fresh
    assert again.heading_at(parsed.text.find("renews")) == "2.1 Renewal."
