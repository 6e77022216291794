"""What reaches the judge on documents no other bench uses: `ask` on NIST FIPS 201-2, the
IRS Form 1040-NR instructions (three columns the PDF draws row by row), a Federal Register
proposed rule (three columns), the TraceMonkey paper (two columns), the DMCA summary, NIST
SP 800-223, a CUAD franchise agreement and the Qwen2 report; 40 questions written
before the first run. "Answered": not NO_AUTHORITATIVE_EVIDENCE (no expected phrases: these
questions measure what the evidence is made of, not whether it is the right evidence).

    .venv/bin/python -m bench.bench_reading [--workspace DIR] [--tag NAME]

Counted over the verified quotes, from what `ask` returns and the workspace's text (so an older checkout can be
measured with PYTHONPATH naming it):
- interleaved: a quote whose lines, in text order, step sideways into another column at the
  same height (left by more than 20 pt without going down a line, or right past its line's end
  within the same line band): lines of two columns read in turn (a clause number hanging in the
  margin beside its first line, under 40 pt wide, is not a column);
- heading or contents line: a quote with dot leaders to a page number, or with no sentence end
  whose words (numbering aside) are a title of the PDF's outline: it finds the way, states nothing.
- cut in a phrase: a quote that stops on a word a phrase goes on from ("… without giving effect
  to") or between the items of a list the document goes on with ("… you will offer, sell");
- after a break: a quote opening a block whose previous block (a footer or page number aside)
  stops mid-sentence ("Texas law, then …" after "… as written under" | "Page 55 of 80");
- lead-in alone: an answer sentence that only announces a list, none of whose items follow it.
The last four documents (a new user's questions, written before their first run) came on
2026-11-24 with those three counts.
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
    # written 2026-11-24 before the first run on these four documents (a new user's questions)
    "regulatory/dmca.pdf": ("statute", [
        "What does the Act prohibit regarding circumvention of technological measures?",
        "What conditions must a service provider meet to limit its liability?",
        "What must a notification of claimed infringement include?",
        "What is the penalty for willful violations for commercial gain?"]),
    "regulatory/NIST.SP.800-223_HPC-security.pdf": ("statute", [
        "What zones does the HPC reference architecture define?", "What is the purpose of the access zone?",
        "Who is the intended audience of this publication?", "What security challenges do HPC systems face?",
        "How should container images be secured?"]),
    "contract/CUAD_GOOSEHEAD-Franchise-Agreement.pdf": ("contract", [
        "What is the term of the franchise agreement?", "What royalty fee must the franchisee pay?",
        "What law governs this agreement?", "Can the franchisee assign this agreement?",
        "What must the franchisee do when the agreement ends?", "Does the franchisee get an exclusive territory?"]),
    "science/Qwen2-technical-report_arXiv2407.10671.pdf": ("paper", [
        "What model sizes does Qwen2 come in?", "How many tokens was Qwen2 pre-trained on?",
        "What context length does Qwen2 support?", "How many languages does Qwen2 support?",
        "What attention mechanism does Qwen2 use?", "What is the MMLU score of Qwen2-72B?"]),
}
# The bench's own list (not the product's): words a phrase goes on from.
_PHRASE_GOES_ON = frozenset(["to", "of", "for", "with", "by", "from", "on", "in", "at", "into", "upon", "under",
                             "through", "without", "within", "between", "than", "as", "such", "any", "all", "each",
                             "the", "a", "an", "its", "their", "this", "that", "which", "who", "whose", "where", "when",
                             "if", "unless", "then", "including", "not", "and", "or"])
_SENTENCE_END = re.compile(r"[.;:!?][\"')\]\u201d\u2019]*$")

_LEADERS = re.compile(r"(?:\.\s?){5,}")
_NUMBERING = re.compile(r"^\W*(?:(?:section|article|chapter|part|appendix)\s+)?[\divxlc]+(?:\.\d+)*\.?\s+", re.I)


def _bare(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", _NUMBERING.sub("", " ".join(text.lower().split())))


HANGING_MARK_WIDTH = 40  # pt: "4.2.9" set apart at the left of its clause's first line is no column


def interleaved(rects: list) -> bool:
    """Lines that step sideways into another column at the same height (see the module doc)."""
    for (p0, ax0, ay0, ax1, ay1), (p1, bx0, by0, _bx1, _by1) in zip(rects, rects[1:], strict=False):
        if p0 != p1 or ax1 - ax0 < HANGING_MARK_WIDTH:  # a clause number hanging in the margin: one line
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


def cut_in_phrase(quote: str, after: str) -> bool:
    """A quote that stops inside a phrase: on a word a phrase goes on from, or between the items
    of a list the document goes on with (", sell, and provide")."""
    q = " ".join(quote.split())
    if _SENTENCE_END.search(q):
        return False
    last = re.sub(r"\W+$", "", q).split()[-1:] or [""]
    nxt = re.match(r"\s*,\s*(?:and\s+|or\s+)?(\w[\w-]*(?:\s+\w[\w-]*)?)\s*(?:[,.;:]|\band\b|\bor\b)", after)
    return last[0].lower() in _PHRASE_GOES_ON or bool(nxt and len(nxt.group(1).split()) <= 2)


def starts_after_break(before: str) -> bool:
    """A quote opening a block whose previous block stops mid-sentence: the text before it, without
    blank-line blocks of at most 6 words (a footer, a page number), ends on a letter or a comma."""
    blocks = [b for b in re.split(r"\n[ \t]*\n", before) if b.strip()]
    if len(before) - len(before.rstrip()) < 2 or "\n\n" not in before[-40:].replace(" ", ""):
        return False  # the quote does not open a block
    while blocks and len(blocks[-1].split()) <= 6:
        blocks.pop()
    return bool(blocks) and (blocks[-1].rstrip()[-1:].islower() or blocks[-1].rstrip().endswith(","))


def lead_alone(answer: str, evidence: dict) -> int:
    """Answer sentences that only announce a list ("… must meet the following conditions") with
    none of the list's items after them in the answer."""
    cited = re.findall(r"\[([A-Z]+-[A-Z]\d+)", answer)
    n = 0
    for rid in cited:
        e = evidence.get(rid)
        if e is None or not re.search(r"(?::|the following\W*|as follows\W*)$", " ".join(e.exact_quote.split())):
            continue
        if not any(o.document_id == e.document_id and 0 < o.span.start - e.span.end < 1500
                   for r in cited if (o := evidence.get(r)) is not None and r != rid):
            n += 1
    return n


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
            full = wb.parsed(doc.id).text  # the words around a quote, at its span's offsets
            rows.append({"document": fname, "question": q, "result": run.answer.result,
                         "confidence": run.answer.grounding_confidence, "verified": len(verified),
                         "interleaved": [e.exact_quote for e in verified if interleaved(e.span.rects)],
                         "navigation": [e.exact_quote for e in verified if navigation(e.exact_quote, titles)],
                         "cut_in_phrase": [e.exact_quote for e in verified
                                           if cut_in_phrase(e.exact_quote, full[e.span.end:e.span.end + 60])],
                         "starts_after_break": [e.exact_quote for e in verified
                                                if starts_after_break(full[max(0, e.span.start - 400):e.span.start])],
                         "lead_alone": lead_alone(run.answer.final_answer or "", {e.requirement_id: e for e in verified}),
                         "answer": run.answer.final_answer})
        rs = [r for r in rows if r["document"] == fname]
        summary[fname] = {"questions": len(rs), "answered": sum(r["result"] is None for r in rs),
                          "verified": sum(r["verified"] for r in rs),
                          "interleaved": sum(len(r["interleaved"]) for r in rs),
                          "heading_or_contents": sum(len(r["navigation"]) for r in rs),
                          "cut_in_phrase": sum(len(r["cut_in_phrase"]) for r in rs),
                          "starts_after_break": sum(len(r["starts_after_break"]) for r in rs),
                          "lead_alone": sum(r["lead_alone"] for r in rs)}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"bench_reading{a.tag}.json").write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    for fname, s in summary.items():
        print(f"{fname.split('/')[-1][:40]:40s} answered {s['answered']}/{s['questions']}  verified {s['verified']:3d}  "
              f"interleaved {s['interleaved']:3d}  heading/contents {s['heading_or_contents']:3d}  "
              f"cut in a phrase {s['cut_in_phrase']:3d}  after a break {s['starts_after_break']:3d}  "
              f"lead-in alone {s['lead_alone']:3d}")
    totals = {k: sum(s[k] for s in summary.values()) for k in next(iter(summary.values()))}
    print("total", json.dumps(totals))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
