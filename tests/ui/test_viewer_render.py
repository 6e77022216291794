"""The viewer's server side: page images rendered once per (document, page, zoom), served by
the HTTP route, page sizes in the cropbox frame that Span.rects use."""

from __future__ import annotations

import hashlib
import threading

import pymupdf
import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from workbench.ui.viewer import highlights_for
from workbench.ui.viewer import render as render_mod
from workbench.ui.viewer.render import PageRenderer, snap_zoom
from workbench.ui.viewer.routes import PAGE_ROUTE, ROUTES


@pytest.fixture
def two_pages(make_pdf):
    path = make_pdf(["first page text", "second page text"], name="two.pdf")
    return hashlib.sha256(path.read_bytes()).hexdigest(), path


def test_page_sizes_are_cropbox_sizes_the_frame_of_span_rects(corpus):
    book = corpus / "pdfs" / "large" / "freeculture_Lessig.pdf"
    r = PageRenderer(lambda _: book.read_bytes())
    sizes = r.page_sizes("book")
    with pymupdf.open(book) as doc:
        assert len(sizes) == doc.page_count == 352
        page = doc[0]
        assert sizes[0] == (round(page.rect.width, 2), round(page.rect.height, 2))
        assert page.cropbox != page.mediabox  # the offset the notes warn about: overlays use the cropbox


def test_render_returns_a_jpeg_of_the_requested_zoom_and_caches_it(two_pages):
    doc_id, path = two_pages
    r = PageRenderer(lambda _: path.read_bytes())
    img = r.render(doc_id, 2, 2.0)
    assert img[:3] == b"\xff\xd8\xff"
    pix = pymupdf.Pixmap(img)
    assert (pix.width, pix.height) == (612 * 2, 792 * 2)
    assert r.render(doc_id, 2, 2.04) is img  # snapped to the same zoom step: cache hit
    assert r.renders == 1


def test_concurrent_requests_for_one_image_render_it_once(two_pages):
    doc_id, path = two_pages
    r = PageRenderer(lambda _: path.read_bytes())
    out: list[bytes] = []
    threads = [threading.Thread(target=lambda: out.append(r.render(doc_id, 1, 1.5))) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(out) == 6 and len(set(out)) == 1
    assert r.renders == 1


def test_page_out_of_range_is_an_index_error_and_the_lru_is_bounded(two_pages):
    doc_id, path = two_pages
    r = PageRenderer(lambda _: path.read_bytes(), max_images=2)
    with pytest.raises(IndexError):
        r.render(doc_id, 3, 1.0)
    for z in (1.0, 1.5, 2.0):
        r.render(doc_id, 1, z)
    r.render(doc_id, 1, 1.0)  # evicted by the third zoom: rendered again
    assert r.renders == 4


def test_snap_zoom_picks_the_nearest_step():
    assert snap_zoom(2.3) == 2.25
    assert snap_zoom(9) == 3.0
    assert snap_zoom(0.2) == 1.0


def test_highlights_for_flattens_rects_per_evidence_id():
    boxes = highlights_for([("REQ-S001", [(3, 10.0, 20.0, 30.0, 40.0), (4, 1.0, 2.0, 3.0, 4.0)])])
    assert boxes == [{"id": "REQ-S001", "page": 3, "x0": 10.0, "y0": 20.0, "x1": 30.0, "y1": 40.0},
                     {"id": "REQ-S001", "page": 4, "x0": 1.0, "y0": 2.0, "x1": 3.0, "y1": 4.0}]


def test_route_serves_page_images_and_refuses_bad_requests(two_pages, monkeypatch):
    doc_id, path = two_pages
    r = PageRenderer(lambda _: (_ for _ in ()).throw(FileNotFoundError("not stored")))
    r.register_file(doc_id, path)
    monkeypatch.setattr(render_mod, "_renderer", r)
    client = TestClient(Starlette(routes=ROUTES))
    ok = client.get(f"{PAGE_ROUTE}/{doc_id}/1?z=1.5")
    assert ok.status_code == 200 and ok.headers["content-type"] == "image/jpeg"
    assert "immutable" in ok.headers["cache-control"]
    assert client.get(f"{PAGE_ROUTE}/{doc_id}/9").status_code == 404
    assert client.get(f"{PAGE_ROUTE}/{'0' * 64}/1").status_code == 404  # not in the workspace
    assert client.get(f"{PAGE_ROUTE}/not-a-hash/1").status_code == 400


def _giant_page(tmp_path):
    doc = pymupdf.open()
    doc.new_page(width=14_400, height=14_400).insert_text((72, 72), "A giant page", fontsize=11)
    path = tmp_path / "giant.pdf"
    doc.save(path)
    return hashlib.sha256(path.read_bytes()).hexdigest(), path


def _client(monkeypatch, renderer):
    monkeypatch.setattr(render_mod, "_renderer", renderer)
    return TestClient(Starlette(routes=ROUTES), raise_server_exceptions=False)


@pytest.mark.parametrize("zoom", ["1", "1.25", "2", "3"])
def test_the_route_serves_a_giant_page_scaled_to_the_pixel_cap(tmp_path, monkeypatch, zoom):
    doc_id, path = _giant_page(tmp_path)
    r = PageRenderer(lambda _: path.read_bytes(), max_pixels=25_000_000)
    resp = _client(monkeypatch, r).get(f"{PAGE_ROUTE}/{doc_id}/1?z={zoom}")
    assert resp.status_code == 200 and resp.headers["content-type"] == "image/jpeg"
    pix = pymupdf.Pixmap(resp.content)
    assert pix.width >= 4_900 and pix.width * pix.height <= 25_000_000


def test_every_zoom_of_a_giant_page_is_one_cached_image(tmp_path):
    doc_id, path = _giant_page(tmp_path)
    r = PageRenderer(lambda _: path.read_bytes(), max_pixels=25_000_000)
    assert r.zoom_for(doc_id, 1, 3.0) == r.zoom_for(doc_id, 1, 1.0) < 0.35
    assert r.render(doc_id, 1, 1.0) is r.render(doc_id, 1, 2.5)
    assert r.renders == 1


def test_a_page_mupdf_cannot_draw_is_a_clear_422_not_a_traceback(tmp_path, monkeypatch):
    doc_id, path = _giant_page(tmp_path)
    r = PageRenderer(lambda _: path.read_bytes(), max_pixels=10**12)  # no cap: MuPDF's limit trips
    resp = _client(monkeypatch, r).get(f"{PAGE_ROUTE}/{doc_id}/1?z=3")
    assert resp.status_code == 422
    assert resp.text == "page image not available: page 1 cannot be drawn (Overly large image): open it in a PDF reader"


def test_the_viewer_is_told_the_cap_and_asks_for_a_zoom_within_it():
    from workbench.ui.viewer import component

    js = (component._HERE / "viewer.js").read_text()
    assert "st.maxPixels = data.max_pixels" in js and "pageZoom(st, div)" in js
