"""OCR on the 31 CUAD contracts made into scans (issue 42's "Must show"): word accuracy, word
boxes, and quotes typed from the original wording.

    PYTHONPATH=$PWD .venv/bin/python -m bench.bench_ocr_cuad [--skew 0.4] [--processes 2] [--limit N]
        [--only NAME-PART ...]

1. Each contract of ../shared/corpus/cuad/pdf is rasterised by bench_ocr.rasterise (200 dpi,
   grayscale, `--skew`° turned, JPEG quality 60) into `--scans` (default bench/out/cuad-scanned-<skew>,
   git-ignored; same file names, so `bench_cuad --pdf-dir` can ask the scanned copies), once.
2. Each scan is ingested by Workbench.ingest (the product path: OCR at 300 dpi with
   `--processes` Tesseract processes) into `--workspace` (kept: bench_cuad can reuse its reads).
3. Per page, the OCR words against the born-digital page's words (PyMuPDF's get_text("words"),
   in the displayed page's space), both case-folded without edge punctuation and aligned in order
   by difflib: **word accuracy** = reference words matched / reference words. The text layer's own
   word order is not always the order a reader (or OCR) reads the page in (CERES's page 4 holds
   the paragraph at the page's foot before the list above it), and a block read elsewhere counts
   as missed: so also **in reading order**, the reference words sorted by position (PyMuPDF's
   sort=True), and that without redaction marks ("[***]", words of asterisks alone). **Boxes**: for each
   matched pair, the IoU of the OCR word's box and the born-digital word's box turned by the skew
   about the page centre (the same turn the rasteriser applied; its bounding box), share ≥ 0.5;
   and the share placed() (x-extents at IoU ≥ 0.5, the OCR box's middle inside the born-digital
   box's height), which does not count the ink box against the font box.
4. **Quotes typed from the original wording**: CUAD's gold clauses (bench_cuad's categories, each
   `<omitted>` piece of ≥ 8 words that the born-digital copy anchors verbatim). On the scan: does
   `locate` anchor it verbatim, and if not, does `closest()` offer a candidate (a ClosestMatch with
   its similarity, never an anchor) on the page the original holds it, its boxes overlapping the
   original's (turned by the skew)?

Prints one JSON object per contract and a summary; writes bench/out/bench_ocr_cuad<tag>.json."""

from __future__ import annotations

import argparse
import difflib
import json
import math
import os
import sys
import time
from pathlib import Path

import pymupdf

from bench.bench_cuad import QUESTIONS, load_gold
from bench.bench_ocr import SKEW, rasterise
from bench.common import ROOT, peak_rss_mb, require_corpus
from workbench.config import Settings
from workbench.pdf import open_pdf
from workbench.service import Workbench

OUT = ROOT / "bench" / "out"
EDGE = ".,;:()[]\"'“”‘’"
Box = tuple[float, float, float, float]


def norm(w: str) -> str:
    return w.strip(EDGE).casefold()


def turned(box: Box, centre: tuple[float, float], degrees: float) -> Box:
    """The bounding box of `box` turned `degrees` counter-clockwise as seen (PIL's rotate) about
    `centre`, in page space (y down)."""
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    cx, cy = centre
    xs, ys = [], []
    for x, y in ((box[0], box[1]), (box[2], box[1]), (box[0], box[3]), (box[2], box[3])):
        dx, dy = x - cx, y - cy
        xs.append(cx + dx * c + dy * s)
        ys.append(cy - dx * s + dy * c)
    return min(xs), min(ys), max(xs), max(ys)


def iou(a: Box, b: Box) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def born_digital_words(page: pymupdf.Page, skew: float, sort: bool = False) -> list[tuple[str, Box]]:
    """The page's words (normalised, non-empty) with their boxes as the scan shows them: in the
    text layer's order, or with `sort` in reading order (by position)."""
    rot = page.rotation_matrix
    centre = (page.rect.width / 2, page.rect.height / 2)
    out = []
    for x0, y0, x1, y1, text, *_ in page.get_text("words", sort=sort):
        w = norm(text)
        if w:
            r = pymupdf.Rect(x0, y0, x1, y1) * rot
            out.append((w, turned((r.x0, r.y0, r.x1, r.y1), centre, skew)))
    return out


def placed(ref: Box, got: Box) -> bool:
    """The same word's place whatever the box's height: the x-extents overlap at IoU ≥ 0.5 and
    the OCR box's vertical middle lies in the born-digital box. (A text layer's word box spans
    the font's ascent to descent; Tesseract's hugs the ink, so "or", "as", "a" get boxes about
    half as tall as the born-digital ones, and an IoU under 0.5, on the right spot.)"""
    ix = max(0.0, min(ref[2], got[2]) - max(ref[0], got[0]))
    ux = max(ref[2], got[2]) - min(ref[0], got[0])
    return ux > 0 and ix / ux >= 0.5 and ref[1] <= (got[1] + got[3]) / 2 <= ref[3]


