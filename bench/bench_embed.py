"""Embedding and retrieval benchmark.

    .venv/bin/python -m bench.bench_embed                 # throughput + NIST index build + peak RSS
    .venv/bin/python -m bench.bench_embed --segments      # also the NIST segment (claim) index
    .venv/bin/python -m bench.bench_embed --recall [--docs N]   # ContractNLI segment recall only

1. Cold index build of NIST SP 800-171 (113 pages): chunk, embed, persist (llama-index + FAISS);
   then a warm question in a fresh Retriever (index loaded from disk, only the question embedded);
   with --segments also the segment index claim checking uses.
2. Sentences/s of workbench.index.embed.Embedder against a raw ONNX session (the tokenizer.json
   as shipped: fixed 128-token padding; default session options) on the same NIST sentences in
   the same run, 1 and 2 threads, rotating which goes first; the same session fed batches padded
   only to their longest text shows the model's own cost. Also their cosine agreement.
3. --recall: evidence recall@5 / @40 of Retriever.search_segments alone (no reranking) on the
   ContractNLI dev NDAs rendered to PDFs; a hit covers at least half of a gold span. Indexes are
   kept in bench/out/embed-cnli so a rerun only embeds the hypotheses.
Peak RSS is the whole process's. Prints one JSON object per measurement."""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.common import CORPUS, ROOT, peak_rss_mb, require_corpus
from bench.common import render_text_pdf as render

NIST = "pdfs/regulatory/NIST.SP.800-171r2.pdf"
OUT = ROOT / "bench" / "out" / "embed-cnli"


def emit(**kw) -> None:
    print(json.dumps(kw), flush=True)


def nist_sentences(n: int) -> list[str]:
    from workbench.pdf import open_pdf

    doc = open_pdf(CORPUS / NIST)
    texts = [doc.text[s.start : s.end] for s in doc.segments() if s.kind == "sentence"]
    texts = [t for t in texts if len(t.split()) >= 5]
    step = max(1, len(texts) // n)
    return texts[::step][:n]


class RawOnnx:
    """The naive way: tokenizer.json as shipped (pads/truncates to 128), a default session.
    With dynamic=True the same session gets batches padded only to their longest text: the
    model's own cost, to show what our wrapper adds on top."""

    def __init__(self, threads: int, dynamic: bool = False):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        from workbench.index.embed import model_path, tokenizer_path

        self.tok = Tokenizer.from_file(str(tokenizer_path()))
        if dynamic:
            self.tok.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest in the batch
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        self.session = ort.InferenceSession(str(model_path()), sess_options=opts, providers=["CPUExecutionProvider"])

    def embed(self, texts: list[str], batch: int = 32) -> np.ndarray:
        out = []
        for b in range(0, len(texts), batch):
            encs = self.tok.encode_batch(texts[b : b + batch])
            ids = np.array([e.ids for e in encs], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encs], dtype=np.int64)
            hidden = self.session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(1) / m.sum(1)
            out.append(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))
        return np.concatenate(out)


def throughput(n: int, rounds: int) -> None:
    from workbench.index.embed import Embedder

    sentences = nist_sentences(n)
    words = np.mean([len(s.split()) for s in sentences])
    for threads in (1, 2):
        contenders = [
            ("workbench", Embedder(threads=threads, batch_size=32)),
            ("raw_onnx_pad128", RawOnnx(threads)),
            ("raw_onnx_dynamic_pad", RawOnnx(threads, dynamic=True)),
        ]
        for _, e in contenders:
            e.embed(sentences[:8])
        times: dict[str, list[float]] = {name: [] for name, _ in contenders}
        vecs = {}
        for rnd in range(rounds):  # rotate the order: a busy machine drifts
            for name, e in contenders[rnd % 3 :] + contenders[: rnd % 3]:
                t = time.perf_counter()
                vecs[name] = e.embed(sentences)
                times[name].append(time.perf_counter() - t)
        agree = float(np.mean(np.sum(vecs["workbench"] * vecs["raw_onnx_pad128"], axis=1)))
        for name, ts in times.items():
            emit(measure="sentences_per_s", embedder=name, threads=threads, sentences=len(sentences),
                 mean_words=round(float(words), 1), per_s=round(len(sentences) / min(ts), 1),
                 runs_s=[round(x, 2) for x in ts])  # per_s from the fastest run
        emit(measure="cosine_agreement", threads=threads, mean_cosine=round(agree, 5))


