"""What reaches the judge on four documents no other bench uses: `ask` on NIST FIPS 201-2, the
IRS Form 1040-NR instructions (three columns the PDF draws row by row), a Federal Register
proposed rule (three columns) and the TraceMonkey paper (two columns), 19 questions written
before the first run. "Answered": not NO_AUTHORITATIVE_EVIDENCE (no expected phrases: these
questions measure what the evidence is made of, not whether it is the right evidence).

    .venv/bin/python -m bench.bench_reading [--workspace DIR] [--tag NAME]

Counted over the verified quotes, from what `ask` returns only (so an older checkout can be
measured with PYTHONPATH naming it):
- interleaved: a quote whose lines, in text order, step sideways into another column at the
  same height (left by more than 20 pt without going down a line, or right past its line's end
  within the same line band): lines of two columns read in turn;
- heading or contents line: a quote with dot leaders to a page number, or with no sentence end
  whose words (numbering aside) are a title of the PDF's outline: it finds the way, states nothing.
Results go to stdout and bench/out/bench_reading<tag>.json."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "pdfs"
OUT = ROOT / "bench" / "out"

QUESTIONS: dict[str, tuple[str, list[str]]] = {
    "regulatory/NIST.FIPS.201-2.pdf": ("statute", [
        "What must a PIV card display on its front?", "How long is a PIV card valid?",
        "What biometric data must be stored on the PIV card?", "Who may issue a PIV card?",
        "What happens when a PIV card is lost or stolen?"]),
    "regulatory/i1040nr_IRS-instructions.pdf": ("policy", [
        "Who must file Form 1040-NR?", "When is the deadline to file Form 1040-NR?",
        "Where should I mail my return if I am not enclosing a payment?",
        "Can a nonresident alien claim the standard deduction?", "What is the penalty for filing late?"]),
    "regulatory/fedreg-2020-17221_FAA-AD-Boeing737MAX-NPRM.pdf": ("statute", [
        "What does the proposed airworthiness directive require?", "Which airplanes does this AD apply to?",
        "How can comments on the proposal be submitted?", "What is the estimated cost of compliance?",
        "What unsafe condition does this AD address?"]),
    "science/tracemonkey_PLDI09.pdf": ("paper", [
        "What speedup does TraceMonkey achieve?", "How are type-unstable loops handled?",
        "What is a trace tree?", "Which benchmarks were used in the evaluation?"]),
}

_LEADERS = re.compile(r"(?:\.\s?){5,}")
_NUMBERING = re.compile(r"^\W*(?:(?:section|article|chapter|part|appendix)\s+)?[\divxlc]+(?:\.\d+)*\.?\s+", re.I)


def _bare(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", _NUMBERING.sub("", " ".join(text.lower().split())))


def interleaved(rects: list) -> bool:
    """Lines that step sideways into another column at the same height (see the module doc)."""
    for (p0, ax0, ay0, ax1, ay1), (p1, bx0, by0, _bx1, _by1) in zip(rects, rects[1:], strict=False):
        if p0 != p1:
            continue
        h = ay1 - ay0
        if bx0 < ax0 - 20 and by0 < ay0 + 0.5 * h:
            return True
        if bx0 > ax1 + 5 and abs(by0 - ay0) < 0.5 * h:
            return True
    return False


def navigation(quote: str, titles: set[str]) -> bool:
    t = " ".join(quote.split())
    return bool(_LEADERS.search(t)) or (not re.search(r"[.;:!?][\"')\u201d\u2019]*$", t) and _bare(t) in titles)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workspace", default=str(OUT / "reading_ws"), help="kept between runs: ingest once")
    ap.add_argument("--tag", default="", help="suffix of the output file")
    a = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    import pymupdf

    import workbench
    from workbench.config import Settings
    from workbench.service import Workbench

    print(f"workbench from {Path(workbench.__file__).resolve().parent}", file=sys.stderr)
    wb = Workbench(Settings(data_dir=Path(a.workspace)))
    rows, summary = [], {}
    for fname, (source_type, qs) in QUESTIONS.items():
        with pymupdf.open(CORPUS / fname) as pdf:
            titles = {_bare(str(t)) for _lvl, t, _p in pdf.get_toc(simple=True)} - {""}
        doc = wb.ingest(str(CORPUS / fname), source_type=source_type)
        runs = wb.ask(qs, [doc.id])
        for q, run in zip(qs, runs, strict=True):
            ok = {v.requirement_id for v in run.verifications if v.verified}
            verified = [e for e in run.evidence if e.requirement_id in ok and e.span is not None]
            rows.append({"document": fname, "question": q, "result": run.answer.result,
                         "confidence": run.answer.grounding_confidence, "verified": len(verified),
                         "interleaved": [e.exact_quote for e in verified if interleaved(e.span.rects)],
                         "navigation": [e.exact_quote for e in verified if navigation(e.exact_quote, titles)],
                         "answer": run.answer.final_answer})
        rs = [r for r in rows if r["document"] == fname]
        summary[fname] = {"questions": len(rs), "answered": sum(r["result"] is None for r in rs),
                          "verified": sum(r["verified"] for r in rs),
                          "interleaved": sum(len(r["interleaved"]) for r in rs),
                          "heading_or_contents": sum(len(r["navigation"]) for r in rs)}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"bench_reading{a.tag}.json").write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    for fname, s in summary.items():
        print(f"{fname.split('/')[-1][:40]:40s} answered {s['answered']}/{s['questions']}  verified {s['verified']:3d}  "
              f"interleaved {s['interleaved']:3d}  heading/contents {s['heading_or_contents']:3d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
