"""Quote anchoring on CUAD: time per quote, found rate and read-back rate.

    .venv/bin/python -m bench.bench_locate [--limit N]

For each of the 31 CUAD contracts: open_pdf once (not timed here; see bench_ingest), build the
matching index (timed as index_s), then locate every clause piece (split on <omitted>, ≥ 3 words,
as /work/shared/tools/check_cli.py does) and read the words back from the PDF under the returned
rects. Prints one JSON object per contract and a summary line."""

from __future__ import annotations

import argparse
import ast
import csv
import json
import re
import statistics
import time
import unicodedata
from pathlib import Path

import pymupdf

from bench.common import peak_rss_mb, require_corpus
from workbench.pdf import open_pdf

_Q = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "})
_DASH = dict.fromkeys(map(ord, "-\u2010\u2011\u2012\u2013\u2014\u00ad"), None)


def _key(s: str) -> str:  # the read-back comparison of check_cli.py
    s = unicodedata.normalize("NFKC", s).translate(_Q).casefold().translate(_DASH)
    return re.sub(r"[\W_]+", "", s)


def reads_back(pdf: pymupdf.Document, quote: str, rects: list) -> bool:
    words: list[str] = []
    for page in sorted({r[0] for r in rects}):
        boxes = [r[1:] for r in rects if r[0] == page]
        for w in pdf[page - 1].get_text("words", sort=True):
            cx, cy = (w[0] + w[2]) / 2, (w[1] + w[3]) / 2
            if any(x0 - 1 <= cx <= x1 + 1 and y0 - 1 <= cy <= y1 + 1 for x0, y0, x1, y1 in boxes):
                words.append(w[4])
    got, want = _key(" ".join(words)), _key(quote)
    return bool(want) and want in got and len(got) <= len(want) * 1.15 + 12


def cuad_pieces(corpus: Path) -> list[tuple[Path, list[str]]]:
    csv.field_size_limit(10**9)
    sel = {Path(line.split("\t")[0]).stem: line.split("\t")[0]
           for line in (corpus / "cuad/SELECTION.tsv").read_text().splitlines()[1:]}
    out = []
    with open(corpus / "cuad/master_clauses_subset.csv", newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            stem = Path(row["Filename"]).stem
            pieces: list[str] = []
            for col, v in row.items():
                if col != "Filename" and "Answer" not in col and v.startswith("["):
                    pieces += [" ".join(p.split()) for c in ast.literal_eval(v) for p in c.split("<omitted>")
                               if len(p.split()) >= 3]
            pieces = list(dict.fromkeys(pieces))
            if stem in sel and pieces:
                out.append((corpus / "cuad" / sel[stem], pieces))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=0, help="only the first N contracts")
    args = ap.parse_args()
    work = cuad_pieces(require_corpus())
    if args.limit:
        work = work[:args.limit]
    per_quote: list[float] = []
    index_s: list[float] = []
    total = found = back = 0
    for path, pieces in work:
        doc = open_pdf(path)
        t = time.perf_counter()
        doc.matcher  # noqa: B018  (builds the key stream once per document)
        index_s.append(time.perf_counter() - t)
        pdf = pymupdf.open(path)
        f = b = 0
        for q in pieces:
            t = time.perf_counter()
            span = doc.locate(q)
            per_quote.append(time.perf_counter() - t)
            if span is not None:
                f += 1
                b += reads_back(pdf, q, span.rects)
        total, found, back = total + len(pieces), found + f, back + b
        print(json.dumps({"file": path.name[:50], "pages": doc.document.pages, "quotes": len(pieces),
                          "found": f, "read_back": b, "index_s": round(index_s[-1], 3)}), flush=True)
    ms = sorted(x * 1000 for x in per_quote)
    print(json.dumps({
        "contracts": len(work), "quotes": total, "found": round(found / total, 4),
        "read_back": round(back / total, 4), "locate_ms_median": round(statistics.median(ms), 2),
        "locate_ms_p95": round(ms[int(0.95 * (len(ms) - 1))], 2), "locate_ms_max": round(ms[-1], 2),
        "index_s_median": round(statistics.median(index_s), 3), "peak_rss_mb": round(peak_rss_mb(), 1),
    }))


if __name__ == "__main__":
    main()
