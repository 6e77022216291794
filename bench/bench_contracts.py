"""A library of 410 contracts: ingest + index throughput (in process, and through the job queue
with 1 and 2 `workbench worker` processes), retrieval latency over the whole library and over 10
documents, and the memory of the process that answers.

    nice -n 10 .venv/bin/python -m bench.bench_contracts build   [--words 600]
    nice -n 10 .venv/bin/python -m bench.bench_contracts latency [--repeat 40]
    nice -n 10 .venv/bin/python -m bench.bench_contracts workers --workers 1 --docs 24   (needs Redis)
    nice -n 10 .venv/bin/python -m bench.bench_contracts workers --workers 2 --docs 24

The library: the 379 contracts of ../shared/corpus/cuad-train/txt rendered to PDF with PyMuPDF
(the first --words words of each, to bound the embedding on a shared 2-core machine) and the 31
CUAD PDFs in full. Data lives in bench/out/contracts/ (kept between runs: `latency` reuses
`build`'s workspace). The vector store is the one the settings choose (the library-wide FAISS
index by default; bench_library.py compares it with the numpy path it replaced). Prints one
JSON object per line and appends it to bench/out/contracts/results.jsonl."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from bench.common import ROOT, peak_rss_mb, render_text_pdf, require_corpus

OUT = ROOT / "bench" / "out" / "contracts"
QUESTIONS = [
    "Which state's law governs the agreement?",
    "Can either party terminate the agreement for convenience?",
    "Is there a non-compete or exclusivity obligation?",
    "What is the cap on liability?",
    "How long does the agreement last and does it renew automatically?",
    "Who owns the intellectual property developed under the agreement?",
    "Is assignment of the agreement to a third party allowed?",
    "What are the audit rights of the parties?",
    "Which party pays for insurance and in what amount?",
    "Is there a most favored nation clause?",
]


def emit(**kw) -> None:
    kw = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **kw, "load_avg": round(os.getloadavg()[0], 1)}
    line = json.dumps(kw)
    print(line, flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "results.jsonl", "a") as f:
        f.write(line + "\n")


def rss_mb() -> float:
    """Resident memory of this process now (VmRSS), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def rendered_pdfs(words: int) -> list[Path]:
    """The cuad-train contracts as PDFs (cached under bench/out/contracts/pdfs-<words>/)."""
    corpus = require_corpus()
    pdf_dir = OUT / f"pdfs-{words}"
    pdf_dir.mkdir(parents=True, exist_ok=True)
    out = []
    for txt in sorted((corpus / "cuad-train" / "txt").glob("*.txt")):
        pdf = pdf_dir / (txt.stem[:80] + ".pdf")
        if not pdf.exists():
            body = txt.read_text(errors="replace").split(" ")
            render_text_pdf(" ".join(body[:words]), pdf)
        out.append(pdf)
    return out


def library_pdfs(words: int) -> list[Path]:
    """The whole library: rendered cuad-train contracts, then the CUAD PDFs."""
    return rendered_pdfs(words) + sorted((require_corpus() / "cuad" / "pdf").glob("*.[pP][dD][fF]"))


def settings(data: Path):
    from workbench.config import Settings

    return Settings(data_dir=data, index_on_ingest=False)


def cmd_build(args) -> None:
    """Ingest and index every PDF of the library in this process, one after the other."""
    from workbench.service import Workbench

    pdfs = library_pdfs(args.words)
    wb = Workbench(settings(OUT / "data"))
    wb.retriever.embedder.embed(["warm up"])  # the model load is not part of the throughput
    t0 = time.perf_counter()
    chunks = 0
    for n, pdf in enumerate(pdfs, 1):
        doc = wb.ingest(pdf, pdf.name, source_type="contract")
        parsed = wb.parsed(doc.id)
        wb.retriever.index(parsed)
        chunks += len(wb.retriever.chunks(parsed))
        if n % 50 == 0:
            emit(phase="build_progress", documents=n, seconds=round(time.perf_counter() - t0, 1), chunks=chunks)
    dt = time.perf_counter() - t0
    emit(phase="build", documents=len(pdfs), words_per_rendered_contract=args.words, chunks=chunks,
         seconds=round(dt, 1), docs_per_s=round(len(pdfs) / dt, 3), chunks_per_s=round(chunks / dt, 2),
         library_vectors=wb.retriever.store.library.ntotal, peak_rss_mb=round(peak_rss_mb()))


