"""Scanned pages are read by OCR at ingest (issue 42): their words, boxes and confidences are the
page's words, quotes on them are located, hashed and boxed as on born-digital pages, the reading is
kept in the parse cache and never repeated, and where OCR cannot run the pages are named as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SCANNED, SCANNED_DE, CountingOcr, need_tesseract, words_read_under
from workbench.config import Settings
from workbench.models import sha256_text
from workbench.pdf import open_pdf
from workbench.pdf.cache import CachedDocument
from workbench.pdf.ocr import Plan, parse_hocr_bands, parse_tsv

# Typed from the scan (page 1 breaks it over two lines; page 2 has it on one).
QUOTE_P1 = "The 6.00X6 tires and the extended nose fork (702067-501) must be installed in conjunction."
QUOTE_P2 = "Inflate main gear tires to 19 psi."


def test_a_scan_is_read_by_ocr_page_by_page_with_confidences(ocr_workspace):
    doc = ocr_workspace.doc
    assert doc.pages_without_text == [1, 2] and not doc.has_text_layer  # what the PDF is: a scan
    assert doc.unread_pages == []  # ... but every page was read
    assert [o.page for o in doc.ocr_pages] == [1, 2]
    for o in doc.ocr_pages:
        assert o.engine.startswith("tesseract ") and o.languages == "eng"
        assert o.words > 200 and 0.5 < o.mean_confidence <= 1.0
    assert ocr_workspace.ocr_runs == 2  # one Tesseract run per page
    assert ocr_workspace.progress == [(1, 2), (2, 2)]  # pages done / total, as they finish
    said = [w for w in doc.warnings if "read by OCR" in w]
    assert said and said[0].startswith("pages 1-2 have no usable text layer: read by OCR (tesseract")
    parsed = ocr_workspace.wb.parsed(doc.id)
    for page in (1, 2):
        assert len(parsed.ocr[page].confidences) == len(parsed.words_on(page))


@pytest.mark.parametrize("quote, page", [(QUOTE_P1, 1), (QUOTE_P2, 2)])
def test_a_quote_on_an_ocr_page_is_located_hashed_and_boxed_over_its_words(ocr_workspace, ocr_reference,
                                                                            quote, page):
    parsed = ocr_workspace.wb.parsed(ocr_workspace.doc.id)
    span = parsed.locate(quote)
    assert span is not None and span.page == page
    assert span.text == parsed.text[span.start:span.end] and span.text_sha256 == sha256_text(span.text)
    assert " ".join(span.text.split()) == quote.removesuffix(".")  # verbatim what OCR read (locate leaves a final stop)
    assert span.read_by_ocr and 0.5 < span.ocr_confidence <= 1.0 and span.ocr_min_confidence <= span.ocr_confidence
    assert span.rects and all(r[0] == page for r in span.rects)
    # an independent OCR of the page (PyMuPDF's own) finds these words under the boxes, and no others
    under = words_read_under(ocr_reference, span.rects)
    assert " ".join(under.split()) == quote, under


def test_a_second_open_reads_the_cache_and_never_runs_ocr_again(ocr_workspace):
    doc = ocr_workspace.doc
    with CountingOcr() as counted:
        again = ocr_workspace.fresh()  # a new process's view: nothing in memory
        parsed = again.parsed(doc.id)
        assert parsed.locate(QUOTE_P1) is not None and set(parsed.ocr) == {1, 2}
        re_ingested = again.ingest(ocr_workspace.pdf)  # the same file uploaded again
    assert counted.pages == 0
    assert re_ingested.ocr_pages == doc.ocr_pages and again.parsed(doc.id).text == parsed.text


def test_the_cache_file_keeps_one_confidence_per_ocr_word_and_refuses_a_mismatch(ocr_workspace):
    cache = ocr_workspace.wb._parsed_cache
    cached = CachedDocument.model_validate_json(cache.path(ocr_workspace.doc.id).read_bytes())
    assert [o[0] for o in cached.ocr] == [1, 2]
    assert cached.parsed().ocr[1].confidences == tuple(cached.ocr[0][3])
    broken = cached.model_copy(update={"ocr": [(1, "tesseract x", "eng", cached.ocr[0][3][:-1])]})
    with pytest.raises(ValueError, match="OCR confidences"):
        broken.parsed()


def test_without_tesseract_a_scan_is_named_as_before_and_nothing_fails(corpus: Path):
    settings = Settings.model_construct(tesseract_cmd="no-such-tesseract-here")
    with CountingOcr() as counted:
        doc = open_pdf(corpus / SCANNED, settings=settings).document
    assert counted.pages == 0 and not doc.ocr_pages and doc.unread_pages == [1, 2]
    assert any(w.startswith("no text layer on any page (scanned?)") for w in doc.warnings)
    assert any("OCR is unavailable: Tesseract" in w and "tesseract-ocr" in w for w in doc.warnings)


def test_a_language_pack_not_installed_is_named_not_guessed(corpus: Path):
    need_tesseract()  # without Tesseract the warning names Tesseract, not the pack
    doc = open_pdf(corpus / SCANNED, settings=Settings.model_construct(ocr_languages="qqq")).document
    assert not doc.ocr_pages and doc.unread_pages == [1, 2]
    assert any("no language pack for qqq" in w and "tesseract-ocr-qqq" in w for w in doc.warnings), doc.warnings


def test_ocr_off_leaves_born_digital_and_scanned_pages_as_they_are(make_pdf):
    text = "The supplier shall deliver the goods within thirty days of the order."
    parsed = open_pdf(make_pdf([text, ""]), settings=Settings.model_construct(ocr="off"))
    assert parsed.document.unread_pages == [2] and not parsed.ocr
    span = parsed.locate("deliver the goods within thirty days")
    assert span is not None and not span.read_by_ocr and span.ocr_confidence is None


def test_tesseract_tsv_becomes_paragraphs_lines_and_words_in_page_points():
    """Pixels at 300 dpi → points; paragraphs are blocks; specks of punctuation read with low
    confidence are scan noise and dropped; a word's confidence is kept beside it (0..1)."""
    import pymupdf

    head = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
    rows = [(5, 1, 1, 1, 1, 300, 300, 150, 50, 96.5, "Notice"), (5, 1, 1, 1, 2, 500, 300, 100, 50, 91.0, "shall"),
            (4, 1, 1, 2, 0, 300, 400, 300, 50, -1, ""), (5, 1, 1, 2, 1, 300, 400, 200, 50, 40.0, "be"),
            (5, 1, 1, 2, 2, 900, 400, 20, 20, 12.0, "~"), (5, 2, 1, 1, 1, 300, 900, 250, 50, 88.0, "given.")]
    tsv = head + "".join(f"{lv}\t1\t{b}\t{p}\t{ln}\t{w}\t{x}\t{y}\t{wd}\t{h}\t{c}\t{t}\n"
                         for lv, b, p, ln, w, x, y, wd, h, c, t in rows)
    blocks, confs = parse_tsv(tsv, 72 / 300, pymupdf.Identity, 0.6)
    assert [[[w[4] for w in ln] for ln in b] for b in blocks] == [[["Notice", "shall"], ["be"]], [["given."]]]
    assert confs == [0.965, 0.91, 0.4, 0.88]
    assert blocks[0][0][0][:4] == pytest.approx((72.0, 72.0, 108.0, 84.0))


