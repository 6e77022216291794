from __future__ import annotations

import pytest

from tests.store import factories as f
from workbench.errors import HashMismatchError, NotFoundError


def test_same_pdf_stored_twice_is_one_document(store):
    doc, data = f.document()
    store.put_document(doc, data)
    store.put_document(doc.model_copy(update={"filename": "renamed.pdf"}), data)
    docs = store.list_documents()
    assert [d.id for d in docs] == [doc.id]
    assert docs[0].filename == "renamed.pdf"


def test_pdf_bytes_come_back_byte_for_byte(store):
    doc, data = f.document(bytes(range(256)) * 50)
    store.put_document(doc, data)
    assert store.pdf_bytes(doc.id) == data
    assert store.get_document(doc.id) == doc


def test_document_whose_id_is_not_the_hash_of_its_bytes_is_refused(store):
    doc, _ = f.document(b"one")
    with pytest.raises(HashMismatchError):
        store.put_document(doc, b"another")
    assert store.list_documents() == []


def test_unknown_document_is_not_found(store):
    with pytest.raises(NotFoundError, match="ingest"):
        store.get_document("0" * 64)
    with pytest.raises(NotFoundError):
        store.pdf_bytes("0" * 64)
