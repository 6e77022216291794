"""Tesseract beside RapidOCR (issue 42) on the same page images: word accuracy and speed.

    PYTHONPATH=$PWD .venv/bin/python -m bench.bench_ocr_engines prepare [--pages 10] [--dir /tmp/ocr-engines]
    python3 -m venv /tmp/rapidocr-venv && /tmp/rapidocr-venv/bin/pip install rapidocr_onnxruntime==1.4.4
    /tmp/rapidocr-venv/bin/python bench/bench_ocr_engines.py compare [--dir /tmp/ocr-engines]

RapidOCR is not a product dependency: it is installed into a throwaway venv for this comparison
only. `rapidocr_onnxruntime` 1.4.4's wheel carries its ONNX models (PP-OCRv4 detection,
Chinese+English recognition, a direction classifier), so it runs offline as shipped; `rapidocr` 3.x
was not tried.

`prepare` (the product's venv): one page from each of the first `--pages` CUAD contracts made
into scans by bench_ocr_cuad (bench/out/cuad-scanned-0.4: 200 dpi, gray, 0.4° skew, JPEG q60),
its second page where it has one, rendered as ingest renders it for Tesseract (300 dpi, 8-bit
gray) to PNG, with the born-digital page's text as the reference.
`compare` (the RapidOCR venv; needs only rapidocr_onnxruntime and the `tesseract` command):
page by page, interleaved so both see the same machine load, the `tesseract` command as ingest
runs it (one thread, --psm 3, TSV) and RapidOCR (default settings; onnxruntime held to `--threads`,
one like Tesseract by default). What each read is kept beside the page images (<image>.<engine>.txt). Word accuracy is bench_ocr's: reference
words matched in order (difflib over case-folded words without edge punctuation) / reference words.
Prints one JSON object per engine. `score` (either venv) then gives each engine's word accuracy
and its character accuracy with spaces ignored, from the texts `compare` kept.
    python bench/bench_ocr_engines.py score [--dir /tmp/ocr-engines]"""

from __future__ import annotations

import argparse
import csv
import difflib
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCANS = ROOT / "bench" / "out" / "cuad-scanned-0.4"
EDGE = ".,;:()[]\"'“”‘’"


def words(text: str) -> list[str]:
    return [w for w in (t.strip(EDGE).casefold() for t in text.split()) if w]


def matched(reference: str, read: str) -> tuple[int, int]:
    ref, got = words(reference), words(read)
    sm = difflib.SequenceMatcher(None, ref, got, autojunk=False)
    return sum(b.size for b in sm.get_matching_blocks()), len(ref)


def chars_matched(reference: str, read: str) -> tuple[int, int]:
    """Characters matched in order with every space removed, case-folded: what was recognised,
    however the words were split (RapidOCR's bundled Chinese+English model often drops the
    spaces between English words, which word accuracy counts against it)."""
    ref, got = "".join(reference.split()).casefold(), "".join(read.split()).casefold()
    sm = difflib.SequenceMatcher(None, ref, got, autojunk=False)
    return sum(b.size for b in sm.get_matching_blocks()), len(ref)


def score(out: Path) -> None:
    """Word and character accuracy per engine from what `compare` kept (no OCR run)."""
    index = json.loads((out / "pages.json").read_text())
    engines = sorted({p.name.split(".")[-2] for p in out.glob("*.txt")})
    index = [p for p in index if all((out / f'{p["image"]}.{e}.txt').exists() for e in engines)]  # read by all
    for engine in engines:
        w = c = [0, 0]
        for page in index:
            text = (out / f'{page["image"]}.{engine}.txt').read_text()
            w = [a + b for a, b in zip(w, matched(page["reference"], text), strict=True)]
            c = [a + b for a, b in zip(c, chars_matched(page["reference"], text), strict=True)]
        print(json.dumps({"engine": engine, "pages": len(index), "word_accuracy": round(w[0] / max(1, w[1]), 4),
                          "char_accuracy_spaces_ignored": round(c[0] / max(1, c[1]), 4)}))