def nist_index(threads: int, segments: bool) -> None:
    from workbench.config import Settings
    from workbench.index.embed import Embedder
    from workbench.index.retrieve import Retriever
    from workbench.pdf import open_pdf

    t = time.perf_counter()
    doc = open_pdf(CORPUS / NIST)
    parse_s = time.perf_counter() - t
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), embed_threads=threads)
        embedder = Embedder(threads=threads)
        r = Retriever(settings, embedder)
        t = time.perf_counter()
        r.index(doc)
        build_s = time.perf_counter() - t
        emit(measure="nist_chunk_index_build", threads=threads, pages=doc.document.pages, parse_s=round(parse_s, 2),
             chunks=len(r.chunks(doc)), words=len(doc.text.split()), build_s=round(build_s, 1),
             chunks_per_s=round(len(r.chunks(doc)) / build_s, 1), peak_rss_mb=round(peak_rss_mb()))
        fresh = Embedder(threads=threads)
        r2 = Retriever(settings, fresh)
        t = time.perf_counter()
        hits = r2.retrieve("How often must audit logs be reviewed?", [doc], top_k=8)
        emit(measure="nist_warm_retrieve", seconds_incl_index_load=round(time.perf_counter() - t, 2),
             texts_embedded=fresh.texts_embedded, top=hits[0].chunk_id)
        t = time.perf_counter()
        r2.retrieve("Which requirements apply to mobile devices?", [doc], top_k=8)
        emit(measure="nist_second_question", seconds=round(time.perf_counter() - t, 3))
        if segments:
            t = time.perf_counter()
            r2.search_segments("Multifactor authentication is required for privileged accounts.", doc, top_k=5)
            units = len(r2.store.get(doc).segment_units(doc).texts)
            s = time.perf_counter() - t
            emit(measure="nist_segment_index_build", units=units, build_s=round(s, 1), units_per_s=round(units / s, 1),
                 peak_rss_mb=round(peak_rss_mb()))


def recall(n_docs: int | None, threads: int) -> None:
    from workbench.config import Settings
    from workbench.index.retrieve import Retriever
    from workbench.pdf import open_pdf

    data = json.loads((CORPUS / "contract-nli" / "dev.json").read_text())
    hyp = {k: v["hypothesis"] for k, v in data["labels"].items()}
    (OUT / "pdf").mkdir(parents=True, exist_ok=True)
    r = Retriever(Settings(data_dir=OUT / "data", embed_threads=threads))
    hits5: list[bool] = []
    hits40: list[bool] = []
    unmapped = 0
    t = time.perf_counter()
    for d in data["documents"][:n_docs]:
        pdf = OUT / "pdf" / f"{d['id']}.pdf"
        if not pdf.exists():
            render(d["text"], pdf)
        doc = open_pdf(pdf)
        for key, a in d["annotation_sets"][0]["annotations"].items():
            gold = []
            for si in a["spans"]:
                s, e = d["spans"][si]
                text = d["text"][s:e].strip()
                if sum(ch.isalnum() for ch in text) < 3:
                    continue
                sp = doc.locate(text)
                if sp is None:
                    unmapped += 1
                else:
                    gold.append((sp.start, sp.end))
            if not gold:
                continue
            found = r.search_segments(hyp[key], doc, top_k=40)

            def hit(seg, gold=gold) -> bool:
                return any(min(seg.end, e) - max(seg.start, s) >= 0.5 * (e - s) for s, e in gold)

            hits5.append(any(hit(seg) for seg, _ in found[:5]))
            hits40.append(any(hit(seg) for seg, _ in found))
    emit(measure="contractnli_segment_recall", docs=len(data["documents"][:n_docs]), claims_with_gold=len(hits5),
         gold_spans_not_located=unmapped, recall_at_5=round(float(np.mean(hits5)), 3),
         recall_at_40=round(float(np.mean(hits40)), 3), seconds=round(time.perf_counter() - t, 1))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sentences", type=int, default=200, help="NIST sentences for the throughput test")
    ap.add_argument("--rounds", type=int, default=3, help="timed runs per embedder and thread count")
    ap.add_argument("--threads", type=int, default=2, help="embedding threads for the index build")
    ap.add_argument("--segments", action="store_true", help="also build the NIST segment index (slow)")
    ap.add_argument("--recall", action="store_true", help="only the ContractNLI segment recall")
    ap.add_argument("--docs", type=int, default=None, help="with --recall: first N NDAs only")
    args = ap.parse_args(argv)
    require_corpus()
    if args.recall:
        recall(args.docs, args.threads)
    else:
        nist_index(args.threads, args.segments)  # first: its peak RSS is then the index build's own
        throughput(args.sentences, args.rounds)
    emit(measure="peak_rss", mb=round(peak_rss_mb()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
