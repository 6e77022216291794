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


def test_what_a_pause_made_is_old_and_nothing_stays_frozen(make_pdf):
    """Words and segments made while the collector is paused go to the oldest generation (no young
    pass walks them); the permanent generation is left empty."""
    doc = open_pdf(make_pdf(["1. Term. This Agreement starts today.", "2. Law. It is governed by law."]))
    assert gc.get_freeze_count() == 0
    assert any(o is doc.words[0] for o in gc.get_objects(generation=2))
    doc.sections()
    assert gc.get_freeze_count() == 0 and gc.isenabled()


def test_a_callers_frozen_objects_stay_frozen(make_pdf):
    kept = [[]]  # frozen by the caller: in the permanent generation, which gc.get_objects() does not list
    gc.freeze()
    try:
        assert not any(o is kept for o in gc.get_objects())
        doc = open_pdf(make_pdf(["Hello world.", "Second page."]))
        doc.sections()
        assert gc.get_freeze_count() > 0 and not any(o is kept for o in gc.get_objects())
    finally:
        gc.unfreeze()