def test_a_word_box_spans_its_line_from_ascenders_to_descenders_like_a_text_layer_word():
    """Tesseract's word box hugs the ink ("or" half as tall as "Notice"); a text layer's spans the
    font's height. With the line's baseline and heights from hOCR, each word of a line gets the
    line's band at that word: on a skewed line the band follows the baseline; the box never cuts
    the word's own ink nor leaves the line's box. A line without a baseline keeps its words' boxes."""
    import pymupdf

    head = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
    rows = [(4, 1, 1, 1, 0, 100, 80, 1000, 60, -1, ""),  # line 1: x 100..1100, y 80..140
            (5, 1, 1, 1, 1, 100, 92, 150, 38, 96, "Notice"), (5, 1, 1, 1, 2, 600, 110, 40, 16, 95, "or"),
            (5, 1, 1, 1, 3, 1000, 80, 100, 60, 90, "Big"),  # ink past the band: kept
            (4, 1, 1, 2, 0, 100, 200, 300, 40, -1, ""), (5, 1, 1, 2, 1, 100, 210, 60, 20, 95, "as"),
            (4, 1, 1, 3, 0, 100, 300, 300, 40, -1, ""), (5, 1, 1, 3, 1, 100, 315, 40, 17, 95, "so")]
    tsv = head + "".join(f"{lv}\t1\t{b}\t{p}\t{ln}\t{w}\t{x}\t{y}\t{wd}\t{h}\t{c}\t{t}\n"
                         for lv, b, p, ln, w, x, y, wd, h, c, t in rows)
    line = "<span class='ocr_line' title=\"bbox {}; baseline {}; x_size {}; x_descenders 10; x_ascenders 9\">"
    hocr = ("<div class='ocr_page' title='bbox 0 0 2000 3000'><p class='ocr_par'>"
            + line.format("100 80 1100 140", "-0.01 -15", 40)
            + "<span class='ocrx_word' title='bbox 100 92 250 130; x_wconf 96'>Notice</span></span>"
            + "<span class='ocr_line' title=\"bbox 100 200 400 240; x_size 30\"></span>"  # no baseline
            + line.format("100 300 400 340", "0 -8", 400) + "</span></p></div>")
    bands = parse_hocr_bands(hocr)
    assert sorted(bands) == [(100, 80, 1100, 140), (100, 300, 400, 340)]
    blocks, _ = parse_tsv(tsv, 1.0, pymupdf.Identity, 0.6, bands=bands)
    boxes = {w[4]: tuple(w[:4]) for b in blocks for ln in b for w in ln}
    # line 1's baseline at x: 140 - 15 - 0.01 * (x - 100); its band: 30 px above to 10 below
    assert boxes["Notice"] == pytest.approx((100, 92, 250, 135))  # ink top 92 above the band's 93.5
    assert boxes["or"] == pytest.approx((600, 89.6, 640, 130))  # ink 110..126: now the line's height
    assert boxes["Big"] == pytest.approx((1000, 80, 1100, 140))  # band 85..126 inside its ink
    assert boxes["as"] == (100, 210, 160, 230)  # no baseline: Tesseract's ink box
    assert boxes["so"] == (100, 300, 140, 340)  # a band taller than its line is cut to the line's box


