"""Ingest speed: workbench.pdf.open_pdf vs raw PyMuPDF get_text("words") on the same files, in
the same run, interleaved (so both see the same machine load).

    .venv/bin/python -m bench.bench_ingest [--repeat 3] [--files PATH ...] [--structure]

Raw = open the bytes + get_text("words") on every page. Ours = open_pdf (validation, SHA-256,
reading order, text with offsets, word boxes, metadata). segments() and the first locate()
(which builds the matching index) are timed separately: they are lazy and paid on first use.
`--structure` times ours as open_pdf + segments() + sections() (ingest with structure, issue #39).
Prints one JSON object per file and a total line."""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import pymupdf

from bench.common import peak_rss_mb, require_corpus
from workbench.pdf import open_pdf

DEFAULT = [
    "cuad/pdf/AimmuneTherapeuticsInc_20200205_8-K_EX-10.3_11967170_EX-10.3_Development Agreement.pdf",
    "pdfs/contract/CUAD_CERES-Collaboration-Agreement.pdf",
    "pdfs/regulatory/fedreg-2020-17221_FAA-AD-Boeing737MAX-NPRM.pdf",
    "pdfs/regulatory/NIST.SP.800-171r2.pdf",
    "pdfs/science/tracemonkey_PLDI09.pdf",
    "pdfs/large/freeculture_Lessig.pdf",
]


def raw_words(data: bytes) -> int:
    doc = pymupdf.open(stream=data, filetype="pdf")
    n = sum(len(page.get_text("words")) for page in doc)
    doc.close()
    return n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--files", nargs="*")
    ap.add_argument("--structure", action="store_true", help="ours includes segments() and sections()")
    args = ap.parse_args()
    corpus = require_corpus()
    paths = [corpus / f for f in DEFAULT] if not args.files else [corpus / f if not f.startswith("/") else Path(f)
                                                                  for f in args.files]
    tot_pages = tot_raw = tot_ours = 0.0
    for path in paths:
        data = path.read_bytes()
        raw_words(data), open_pdf(data)  # warm-up: imports, font caches
        raw_t: list[float] = []
        ours_t: list[float] = []
        for _ in range(args.repeat):  # interleaved; the median of each is reported
            t = time.perf_counter()
            raw_words(data)
            raw_t.append(time.perf_counter() - t)
            t = time.perf_counter()
            doc = open_pdf(data, filename=path.name)
            if args.structure:
                doc.sections()
            ours_t.append(time.perf_counter() - t)
        t_raw, t_ours = statistics.median(raw_t), statistics.median(ours_t)
        t = time.perf_counter()
        segs = doc.segments()
        t_seg = time.perf_counter() - t
        t = time.perf_counter()
        doc.locate("zzqx not in the document")
        t_idx = time.perf_counter() - t
        pages = doc.document.pages
        tot_pages += pages
        tot_raw += t_raw
        tot_ours += t_ours
        print(json.dumps({
            "file": path.name[:60], "pages": pages, "words": len(doc.words),
            "raw_pages_per_s": round(pages / t_raw, 1), "ours_pages_per_s": round(pages / t_ours, 1),
            "ours_vs_raw": round(t_raw / t_ours, 3), "segments": len(segs), "segments_s": round(t_seg, 3),
            "first_locate_s": round(t_idx, 3),
        }), flush=True)
    print(json.dumps({"total_pages": int(tot_pages), "raw_pages_per_s": round(tot_pages / tot_raw, 1),
                      "ours_pages_per_s": round(tot_pages / tot_ours, 1),
                      "ours_vs_raw": round(tot_raw / tot_ours, 3), "peak_rss_mb": round(peak_rss_mb(), 1)}))


if __name__ == "__main__":
    main()