def prepare(out: Path, pages: int) -> None:
    import pymupdf

    corpus = Path(os.environ.get("WORKBENCH_CORPUS", ROOT.parent / "shared" / "corpus"))
    out.mkdir(parents=True, exist_ok=True)
    scans = sorted(p for p in SCANS.iterdir() if p.suffix.lower() == ".pdf")[:pages]
    if len(scans) < pages:
        raise SystemExit(f"{SCANS} holds {len(scans)} scans: run `python -m bench.bench_ocr_cuad` first")
    index = []
    for k, scan in enumerate(scans):
        with pymupdf.open(scan) as s, pymupdf.open(corpus / "cuad" / "pdf" / scan.name) as orig:
            n = 1 if len(s) > 1 else 0
            pix = s[n].get_pixmap(dpi=300, colorspace=pymupdf.csGRAY, alpha=False)  # as ocr._render does
            png = out / f"page{k:02d}.png"
            pix.save(png)
            index.append({"image": png.name, "contract": scan.stem[:60], "page": n + 1, "reference": orig[n].get_text()})
    (out / "pages.json").write_text(json.dumps(index, indent=1))
    print(json.dumps({"prepared": len(index), "dir": str(out)}))


def tesseract_text(png: Path) -> str:
    proc = subprocess.run(["tesseract", str(png), "stdout", "-l", "eng", "--psm", "3", "tsv"], capture_output=True,
                          check=True, env=dict(os.environ, OMP_THREAD_LIMIT="1"))
    rows = csv.DictReader(io.StringIO(proc.stdout.decode()), delimiter="\t", quoting=csv.QUOTE_NONE)
    return " ".join(r["text"] for r in rows if r.get("level") == "5" and (r.get("text") or "").strip())


def compare(out: Path, threads: int, fresh: bool) -> None:
    import resource

    from rapidocr_onnxruntime import RapidOCR

    index = json.loads((out / "pages.json").read_text())
    engines = {f"rapidocr {threads} thread(s)": RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=threads)}
    version = subprocess.run(["tesseract", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    totals = {name: [0, 0, 0.0] for name in ("tesseract command", *engines)}  # matched, reference words, seconds
    done = 0
    for page in index:
        png = out / page["image"]
        if not fresh and all((out / f'{page["image"]}.{e}.txt').exists() for e in ("tesseract", "rapidocr")):
            continue  # read by an earlier, interrupted compare: `score` counts it, the timings here do not
        done += 1
        t = time.perf_counter()
        text = tesseract_text(png)
        dt = time.perf_counter() - t
        runs = [("tesseract command", text, dt)]
        for name, engine in engines.items():
            t = time.perf_counter()
            result, _ = engine(str(png))
            dt = time.perf_counter() - t
            runs.append((name, " ".join(r[1] for r in result or []), dt))
        for name, text, dt in runs:
            (out / f'{page["image"]}.{name.split()[0]}.txt').write_text(text)
            m, n = matched(page["reference"], text)
            totals[name][0] += m
            totals[name][1] += n
            totals[name][2] += dt
        print(json.dumps({"page": f'{page["contract"]} p{page["page"]}',
                          **{name: {"word_accuracy": round(matched(page["reference"], text)[0]
                                                           / max(1, matched(page["reference"], text)[1]), 4),
                                    "seconds": round(dt, 1)} for name, text, dt in runs}}), flush=True)
    for name, (m, n, secs) in totals.items():
        print(json.dumps({"engine": name if name != "tesseract command" else f"{name} ({version})",
                          "pages": done, "reference_words": n, "word_accuracy": round(m / max(1, n), 4),
                          "seconds": round(secs, 1), "pages_per_min": round(done / secs * 60, 1) if secs else None}))
    print(json.dumps({"peak_rss_mb (this process, RapidOCR loaded)":
                      round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                      "load_avg": os.getloadavg()}))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=("prepare", "compare", "score"))
    ap.add_argument("--dir", type=Path, default=Path("/tmp/ocr-engines"))
    ap.add_argument("--pages", type=int, default=10)
    ap.add_argument("--fresh", action="store_true", help="compare: read every page again, even those an "
                    "interrupted compare read")
    ap.add_argument("--threads", type=int, default=1, help="onnxruntime's threads for RapidOCR (-1: its default)")
    a = ap.parse_args()
    if a.mode == "prepare":
        prepare(a.dir, a.pages)
    elif a.mode == "compare":
        compare(a.dir, a.threads, a.fresh)
    else:
        score(a.dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
