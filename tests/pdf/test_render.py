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


def giant_page_pdf() -> bytes:
    """One 14,400 × 14,400 pt page (the biggest PDF allows) in under 1 KB."""
    doc = pymupdf.open()
    page = doc.new_page(width=14_400, height=14_400)
    page.insert_text((72, 72), "A giant page", fontsize=11)
    return doc.tobytes()


@pytest.mark.parametrize("zoom", [1.0, 2.0, 3.0])
def test_a_giant_page_is_drawn_within_the_pixel_cap(zoom):
    images = PageImages(giant_page_pdf(), max_pixels=25_000_000)
    pix = pymupdf.Pixmap(images.jpeg(1, zoom))
    assert pix.width * pix.height <= 25_000_000
    assert pix.width == pix.height >= 4_900  # scaled down to the cap, not to a thumbnail


def test_the_cap_comes_from_the_settings_passed_in_and_small_pages_keep_their_zoom(make_pdf):
    from workbench.config import Settings

    settings = Settings(render_max_pixels=1_000_000)
    images = PageImages(make_pdf(["one"]).read_bytes(), max_pixels=settings.render_max_pixels)
    assert images.zoom_for(1, 1.0) == 1.0  # 612 × 792 = 0.48 MP: under the cap
    pix = pymupdf.Pixmap(images.jpeg(1, 3.0))  # 4.4 MP asked: scaled to 1 MP
    assert pix.width * pix.height <= 1_000_000 and pix.width >= 870


def test_what_mupdf_refuses_is_a_render_error_naming_the_page():
    from workbench.errors import RenderError

    images = PageImages(giant_page_pdf(), max_pixels=10**12)  # no cap: MuPDF's own limit trips
    with pytest.raises(RenderError, match=r"page 1 cannot be drawn \(Overly large image\)"):
        images.jpeg(1, 3.0)