def pct(xs: list[float], q: float) -> float:
    return round(float(np.percentile(np.asarray(xs) * 1000, q)), 1)


def cmd_latency(args) -> None:
    """Retrieval latency (`Retriever.retrieve`: the library vector query filtered to the
    question's documents, BM25 over their chunks, rank fusion) in a fresh process on the built
    library, as the app process would serve it."""
    from llama_index.core.vector_stores.types import VectorStoreQuery

    from workbench.index.library import document_filter
    from workbench.service import Workbench

    base_rss = rss_mb()
    wb = Workbench(settings(OUT / "data"))
    t0 = time.perf_counter()
    docs = [wb.parsed(d.id) for d in wb.documents()]
    emit(phase="load_parsed", documents=len(docs), seconds=round(time.perf_counter() - t0, 1),
         rss_mb=round(rss_mb()), rss_before_workbench_mb=round(base_rss))
    r = wb.retriever
    rng = np.random.default_rng(7)
    ten = [docs[i] for i in rng.choice(len(docs), 10, replace=False)]
    t0 = time.perf_counter()
    r.retrieve(QUESTIONS[0], docs, top_k=8)  # first question: loads each document's chunks, the library, BM25
    emit(phase="first_question_whole_library", seconds=round(time.perf_counter() - t0, 2), rss_mb=round(rss_mb()))
    library = r.store.library
    import faiss

    default_threads = faiss.omp_get_max_threads()
    # FAISS searches with OpenMP threads; on a busy machine their start-up costs more than the
    # search itself, so each scope is measured as shipped and with one FAISS thread.
    for threads, scope, subset in ((default_threads, "whole_library", docs), (default_threads, "ten_documents", ten),
                                   (1, "whole_library", docs), (1, "ten_documents", ten)):
        faiss.omp_set_num_threads(threads)
        n_chunks = sum(len(r.chunks(d)) for d in subset)
        ids = [d.document.id for d in subset]
        filters = None if scope == "whole_library" else document_filter(ids)
        for q in QUESTIONS[:2]:
            r.retrieve(q, subset, top_k=8)  # warm: this subset's BM25 table
        times, vec_times = [], []
        for i in range(args.repeat):
            q = QUESTIONS[i % len(QUESTIONS)] + ("" if i < len(QUESTIONS) else f" ({i})")
            t = time.perf_counter()
            r.retrieve(q, subset, top_k=8)
            times.append(time.perf_counter() - t)
            qvec = r.embedder.embed([q])[0]
            t = time.perf_counter()
            library.query(VectorStoreQuery(query_embedding=qvec.tolist(), similarity_top_k=8, filters=filters),
                          with_nodes=False)
            vec_times.append(time.perf_counter() - t)
        emit(phase="latency", scope=scope, faiss_threads=threads, documents=len(subset), chunks=n_chunks,
             repeat=args.repeat,
             retrieve_p50_ms=pct(times, 50), retrieve_p95_ms=pct(times, 95),
             vector_top8_p50_ms=pct(vec_times, 50), vector_top8_p95_ms=pct(vec_times, 95))
    emit(phase="memory", rss_mb=round(rss_mb()), peak_rss_mb=round(peak_rss_mb()),
         note="one process holding the parsed library, its chunks, the FAISS library and BM25 tables")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("phase", choices=["build", "latency", "workers"])
    ap.add_argument("--words", type=int, default=600, help="words of each cuad-train contract rendered to PDF")
    ap.add_argument("--docs", type=int, default=24, help="workers: how many rendered contracts to queue")
    ap.add_argument("--repeat", type=int, default=40)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args(argv)
    if args.phase == "build":
        cmd_build(args)
    elif args.phase == "latency":
        cmd_latency(args)
    else:
        from bench.bench_jobs import cmd_workers

        cmd_workers(args, rendered_pdfs(args.words)[: args.docs], emit)


if __name__ == "__main__":
    main()