def compare_page(ref: list[tuple[str, Box]], got: list[tuple[str, Box]]) -> tuple[int, int, int, int]:
    """(reference words matched, reference words, matched words whose boxes overlap at IoU ≥ 0.5,
    matched words placed())."""
    sm = difflib.SequenceMatcher(None, [w for w, _ in ref], [w for w, _ in got], autojunk=False)
    matched = boxed = at_place = 0
    for b in sm.get_matching_blocks():
        for k in range(b.size):
            matched += 1
            boxed += iou(ref[b.a + k][1], got[b.b + k][1]) >= 0.5
            at_place += placed(ref[b.a + k][1], got[b.b + k][1])
    return matched, len(ref), boxed, at_place


def redaction_mark(w: str) -> bool:
    return set(w) <= {"*"}


def matched_in_order(ref: list[str], got: list[str]) -> int:
    sm = difflib.SequenceMatcher(None, ref, got, autojunk=False)
    return sum(b.size for b in sm.get_matching_blocks())


def gold_quotes(gold: dict[str, list[str]]) -> list[str]:
    out = []
    for cat in QUESTIONS:
        for clause in gold.get(cat, []):
            out += [p.strip() for p in clause.split("<omitted>") if len(p.split()) >= 8]
    return out


def quote_check(quote: str, original, scan, skew: float, sizes: dict[int, tuple[float, float]]) -> dict | None:
    """None where the born-digital copy does not anchor the quote verbatim (not the original wording)."""
    where = original.locate(quote)
    if where is None:
        return None
    if scan.locate(quote) is not None:
        return {"exact": True, "offered": True, "similarity": 1.0}
    near = scan.closest(quote)
    if near is None:
        return {"exact": False, "offered": False, "similarity": None}
    want = [(pg, turned(box, (sizes[pg][0] / 2, sizes[pg][1] / 2), skew)) for pg, *box in where.rects]
    right = any(g[0] == pg and iou(tuple(g[1:]), box) > 0 for g in near.span.rects for pg, box in want)
    return {"exact": False, "offered": right, "similarity": near.similarity}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--skew", type=float, default=SKEW, help="degrees the rasterised pages are turned")
    ap.add_argument("--processes", type=int, default=2, help="Settings.ocr_processes")
    ap.add_argument("--limit", type=int, default=0, help="first N contracts only")
    ap.add_argument("--only", action="append", default=[], help="contracts whose file name holds this (repeatable)")
    ap.add_argument("--scans", type=Path, default=None, help="where the scanned copies go (default bench/out/cuad-scanned-<skew>)")
    ap.add_argument("--workspace", type=Path, default=None, help="default bench/out/cuad_scanned_ws-<skew>")
    ap.add_argument("--tag", default="")
    a = ap.parse_args()
    corpus = require_corpus()
    scans = a.scans or OUT / f"cuad-scanned-{a.skew:g}"
    ws = a.workspace or OUT / f"cuad_scanned_ws-{a.skew:g}"
    scans.mkdir(parents=True, exist_ok=True)
    pdfs = sorted(p for p in (corpus / "cuad" / "pdf").iterdir() if p.suffix.lower() == ".pdf")
    if a.only:
        pdfs = [p for p in pdfs if any(o.casefold() in p.name.casefold() for o in a.only)]
    if a.limit:
        pdfs = pdfs[:a.limit]
    gold = load_gold()
    wb = Workbench(Settings(data_dir=ws, ocr_processes=a.processes))
    t_raster = t_ocr = 0.0
    tot = {"pages": 0, "ref_words": 0, "matched": 0, "boxed": 0, "placed": 0, "matched_reading_order": 0,
           "ref_words_no_marks": 0, "matched_reading_order_no_marks": 0, "quotes": 0, "exact": 0, "offered": 0,
           "closest_offered": 0, "not_original_wording": 0}
    sims: list[float] = []
    rows = []
    for src in pdfs:
        scan_pdf = scans / src.name
        if not scan_pdf.exists():
            t = time.perf_counter()
            rasterise(src, 10**6, scan_pdf, a.skew)
            t_raster += time.perf_counter() - t
        t = time.perf_counter()
        doc = wb.ingest(str(scan_pdf), source_type="contract")
        dt = time.perf_counter() - t
        t_ocr += dt
        scan = wb.parsed(doc.id)
        row = {"contract": src.stem[:60], "pages": 0, "ref_words": 0, "matched": 0, "boxed": 0, "placed": 0,
               "matched_reading_order": 0, "ref_words_no_marks": 0, "matched_reading_order_no_marks": 0,
               "ocr_s": round(dt, 1), "ocr_pages": len(scan.document.ocr_pages), "pages_below_0.9": {}}
        with pymupdf.open(src) as orig:
            sizes = {}
            for i, page in enumerate(orig):
                sizes[i + 1] = (page.rect.width, page.rect.height)
                ref = born_digital_words(page, a.skew)
                got = [(norm(w.text), (w.x0, w.y0, w.x1, w.y1)) for w in scan.words_on(i + 1) if norm(w.text)]
                m, n, b, pl = compare_page(ref, got)
                by_position = [w for w, _ in born_digital_words(page, a.skew, sort=True)]
                read = [w for w, _ in got]
                row["matched_reading_order"] += matched_in_order(by_position, read)
                words = [w for w in by_position if not redaction_mark(w)]
                row["ref_words_no_marks"] += len(words)
                row["matched_reading_order_no_marks"] += matched_in_order(words, [w for w in read if not redaction_mark(w)])
                if n >= 20 and m / n < 0.9:  # where to look first: page → (accuracy, reference words)
                    row["pages_below_0.9"][i + 1] = (round(m / n, 3), n)
                row["pages"] += 1
                row["ref_words"] += n
                row["matched"] += m
                row["boxed"] += b
                row["placed"] += pl
        original = open_pdf(src, settings=Settings.model_construct(ocr="off"))
        q = {"quotes": 0, "exact": 0, "offered": 0, "closest_offered": 0, "not_original_wording": 0}
        for quote in gold_quotes(gold.get(src.stem, {})):
            r = quote_check(quote, original, scan, a.skew, sizes)
            if r is None:
                q["not_original_wording"] += 1
                continue
            q["quotes"] += 1
            q["exact"] += r["exact"]
            q["offered"] += r["offered"]
            q["closest_offered"] += (not r["exact"]) and r["offered"]
            if not r["exact"] and r["similarity"] is not None:
                sims.append(r["similarity"])
        row.update(q)
        row["word_accuracy"] = round(row["matched"] / max(1, row["ref_words"]), 4)
        row["word_accuracy_reading_order"] = round(row["matched_reading_order"] / max(1, row["ref_words"]), 4)
        row["word_accuracy_reading_order_no_marks"] = round(
            row["matched_reading_order_no_marks"] / max(1, row["ref_words_no_marks"]), 4)
        row["boxes_iou_0.5"] = round(row["boxed"] / max(1, row["matched"]), 4)
        row["boxes_placed"] = round(row["placed"] / max(1, row["matched"]), 4)
        for k in tot:
            tot[k] += row[k]
        rows.append(row)
        print(json.dumps(row), flush=True)
    sims.sort()
    summary = {
        "contracts": len(rows), "pages": tot["pages"], "skew_degrees": a.skew, "ocr_processes": a.processes,
        "reference_words": tot["ref_words"], "word_accuracy": round(tot["matched"] / max(1, tot["ref_words"]), 4),
        "lowest_contract_accuracy": min((r["word_accuracy"] for r in rows), default=None),
        "word_accuracy_reading_order": round(tot["matched_reading_order"] / max(1, tot["ref_words"]), 4),
        "word_accuracy_reading_order_without_redaction_marks": round(
            tot["matched_reading_order_no_marks"] / max(1, tot["ref_words_no_marks"]), 4),
        "contracts_below_0.98": sorted(r["contract"][:30] for r in rows if r["word_accuracy"] < 0.98),
        "matched_words": tot["matched"], "boxes_iou_0.5": round(tot["boxed"] / max(1, tot["matched"]), 4),
        "boxes_placed_x_iou_0.5_and_mid_height_inside": round(tot["placed"] / max(1, tot["matched"]), 4),
        "quotes": tot["quotes"], "anchored_verbatim": tot["exact"],
        "not_verbatim_offered_by_closest_at_the_right_place": f'{tot["closest_offered"]}/{tot["quotes"] - tot["exact"]}',
        "offered_rate": round(tot["offered"] / max(1, tot["quotes"]), 4),
        "closest_similarity_median": sims[len(sims) // 2] if sims else None,
        "gold_pieces_not_verbatim_in_the_born_digital_copy": tot["not_original_wording"],
        "rasterise_s": round(t_raster, 1), "ingest_with_ocr_s": round(t_ocr, 1),
        "pages_per_min": round(tot["pages"] / t_ocr * 60, 1) if t_ocr else None,
        "peak_rss_mb": round(peak_rss_mb(), 1), "load_avg": os.getloadavg(),
    }
    if len(rows) > 1:  # one contract can pull the whole down: the figures without the lowest
        low = min(rows, key=lambda r: r["word_accuracy"])
        rest = {k: sum(r[k] for r in rows if r is not low) for k in tot}
        summary["without_lowest_contract"] = {
            "contract": low["contract"], "reference_words": rest["ref_words"],
            "word_accuracy": round(rest["matched"] / max(1, rest["ref_words"]), 4),
            "word_accuracy_reading_order": round(rest["matched_reading_order"] / max(1, rest["ref_words"]), 4),
            "word_accuracy_reading_order_without_redaction_marks": round(
                rest["matched_reading_order_no_marks"] / max(1, rest["ref_words_no_marks"]), 4),
            "boxes_iou_0.5": round(rest["boxed"] / max(1, rest["matched"]), 4)}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"bench_ocr_cuad{a.tag}.json").write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
