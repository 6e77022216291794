"""open_pdf and segments() pause the garbage collector while they build, and leave it as it was."""

from __future__ import annotations

import gc
import weakref

import pytest

from workbench.pdf import open_pdf
from workbench.pdf.document import collector_paused


def test_open_pdf_leaves_the_collector_on(make_pdf):
    assert gc.isenabled()
    doc = open_pdf(make_pdf(["Hello world.", "Second page."]))
    assert doc.words and gc.isenabled()


def test_the_collector_is_on_again_after_an_error_inside():
    with pytest.raises(ValueError), collector_paused():
        assert not gc.isenabled()
        raise ValueError("page over a cap")
    assert gc.isenabled()


def test_a_collector_switched_off_by_the_caller_stays_off():
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_located_document_is_freed_without_the_collector(make_pdf):
    """The document keeps its matcher and the matcher refers back to it weakly: dropping the last
    reference frees both at once, with no cycle left for the collector."""
    doc = open_pdf(make_pdf(["Hello world. The parties agree.", "Second page."]))
    doc.sections()
    assert doc.locate("The parties agree") is not None
    gone = weakref.ref(doc)
    gc.disable()
    try:
        del doc
        assert gone() is None
    finally:
        gc.enable()


def test_segments_leave_the_collector_on(make_pdf):
    doc = open_pdf(make_pdf(["1. Term. This Agreement starts today.", "2. Law. It is governed by law."]))
    assert doc.segments() and gc.isenabled()
    doc.sections()
    assert gc.isenabled()