def test_a_rotated_scan_page_gets_boxes_in_the_text_layer_space():
    """Tesseract reads the page as shown (rotation applied); boxes go back to the unrotated space
    every other word box, highlight and annotation uses."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=600, height=800)
    page.set_rotation(90)  # shown 800 wide, 600 high
    head = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
    tsv = head + "5\t1\t1\t1\t1\t1\t100\t50\t200\t40\t95\tWord\n"  # at 72 dpi: points as shown
    blocks, _ = parse_tsv(tsv, 1.0, page.derotation_matrix, 0.6)
    x0, y0, x1, y1 = blocks[0][0][0][:4]
    shown = pymupdf.Rect(x0, y0, x1, y1) * page.rotation_matrix
    assert tuple(shown) == pytest.approx((100, 50, 300, 90))
    assert (x1 - x0, y1 - y0) == pytest.approx((40, 200))  # upright on screen, sideways in the file


@pytest.fixture(scope="module")
def german_pages(corpus: Path, tmp_path_factory) -> Path:
    """Pages 1 (upright) and 3 (rotated 90°) of the German form: two pages keep OCR cheap."""
    need_tesseract("deu")
    import pymupdf

    out = tmp_path_factory.mktemp("de") / "rohrbuch-p1-p3.pdf"
    with pymupdf.open(corpus / SCANNED_DE) as doc:
        doc.select([0, 2])
        doc.save(out)
    return out


def test_the_german_form_is_read_in_german_on_upright_and_rotated_pages(german_pages: Path):
    parsed = open_pdf(german_pages, settings=Settings.model_construct(ocr_languages="deu"))
    doc = parsed.document
    assert [(o.page, o.languages) for o in doc.ocr_pages] == [(1, "deu"), (2, "deu")]
    assert "Erdgasleitung" in parsed.text and "Prüfdruck" in parsed.text  # umlauts read as umlauts
    span = parsed.locate("durch den Unternehmer auszufüllen")
    assert span is not None and span.page == 2 and span.read_by_ocr
    rotated = parsed.pages[1]
    for _p, x0, y0, x1, y1 in span.rects:  # the unrotated page: taller than wide, text running down it
        assert 0 <= x0 < x1 <= rotated.height + 1 and 0 <= y0 < y1 <= rotated.width + 1
        assert y1 - y0 > x1 - x0


@pytest.mark.slow
def test_the_whole_german_form_ingests_with_every_page_read_in_german(corpus: Path, tmp_path: Path):
    """The corpus's real German scan as a user would ingest it: all 8 pages (6 of them turned)
    read, by the German pack, none left unread; the form's own words come back."""
    need_tesseract("deu")
    from workbench.service import Workbench

    wb = Workbench(Settings(data_dir=tmp_path, ocr_languages="deu", ocr_processes=2, index_on_ingest=False))
    progress: list[tuple[int, int]] = []
    doc = wb.ingest(corpus / SCANNED_DE, on_ocr=lambda done, total: progress.append((done, total)))
    assert doc.pages == 8 and doc.pages_without_text == list(range(1, 9))
    assert doc.unread_pages == []
    assert [(o.page, o.languages) for o in doc.ocr_pages] == [(p, "deu") for p in range(1, 9)]
    assert all(o.words > 0 for o in doc.ocr_pages)
    assert progress[-1] == (8, 8) and len(progress) == 8
    parsed = wb.parsed(doc.id)
    assert "Erdgasleitung" in parsed.text and "Prüfdruck" in parsed.text


