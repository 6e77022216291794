"""Page images for the viewer."""

from __future__ import annotations

import pymupdf
import pytest

from workbench.pdf import open_pdf, render_page


def test_renders_png_and_jpeg_of_the_requested_page(make_pdf):
    data = make_pdf(["one", "two"]).read_bytes()
    png = render_page(data, 2, zoom=1.0)
    assert png.startswith(b"\x89PNG")
    pix = pymupdf.Pixmap(png)
    assert (pix.width, pix.height) == (612, 792)
    assert render_page(data, 1, zoom=0.5, fmt="jpeg").startswith(b"\xff\xd8")
    with pytest.raises(ValueError, match="outside"):
        render_page(data, 3)


def test_highlight_rects_colour_the_quote(make_pdf):
    path = make_pdf(["A sentence to highlight on this page."])
    doc = open_pdf(path)
    span = doc.locate("sentence to highlight")
    plain = pymupdf.Pixmap(render_page(doc.pdf_bytes, 1, zoom=1.0))
    marked = pymupdf.Pixmap(render_page(doc.pdf_bytes, 1, zoom=1.0, rects=span.rects))
    _, x0, y0, x1, y1 = span.rects[0]
    cx, cy = int(x0) + 2, int((y0 + y1) / 2)
    assert plain.pixel(cx, cy - 4) == (255, 255, 255)
    r, g, b = marked.pixel(cx, cy - 4)
    assert b < 200 and r > 200  # yellowish where the quote is
