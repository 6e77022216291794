"""Warm `check-draft` of a 10-sentence draft against one CUAD contract (the support model's cost in
Check a draft): ingest once, check the draft once to warm the indexes and the model, then time
three more checks. Prints the median and the machine's load average.

    PYTHONPATH=. .venv/bin/python bench/bench_check_draft.py [--workspace DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PDF = ROOT.parent / "shared" / "corpus" / "cuad" / "pdf" / "ADIANUTRITION,INC_04_01_2005-EX-10.D2-RESELLER AGREEMENT.PDF"
DRAFT = """This Agreement is governed by the laws of the State of New York.
The Reseller may terminate this Agreement on thirty days notice.
The Company grants the Reseller an exclusive right to sell the products.
The Reseller must pay for products within 30 days of the invoice date.
Either party may assign this Agreement without the consent of the other party.
The initial term of the Agreement is one year.
The Agreement renews automatically unless a party gives notice.
The Reseller shall maintain insurance of one million dollars.
Confidential information must be returned upon termination.
The Company warrants that the products are free from defects."""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workspace", default=None)
    a = ap.parse_args(argv)
    from workbench.config import Settings
    from workbench.service import Workbench

    ws = Path(a.workspace or tempfile.mkdtemp(prefix="check_draft_"))
    wb = Workbench(Settings(data_dir=ws))
    doc = wb.ingest(str(PDF), source_type="contract")
    wb.check_draft(DRAFT, [doc.id])
    times = []
    for lead in ("Per the contract, ", "As drafted, ", "We read that "):  # each draft worded anew: no score reused
        draft = "\n".join(lead + line[0].lower() + line[1:] for line in DRAFT.splitlines())
        t = time.perf_counter()
        run = wb.check_draft(draft, [doc.id])
        times.append(time.perf_counter() - t)
    verdicts = [s.verdict for s in run.answer.sentences]
    print(f"warm check-draft, {len(verdicts)} sentences: median {statistics.median(times):.2f} s "
          f"(min {min(times):.2f}, max {max(times):.2f}); load average {os.getloadavg()[0]:.2f}")
    for s in run.answer.sentences:
        print(f"  {s.verdict:12s} {s.text[:70]!r}  {s.reason[:110]!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