def _fake_tesseract(tmp_path: Path, body: str) -> Plan:
    """A stand-in `tesseract` that runs `body` (sh) and then writes an empty TSV and hOCR."""
    from workbench.pdf.ocr import Engine

    cmd = tmp_path / "tesseract"
    cmd.write_text(f'#!/bin/sh\ncat >/dev/null\n{body}\nprintf "level\\n" > "$2.tsv"\nprintf "" > "$2.hocr"\n')
    cmd.chmod(0o755)
    return Plan(Engine(str(cmd), "0", frozenset({"eng"})), "eng", None)


@pytest.mark.parametrize(("body", "fails"), [
    ("true", None),                               # reads the page at once
    ("sleep 2", None),                            # waits (a loaded machine) without using the CPU: not failed
    ("while :; do :; done", "s of CPU on the page"),  # spins: stopped by its CPU time, with the reason said
])
def test_a_page_fails_on_the_cpu_time_tesseract_spends_not_on_the_wall_clock(tmp_path, monkeypatch, body, fails):
    from workbench.pdf import ocr

    monkeypatch.setattr(ocr, "PAGE_CPU_S", 1)
    how = _fake_tesseract(tmp_path, body)
    if fails is None:
        tsv, hocr = ocr._tesseract(how, b"P5 1 1 255\n\x00")
        assert tsv.startswith("level") and hocr == ""
    else:
        with pytest.raises(RuntimeError, match=fails):
            ocr._tesseract(how, b"P5 1 1 255\n\x00")


WIDENED = [  # (a line's boxes in pixels, the boxes after) — one-letter words at 40 px tall: at least 14 wide
    ([(100, 0, 200, 40), (220, 0, 222, 40), (240, 0, 300, 40)],  # "was a day": "a" 2 px at its right edge
     [(100, 0, 200, 40), (208, 0, 222, 40), (240, 0, 300, 40)]),  # grows 12 px leftward, into the gap
    ([(100, 0, 200, 40), (203, 0, 205, 40), (240, 0, 300, 40)],  # the word before 3 px away
     [(100, 0, 200, 40), (200, 0, 214, 40), (240, 0, 300, 40)]),  # up to it, the rest rightward
    ([(100, 0, 200, 40), (201, 0, 203, 40), (204, 0, 300, 40)],  # hemmed in on both sides
     [(100, 0, 200, 40), (200, 0, 204, 40), (204, 0, 300, 40)]),  # never over a neighbour
    ([(50, 0, 52, 40), (70, 0, 120, 40)], [(38, 0, 52, 40), (70, 0, 120, 40)]),  # first on its line: leftward
    ([(100, 0, 110, 20), (130, 0, 200, 40)], [(100, 0, 110, 20), (130, 0, 200, 40)]),  # wide enough for its height
]


@pytest.mark.parametrize(("boxes", "after"), WIDENED)
def test_a_sliver_of_a_one_letter_word_box_grows_to_a_letters_width(boxes, after):
    from workbench.pdf.ocr import _widened

    assert [pytest.approx(b) for b in after] == _widened(boxes)
