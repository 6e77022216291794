"""OCR at ingest (issue 42): pages per minute and word accuracy.

    PYTHONPATH=$PWD .venv/bin/python -m bench.bench_ocr [--pages 4] [--dpi 300]

Two page sets, each read by open_pdf (the ingest path: render, Tesseract TSV, words with boxes):
- the real scan (grumman, 2 typewritten pages): word accuracy against a hand-checked sample typed
  from the page images (HAND below);
- CUAD contract pages rasterised here as a scanner would give them (200 dpi, grayscale, 0.4° skew,
  JPEG quality 60), against the born-digital page's own words.
Word accuracy = reference words matched in order (difflib over case-folded words without edge
punctuation) / reference words. Speed: open_pdf with ocr_processes 1 and 2 on the rasterised pages,
and the `tesseract` command (one process) on the page images open_pdf renders (at --dpi) as the yardstick,
interleaved in one run so they see the same machine load. Prints one JSON object per measure."""

from __future__ import annotations

import argparse
import difflib
import io
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

import pymupdf

from bench.common import peak_rss_mb, require_corpus
from workbench.config import Settings
from workbench.pdf import open_pdf

SCANNED = "pdfs/scanned/grumman-service-kit-1974_scanned.pdf"
# Typed from the scan's page images (110 dpi renders, read by eye), as printed.
HAND = {
    1: "The 6.00X6 tires and the extended nose fork (702067-501) must be installed in conjunction. Neither item "
       "may be installed without the other. Spring Plunger Elimination Kit No. SK-107 (ordered separately) must "
       "be installed on Aircraft AA1-0001 through AA1-0224 in conjunction with this Accessory Kit to maintain "
       "proper friction and prevent shimmy of the nose",
    2: "Refer to Section 4 (Wheels, Tire, and Brakes) of the Two-place Service Manual, remove existing main gear "
       "tires and tubes, and install one (1) 6.00X6 Type III 4 ply tire and one (1) 6.00X6 tube on each main "
       "landing gear wheel. Two (2) AN380-4-8 cotter pins are provided with this kit for safteying the axle nuts. "
       "Inflate main gear tires to 19 psi. Refer to Section 4 (Wheels, Tire, and Brakes and Nose Landing Gear) of "
       "the Two-place Service Manual and remove and discard the existing nose gear fork. (NOTE: Retain the thrust "
       "bearing located between the strut swivel and the existing nose gear fork.)",
}
CONTRACTS = [
    "cuad/pdf/AimmuneTherapeuticsInc_20200205_8-K_EX-10.3_11967170_EX-10.3_Development Agreement.pdf",
    "cuad/pdf/Freecook_20180605_S-1_EX-10.3_11233807_EX-10.3_Hosting Agreement.pdf",
]


def words(text: str) -> list[str]:
    out = []
    for w in text.split():
        w = w.strip(".,;:()[]\"'“”‘’").casefold()
        if w:
            out.append(w)
    return out


def accuracy(reference: str, read: str) -> tuple[int, int]:
    ref, got = words(reference), words(read)
    sm = difflib.SequenceMatcher(None, ref, got, autojunk=False)
    return sum(b.size for b in sm.get_matching_blocks()), len(ref)


SKEW = 0.4  # degrees, counter-clockwise (PIL's Image.rotate) about the page's centre


def rasterise(src: Path, pages: int, out: Path, skew: float = SKEW) -> tuple[Path, list[str], list[bytes]]:
    """The first `pages` pages as a scan (200 dpi gray, `skew`° skew, JPEG q60): the PDF, each
    page's born-digital text, and the JPEG page images. The scan's pages have the original
    pages' displayed size, so a point on the scan is the point on the original page turned by
    `skew` about the page's centre."""
    from PIL import Image

    scan = pymupdf.open()
    texts, images = [], []
    with pymupdf.open(src) as doc:
        for page in list(doc)[:pages]:
            texts.append(page.get_text())
            pix = page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
            img = Image.open(io.BytesIO(pix.tobytes("png"))).rotate(skew, expand=False, fillcolor=255)
            buf = io.BytesIO()
            img.save(buf, "JPEG", quality=60)
            images.append(buf.getvalue())
            p = scan.new_page(width=page.rect.width, height=page.rect.height)
            p.insert_image(p.rect, stream=buf.getvalue())
    scan.save(out)
    return out, texts, images


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=4, help="rasterised contract pages per contract")
    ap.add_argument("--dpi", type=int, default=300, help="Settings.ocr_dpi")
    args = ap.parse_args()
    corpus = require_corpus()
    tmp = Path(tempfile.mkdtemp())

    # 1. the real scan against the hand-checked sample
    parsed = open_pdf(corpus / SCANNED, settings=Settings.model_construct(ocr_dpi=args.dpi))
    hit = total = 0
    for page, ref in HAND.items():
        w = parsed.words_on(page)
        h, t = accuracy(ref, " ".join(x.text for x in w))
        hit, total = hit + h, total + t
    print(json.dumps({"set": "grumman scan vs hand-checked sample", "reference_words": total,
                      "word_accuracy": round(hit / total, 4),
                      "mean_confidence": [o.mean_confidence for o in parsed.document.ocr_pages]}))

    # 2. rasterised contract pages against their born-digital text, and speed
    scans = [rasterise(corpus / c, args.pages, tmp / f"scan{i}.pdf") for i, c in enumerate(CONTRACTS)]
    n_pages = sum(len(t) for _p, t, _i in scans)
    timings: dict[str, float] = {"open_pdf 1 process": 0.0, "open_pdf 2 processes": 0.0, "tesseract command": 0.0}
    hit = total = 0
    for pdf, texts, _images in scans:
        for procs in (1, 2):
            t0 = time.perf_counter()
            got = open_pdf(pdf, settings=Settings.model_construct(ocr_dpi=args.dpi, ocr_processes=procs))
            timings[f"open_pdf {procs} process{'es' if procs > 1 else ''}"] += time.perf_counter() - t0
        for i, ref in enumerate(texts):
            h, t = accuracy(ref, " ".join(w.text for w in got.words_on(i + 1)))
            hit, total = hit + h, total + t
        with pymupdf.open(pdf) as scan:  # the yardstick: Tesseract alone on the page images open_pdf reads
            shown = [p.get_pixmap(dpi=args.dpi, colorspace=pymupdf.csGRAY).tobytes("pnm") for p in scan]
        for img in shown:
            t0 = time.perf_counter()
            subprocess.run(["tesseract", "stdin", "stdout", "--psm", "3", "tsv"], input=img, capture_output=True,
                           check=True, env=dict(os.environ, OMP_THREAD_LIMIT="1"))
            timings["tesseract command"] += time.perf_counter() - t0
    print(json.dumps({"set": f"{n_pages} CUAD pages rasterised (200 dpi, gray, 0.4° skew, JPEG q60) vs born-digital",
                      "reference_words": total, "word_accuracy": round(hit / total, 4)}))
    base = n_pages / timings["tesseract command"] * 60
    for name, secs in timings.items():
        ppm = n_pages / secs * 60
        print(json.dumps({"speed": name, "pages": n_pages, "seconds": round(secs, 1), "pages_per_min": round(ppm, 1),
                          "vs_tesseract_command": round(ppm / base, 2)}))
    print(json.dumps({"peak_rss_mb": round(peak_rss_mb(), 1), "load_avg": os.getloadavg()[0]}))


if __name__ == "__main__":
    main()
