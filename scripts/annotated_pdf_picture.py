"""Render the annotated-PDF export of a real corpus document to PNG (docs/img/annotated-pdf.png).

    .venv/bin/python scripts/annotated_pdf_picture.py [--pdf PATH] [--question TEXT] [--quotes]
                                                       [--out docs/img/annotated-pdf.png]

Goes through the product end to end in a throw-away workspace: ingest NIST SP 800-171 r2 (a US
government work), answer the question with the offline `rules` pipeline, record reviews on
the page with the most evidence (one item confirmed, one verified item overridden to
unsupported, so both colours show), export `--format
pdf` through the service, and render the page with the most highlights. `--quotes` skips the
pipeline and cites three fixed quotes from requirements 3.1.18–3.1.19 located by the workbench's
own locator (also the fallback while the pipeline is unavailable)."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CORPUS_PDF = ROOT.parent / "shared" / "corpus" / "pdfs" / "regulatory" / "NIST.SP.800-171r2.pdf"
QUESTION = "What must organizations do to protect CUI on mobile devices?"
QUOTES = [  # (quote, verified by the verifier)
    ("Organizations can employ full-device encryption or container-based encryption to protect the "
     "confidentiality of CUI on mobile devices and computing platforms.", True),
    ("Usage restrictions and implementation guidance for mobile devices include: device identification and "
     "authentication; configuration management; implementation of mandatory protective software", True),
    ("Examples of mobile devices include smart phones, e-readers, and tablets.", False),
]


def _fixed_run(wb, doc):
    from workbench.models import Answer, Evidence, Run, SentenceSupport, Verification

    parsed = wb.parsed(doc.id)
    spans = [parsed.locate(q) for q, _ in QUOTES]
    missing = [q for (q, _), s in zip(QUOTES, spans, strict=True) if s is None]
    if missing:
        raise SystemExit(f"quote not found in {doc.filename}: {missing[0]!r}")
    ids = wb.store.assign_evidence_ids([(doc.id, s.start, s.end, doc.source_type) for s in spans])
    evidence = [Evidence(requirement_id=i, source_type=doc.source_type, document_id=doc.id, exact_quote=q,
                         chunk_id="picture", span=s) for i, (q, _), s in zip(ids, QUOTES, spans, strict=True)]
    verifs = [Verification(requirement_id=i, verified=ok, verifier="picture",
                           rejection_reason=None if ok else "does_not_address_question")
              for i, (_, ok) in zip(ids, QUOTES, strict=True)]
    sents = [SentenceSupport(text=f"Organizations can encrypt CUI on mobile devices [{ids[0]}].", citations=[ids[0]],
                             supported=True),
             SentenceSupport(text=f"Mobile device use needs identification, configuration and protective software "
                                  f"[{ids[1]}].", citations=[ids[1]], supported=True)]
    run = Run(run_id="picture", question=QUESTION, document_ids=[doc.id], evidence=evidence, verifications=verifs,
              answer=Answer(final_answer=" ".join(s.text for s in sents), sentences=sents, support_ratio=1.0,
                            grounding_confidence="medium"))
    wb.store.save_run(run)
    return run


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pdf", type=Path, default=CORPUS_PDF)
    ap.add_argument("--question", default=QUESTION)
    ap.add_argument("--quotes", action="store_true", help="cite the fixed quotes instead of running the pipeline")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "annotated-pdf.png")
    ap.add_argument("--zoom", type=float, default=1.5)
    args = ap.parse_args(argv)

    os.environ["WORKBENCH_DATA_DIR"] = tempfile.mkdtemp(prefix="wb-picture-")
    import pymupdf

    from workbench.config import get_settings
    from workbench.service import Workbench

    get_settings.cache_clear()
    wb = Workbench(get_settings())
    doc = wb.ingest(args.pdf, source_type="policy")
    run, how = None, "fixed quotes"
    if not args.quotes:
        try:
            runs = wb.ask([args.question], [doc.id])
            run, how = runs[0], "rules pipeline"
        except NotImplementedError:
            print("pipeline not available yet: citing the fixed quotes", file=sys.stderr)
    if run is None:
        run = _fixed_run(wb, doc)
    statuses = wb.evidence_status(run.run_id)
    pages = Counter(s.evidence.span.page for s in statuses if s.evidence.span)
    if not pages:
        raise SystemExit(f"run {run.run_id} has no located evidence to highlight")
    busiest = pages.most_common(1)[0][0]
    verified = [s for s in statuses if s.verifier_verdict == "supported" and s.evidence.span
                and s.evidence.span.page == busiest]
    if verified:
        wb.review(run.run_id, verified[0].evidence.requirement_id, "supported", "reviewer", "confirmed")
    if len(verified) > 1:  # one human override on the pictured page, so both colours show
        note = ("usage guidance, not a requirement" if how == "fixed quotes"
                else "demo override: a reviewer disagrees with the verifier")
        wb.review(run.run_id, verified[-1].evidence.requirement_id, "unsupported", "reviewer", note)
    res = wb.export([run.run_id], "pdf")
    annotated = pymupdf.open(stream=res.data, filetype="pdf")
    per_page = Counter(p.number for p in annotated for a in p.annots() if a.type[1] == "Highlight")
    page = annotated[busiest - 1]
    boxes = [a.rect for a in page.annots()]
    top = max(page.rect.y0, min(b.y0 for b in boxes) - 110)
    bottom = min(page.rect.y1, max(b.y1 for b in boxes) + 90)
    clip = pymupdf.Rect(page.rect.x0, top, page.rect.x1, bottom)
    pix = page.get_pixmap(matrix=pymupdf.Matrix(args.zoom, args.zoom), clip=clip, annots=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    pix.save(args.out)
    print(f"{args.out}: page {page.number + 1} of {doc.filename}, {per_page[page.number]} highlights "
          f"({how}, run {run.run_id}, {len(statuses)} evidence items)")
    for a in page.annots():
        print("  " + a.info["content"].replace("\n", " | "))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
