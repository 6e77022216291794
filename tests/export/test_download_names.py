"""What a user gets on disk: each format's file name is distinct, and notes read as English."""

from __future__ import annotations

import bibtexparser

from workbench.export import FORMATS
from workbench.export.bibliography import to_bibtex


def test_every_format_downloads_under_its_own_extension():
    # The UI names downloads evidence-<run>.<extension>: the audit trail (json) and the CSL-JSON
    # bibliography must not land on the same file name.
    extensions = [ext for ext, _media in FORMATS.values()]
    assert len(set(extensions)) == len(extensions)
    assert FORMATS["csljson"][0].endswith(".json")  # still opens as JSON in Zotero


def test_bibtex_note_says_one_page_not_one_pages(reviewed):
    bundle, pdf = reviewed
    doc_id = pdf.document.id
    bundle.documents[doc_id] = bundle.documents[doc_id].model_copy(update={"pages": 1})
    (entry,) = bibtexparser.parse_string(to_bibtex(bundle).decode()).entries
    assert entry["note"].startswith(f"File {pdf.document.filename}, 1 page;")
