"""Export speed per format through the service, on a real corpus PDF with many evidence items.

    .venv/bin/python -m bench.bench_export [--pdf PATH] [--items N] [--repeat R]

In a throw-away workspace: ingest the PDF, pick N sentences of 10–30 words spread over the
document, locate each with the workbench's own locator, store them as one run (all verified,
every third reviewed by a human, one answer sentence per item), then time `service.export`
for every format (median of R, warm: the parsed document is cached). The time includes the
hash re-check of every item and the gate. Prints one JSON line per format and a summary."""

from __future__ import annotations

import argparse
import json
import os
import re
import tempfile
from pathlib import Path

from bench.common import peak_rss_mb, require_corpus, timed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pdf", type=Path, default=None)
    ap.add_argument("--items", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    pdf = args.pdf or require_corpus() / "pdfs" / "large" / "freeculture_Lessig.pdf"
    os.environ["WORKBENCH_DATA_DIR"] = tempfile.mkdtemp(prefix="wb-bench-export-")

    from workbench.config import get_settings
    from workbench.export import FORMATS
    from workbench.models import Answer, Evidence, Run, SentenceSupport, Verification
    from workbench.service import Workbench

    get_settings.cache_clear()
    wb = Workbench(get_settings())
    doc = wb.ingest(pdf, source_type="other")
    parsed = wb.parsed(doc.id)
    sentences = [" ".join(s.split()) for s in re.split(r"(?<=[.!?])\s+", parsed.text)]
    candidates = [s for s in sentences if 10 <= len(s.split()) <= 30]
    step = max(1, len(candidates) // (args.items * 2))
    spans, quotes = [], []
    for q in candidates[::step]:
        sp = parsed.locate(q)
        if sp is not None and all(not (sp.start < o.end and o.start < sp.end) for o in spans):
            spans.append(sp)
            quotes.append(q)
        if len(spans) == args.items:
            break
    ids = wb.store.assign_evidence_ids([(doc.id, s.start, s.end, "other") for s in spans])
    evidence = [Evidence(requirement_id=i, document_id=doc.id, exact_quote=q, chunk_id="bench", span=s)
                for i, q, s in zip(ids, quotes, spans, strict=True)]
    sents = [SentenceSupport(text=f"Claim {n} [{i}].", citations=[i], supported=True) for n, i in enumerate(ids, 1)]
    run = Run(run_id="bench-export", question="benchmark", document_ids=[doc.id], evidence=evidence,
              verifications=[Verification(requirement_id=i, verified=True) for i in ids],
              answer=Answer(final_answer=" ".join(s.text for s in sents), sentences=sents, support_ratio=1.0))
    wb.store.save_run(run)
    for i in ids[::3]:
        wb.review(run.run_id, i, "supported", "bench")
    wb.export([run.run_id], "csv")  # warm the parsed-document cache
    total = 0.0
    for fmt in FORMATS:
        sec, res = timed(lambda fmt=fmt: wb.export([run.run_id], fmt), repeat=args.repeat)
        total += sec
        print(json.dumps({"format": fmt, "items": len(ids), "median_s": round(sec, 3), "bytes": len(res.data)}))
    print(json.dumps({"summary": True, "pdf": pdf.name, "pages": doc.pages, "items": len(ids),
                      "all_formats_s": round(total, 2), "peak_rss_mb": round(peak_rss_mb())}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
