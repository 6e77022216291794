"""Page images: JPEGs of the requested page and zoom, cropbox sizes, pages out of range refused."""

from __future__ import annotations

import pymupdf
import pytest

from workbench.pdf import PageImages


def test_renders_a_jpeg_of_the_requested_page_at_the_requested_zoom(make_pdf):
    images = PageImages(make_pdf(["one", "two"]).read_bytes())
    assert images.page_count == 2
    img = images.jpeg(2, 1.5)
    assert img[:3] == b"\xff\xd8\xff"
    pix = pymupdf.Pixmap(img)
    assert (pix.width, pix.height) == (612 * 1.5, 792 * 1.5)


def test_page_sizes_are_the_cropbox_in_points(make_pdf):
    assert PageImages(make_pdf(["a", "b"]).read_bytes()).page_sizes() == [(612.0, 792.0), (612.0, 792.0)]


@pytest.mark.parametrize("page", [0, 3])
def test_a_page_out_of_range_is_an_index_error(make_pdf, page):
    with pytest.raises(IndexError, match="outside 1..2"):
        PageImages(make_pdf(["one", "two"]).read_bytes()).jpeg(page, 1.0)
