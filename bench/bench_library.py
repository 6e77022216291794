"""A library of contracts: ingest + index throughput, and retrieval latency through the library
index with its vectors in FAISS and in pgvector, on the same library and questions in one run
(`--numpy`: FAISS against the former numpy path instead).

    nice -n 10 .venv/bin/python -m bench.bench_library build   [--words 2500] [--docs 411]
    nice -n 10 .venv/bin/python -m bench.bench_library latency [--repeat 30] [--numpy]
    nice -n 10 .venv/bin/python -m bench.bench_library nist    [--repeat 30]   (NIST SP 800-171 alone)

pgvector: the PostgreSQL at WORKBENCH_BENCH_PG (default postgresql://postgres@127.0.0.1:5432/test)
with the `vector` extension (`make pgvector`); `latency` refills the table bench_library_vectors
there from the built library's vector files (nothing is embedded again) and times the fill.

The library: ../shared/corpus/cuad-train/txt rendered to PDF with PyMuPDF (the first --words words
of each contract, to bound the embedding on a shared 2-core machine), the 31 CUAD PDFs in full,
and NIST SP 800-171. Data lives in bench/out/library/ (kept between runs: `latency` reuses
`build`'s index). Prints one JSON object per line. Queue workers: bench_contracts.py."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from bench.bench_contracts import QUESTIONS as CONTRACT_QUESTIONS
from bench.bench_contracts import settings
from bench.common import ROOT, peak_rss_mb, render_text_pdf, require_corpus

OUT = ROOT / "bench" / "out" / "library"
QUESTIONS = CONTRACT_QUESTIONS[:8]  # the same questions as bench_contracts (its first 8)


def emit(**kw) -> None:
    print(json.dumps(kw), flush=True)


def library_pdfs(words: int, limit: int) -> list[Path]:
    """Rendered cuad-train contracts (cached), the CUAD PDFs and NIST SP 800-171; at most `limit`."""
    corpus = require_corpus()
    pdf_dir = OUT / f"pdfs-{words}"
    pdf_dir.mkdir(parents=True, exist_ok=True)
    out = [corpus / "pdfs" / "regulatory" / "NIST.SP.800-171r2.pdf"]
    out += sorted((corpus / "cuad" / "pdf").glob("*.[pP][dD][fF]"))
    for txt in sorted((corpus / "cuad-train" / "txt").glob("*.txt")):
        if len(out) >= limit:
            break
        pdf = pdf_dir / (txt.stem[:80] + ".pdf")
        if not pdf.exists():
            body = txt.read_text(errors="replace").split(" ")
            render_text_pdf(" ".join(body[:words]), pdf)
        out.append(pdf)
    return out[:limit]


def cmd_build(args) -> None:
    from workbench.service import Workbench

    pdfs = library_pdfs(args.words, args.docs)
    wb = Workbench(settings(OUT / "data"))
    t0 = time.perf_counter()
    chunks = 0
    for n, pdf in enumerate(pdfs, 1):
        doc = wb.ingest(pdf, pdf.name, source_type="contract")
        parsed = wb.parsed(doc.id)
        wb.retriever.index(parsed)
        chunks += len(wb.retriever.store.get(parsed).chunks)
        if n % 50 == 0:
            emit(progress=n, seconds=round(time.perf_counter() - t0, 1), chunks=chunks)
    dt = time.perf_counter() - t0
    emit(phase="build", documents=len(pdfs), chunks=chunks, seconds=round(dt, 1),
         docs_per_s=round(len(pdfs) / dt, 2), chunks_per_s=round(chunks / dt, 1),
         library_vectors=wb.retriever.store.library.ntotal, peak_rss_mb=round(peak_rss_mb()))


def pct(xs: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(xs) * 1000, q))


def cmd_latency(args) -> None:
    from workbench.index.retrieve import Retriever
    from workbench.service import Workbench

    wb = Workbench(settings(OUT / "data"))
    t0 = time.perf_counter()
    docs = [wb.parsed(d.id) for d in wb.documents()]
    emit(phase="load_parsed", documents=len(docs), seconds=round(time.perf_counter() - t0, 1),
         rss_mb=round(peak_rss_mb()))
    nist = next(d for d in docs if d.document.filename.startswith("NIST.SP.800-171"))
    rng = np.random.default_rng(7)
    ten = [docs[i] for i in rng.choice(len(docs), 10, replace=False)]
    r: Retriever = wb.retriever
    t0 = time.perf_counter()
    r.retrieve(QUESTIONS[0], docs, top_k=8)  # loads every document's chunks, the library, BM25 union
    emit(phase="first_question_whole_library", seconds=round(time.perf_counter() - t0, 2), rss_mb=round(peak_rss_mb()))

    scopes = [("whole_library", docs), ("ten_documents", ten), ("nist_sp800_171", [nist])]
    if args.numpy:
        compare(r, scopes, args.repeat)
    else:
        compare_stores(wb, docs, scopes, args.repeat)
    emit(phase="memory", peak_rss_mb=round(peak_rss_mb()), note="app process: parsed docs + library + BM25 unions")


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def compare_stores(wb, docs, scopes, repeat: int) -> None:
    """Per scope: retrieve() latency with the library's vectors in FAISS and in pgvector (the same
    parsed documents, chunk files, BM25, embedder and questions; the two alternate question by
    question, each going first half the time), the vector search alone (question vector given),
    and whether both give the same top 8. The load average is printed beside each row."""
    from workbench.config import VectorStoreSettings
    from workbench.errors import ConfigError
    from workbench.index.pgvector_store import PgVectorLibrary
    from workbench.index.retrieve import Retriever

    url = os.environ.get("WORKBENCH_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
    table = "bench_library_vectors"
    try:
        PgVectorLibrary(url, table).drop()
    except ConfigError as exc:
        emit(phase="pgvector", skipped=str(exc))
        return
    pg_settings = wb.settings.model_copy(update={"vector_store": VectorStoreSettings(kind="pgvector", url=url, table=table)})
    rf: Retriever = wb.retriever
    rp = Retriever(pg_settings, rf.embedder)
    t0 = time.perf_counter()
    for d in docs:  # each document's vectors.npy into the table, through the llama-index adapter
        rp.store.get(d)
    emit(phase="pgvector_fill", documents=len(docs), vectors=rp.store.vectors.ntotal, faiss_vectors=rf.store.vectors.ntotal,
         seconds=round(time.perf_counter() - t0, 1), load=loadavg())
    paths = {"faiss": rf, "pgvector": rp}
    for name, r in paths.items():  # what `ask` checks first for each of its documents (is it indexed?)
        checks = []
        for _ in range(5):
            t = time.perf_counter()
            assert all(r.store.is_built(d) for d in docs)
            checks.append(time.perf_counter() - t)
        emit(phase="is_built_every_document", store=name, documents=len(docs), p50_ms=round(pct(checks, 50), 1),
             max_ms=round(max(checks) * 1000, 1), load=loadavg())
    qvecs = {q: rf.embedder.embed([q])[0] for q in QUESTIONS}
    for scope, subset in scopes:
        indexes = {name: [r.store.get(d) for d in subset] for name, r in paths.items()}
        n_chunks = sum(len(di.chunks) for di in indexes["faiss"])
        for r in paths.values():
            for q in QUESTIONS[:2]:
                r.retrieve(q, subset, top_k=8)  # warm
        times: dict[str, list[float]] = {name: [] for name in paths}
        search_times: dict[str, list[float]] = {name: [] for name in paths}
        load_before = loadavg()
        for i in range(repeat):
            q = QUESTIONS[i % len(QUESTIONS)] + ("" if i < len(QUESTIONS) else f" ({i})")
            qvec = qvecs[QUESTIONS[i % len(QUESTIONS)]]
            for name in (list(paths) if i % 2 == 0 else list(paths)[::-1]):
                r = paths[name]
                t = time.perf_counter()
                r.retrieve(q, subset, top_k=8)
                times[name].append(time.perf_counter() - t)
                t = time.perf_counter()
                r.library_cosines(qvec, indexes[name], n_chunks)
                search_times[name].append(time.perf_counter() - t)
        for name in paths:
            emit(phase="latency", scope=scope, store=name, documents=len(subset), chunks=n_chunks, repeat=repeat,
                 retrieve_p50_ms=round(pct(times[name], 50), 1), retrieve_p95_ms=round(pct(times[name], 95), 1),
                 search_p50_ms=round(pct(search_times[name], 50), 2), search_p95_ms=round(pct(search_times[name], 95), 2),
                 load_before=load_before, load_after=loadavg())
        same = [[c.chunk_id for c in rf.retrieve(q, subset, top_k=8)] == [c.chunk_id for c in rp.retrieve(q, subset, top_k=8)]
                for q in QUESTIONS]
        emit(phase="same_results", scope=scope, questions=len(QUESTIONS), identical_top8=sum(same))


def compare(r, scopes, repeat: int) -> None:
    """Per scope: retrieve() latency through the library index (llama-index vector store over
    FAISS) and through the numpy path it replaced (every chunk vector of the documents held in
    memory, concatenated, times the question vector), the vector search alone (question vector
    given: the part the two paths differ in), and whether both give the same top 8."""

    held: dict[str, np.ndarray] = {}  # the former path held every document's vectors.npy in memory

    def numpy_search(qvec, indexes, n):
        for di in indexes:
            if di.document_id not in held:
                held[di.document_id] = di.chunk_vectors()
        return np.concatenate([held[di.document_id] for di in indexes]) @ qvec

    def numpy_cosines(question, indexes, n):  # the former path: embed, then concatenated vectors @ q
        qvec = r.embedder.embed([question])[0]
        return qvec, numpy_search(qvec, indexes, n)

    llama_cosines = r._cosines
    qvecs = {q: r.embedder.embed([q])[0] for q in QUESTIONS}
    for scope, subset in scopes:
        indexes = [r.store.get(d) for d in subset]
        n_chunks = sum(len(di.chunks) for di in indexes)
        for path, fn, search in (("llama_index_faiss", llama_cosines, r.library_cosines),
                                 ("numpy", numpy_cosines, numpy_search)):
            r._cosines = fn
            for q in QUESTIONS[:2]:
                r.retrieve(q, subset, top_k=8)  # warm
            times, search_times = [], []
            for i in range(repeat):
                q = QUESTIONS[i % len(QUESTIONS)] + ("" if i < len(QUESTIONS) else f" ({i})")
                t = time.perf_counter()
                r.retrieve(q, subset, top_k=8)
                times.append(time.perf_counter() - t)
                qvec = qvecs[QUESTIONS[i % len(QUESTIONS)]]
                t = time.perf_counter()
                search(qvec, indexes, n_chunks)
                search_times.append(time.perf_counter() - t)
            emit(phase="latency", scope=scope, path=path, documents=len(subset), chunks=n_chunks, repeat=repeat,
                 retrieve_p50_ms=round(pct(times, 50), 1), retrieve_p95_ms=round(pct(times, 95), 1),
                 search_p50_ms=round(pct(search_times, 50), 2), search_p95_ms=round(pct(search_times, 95), 2))
        same = []
        for q in QUESTIONS:
            r._cosines = llama_cosines
            a = [c.chunk_id for c in r.retrieve(q, subset, top_k=8)]
            r._cosines = numpy_cosines
            b = [c.chunk_id for c in r.retrieve(q, subset, top_k=8)]
            same.append(a == b)
        r._cosines = llama_cosines
        emit(phase="same_results", scope=scope, questions=len(QUESTIONS), identical_top8=sum(same))


def cmd_nist(args) -> None:
    """NIST SP 800-171 alone in its own workspace (the library holds one document: no filter)."""
    from workbench.service import Workbench

    nist_pdf = require_corpus() / "pdfs" / "regulatory" / "NIST.SP.800-171r2.pdf"
    wb = Workbench(settings(OUT / "nist-data"))
    doc = wb.ingest(nist_pdf, nist_pdf.name, source_type="policy")
    parsed = wb.parsed(doc.id)
    t0 = time.perf_counter()
    wb.retriever.index(parsed)
    emit(phase="nist_index", seconds=round(time.perf_counter() - t0, 1), chunks=len(wb.retriever.chunks(parsed)))
    compare(wb.retriever, [("nist_sp800_171_alone", [parsed])], args.repeat)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("phase", choices=["build", "latency", "nist"])
    ap.add_argument("--words", type=int, default=2500)
    ap.add_argument("--docs", type=int, default=411)
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--numpy", action="store_true", help="latency: FAISS against the former numpy path, not pgvector")
    args = ap.parse_args(argv)
    if args.phase == "build":
        cmd_build(args)
    elif args.phase == "latency":
        cmd_latency(args)
    else:
        cmd_nist(args)


if __name__ == "__main__":
    main()
