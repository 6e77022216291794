"""Pick the quotes whose section labels bench_section_labels checks (written before any label was
looked at): 10 CUAD contracts drawn with a fixed seed, 6 sentences each spread evenly over the
body (one in every sixth of its sentences of 8+ words), identified by page and opening words.

    python -m bench.select_section_quotes > bench/data/section_quotes.tsv"""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CUAD = ROOT.parent / "shared" / "corpus" / "cuad" / "pdf"
# looked at while building the section tree: not drawn
SEEN = ("ASIANDRAGON", "AMERICASSHOPPING", "ADAMSGOLF")
SEED = 39
CONTRACTS = 10
PER_CONTRACT = 6
OPENING_CHARS = 60


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from workbench.pdf.document import open_pdf

    pdfs = sorted(p for p in CUAD.iterdir() if p.suffix.lower() == ".pdf" and not p.name.startswith(SEEN))
    chosen = sorted(random.Random(SEED).sample(pdfs, CONTRACTS))
    print("contract\tpage\tquote_start")
    for pdf in chosen:
        doc = open_pdf(str(pdf))
        sents = [s for s in doc.segments() if s.kind == "sentence" and len(s.text.split()) >= 8]
        for k in range(PER_CONTRACT):
            s = sents[(2 * k + 1) * len(sents) // (2 * PER_CONTRACT)]
            opening = " ".join(s.text.split())[:OPENING_CHARS].replace("\t", " ")
            print(f"{pdf.name}\t{s.page}\t{opening}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
