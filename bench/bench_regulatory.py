"""`ask` on the regulatory sample: 10 questions on NIST SP 800-171 r2 and 10 on the WHO 2022
hepatitis C guideline, each with the evidence a reader would expect (phrases from the
requirement or recommendation that answers it, written from the documents before any run).

    .venv/bin/python -m bench.bench_regulatory [--workspace DIR] [--tag NAME]

A question counts as answered when one of its verified quotes contains one of the expected
phrases (case, spacing, hyphenation and punctuation ignored); "cited" when such a quote is also
cited in the composed answer. Also reported: how many answers were NO_AUTHORITATIVE_EVIDENCE and
the confidence levels. Run it against an older checkout with PYTHONPATH pointing at that
checkout (see BENCHMARKS.md): it only uses Workbench.ingest and Workbench.ask.
Results go to stdout and bench/out/bench_regulatory<tag>.json."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "pdfs" / "regulatory"
OUT = ROOT / "bench" / "out"

QUESTIONS: dict[str, list[tuple[str, list[str]]]] = {
    "NIST.SP.800-171r2.pdf": [
        ("Who may be given access to the system?",
         ["Limit system access to authorized users, processes acting on behalf of authorized users"]),
        ("Must remote access sessions be monitored?", ["Monitor and control remote access sessions"]),
        ("When is multifactor authentication required?",
         ["Use multifactor authentication for local and network access to privileged accounts"]),
        ("How must passwords be stored and transmitted?", ["Store and transmit only cryptographically-protected passwords"]),
        ("What must be done with system media containing CUI before disposal or reuse?",
         ["Sanitize or destroy system media containing CUI before disposal or release for reuse"]),
        ("How must security incidents be reported?",
         ["Track, document, and report incidents to designated officials"]),
        ("Must users be made aware of security risks?",
         ["Ensure that managers, systems administrators, and users of organizational systems are made aware of the security risks"]),
        ("How must visitors to the facility be handled?", ["Escort visitors and monitor visitor activity"]),
        ("Must CUI be encrypted on mobile devices?", ["Encrypt CUI on mobile devices and mobile computing platforms"]),
        ("How often must systems be scanned for vulnerabilities?",
         ["Scan for vulnerabilities in organizational systems and applications periodically"]),
    ],
    "WHO-HCV-guidelines-2022.pdf": [
        ("Where should HCV testing and treatment be delivered?",
         ["We recommend delivery of HCV testing and treatment at peripheral health or community-based facilities"]),
        ("Should HCV testing and treatment be integrated with other care services?",
         ["We recommend integration of HCV testing and treatment with existing care services"]),
        ("Who can deliver HCV testing, care and treatment?",
         ["by trained non-specialist doctors and nurses"]),
        ("What testing is recommended after a positive HCV antibody test?",
         ["reflex HCV RNA testing in those with a positive HCV antibody"]),
        ("How long should treatment last for treatment-experienced people or those with compensated cirrhosis?",
         ["Treatment for 24 weeks is recommended", "treatment for 24 weeks is recommended",
          "Treatment for 24 weeks in those who are treatment-experienced"]),
        ("Who should be treated for chronic hepatitis C?",
         ["We recommend treatment using pangenotypic DAA regimens for all adults, adolescents and children"]),
        ("Should interferon-based regimens be used in adolescents or children?",
         ["interferon-based regimens should no longer be used"]),
        ("Can the HCV core antigen assay be used as a test of cure?",
         ["the HCV cAg assay cannot be recommended as a reliable SVR test of cure"]),
        ("Which interventions promote uptake of hepatitis testing and linkage to care?",
         ["peer and lay health worker support in community-based settings"]),
        ("Which DAA regimens are recommended for adolescents and children?",
         ["We recommend the use of the following pangenotypic DAA regimens"]),
    ],
}


def norm(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2013", "-").replace("\u2014", "-")
    text = re.sub(r"(\w)-\s+(\w)", r"\1\2", text)  # hyphenation at a line break
    return " ".join(re.sub(r"[^\w]+", " ", text.lower()).split())


def contains(quote: str, phrases: list[str]) -> bool:
    q = norm(quote)
    return any(norm(p) in q for p in phrases)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workspace", default=str(OUT / "regulatory_ws"), help="kept between runs: ingest once")
    ap.add_argument("--tag", default="", help="suffix of the output file")
    ap.add_argument("--judge", default="shipped", help="shipped (engine.get_judge), lexical, model or blend")
    a = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from bench.common import use_judge

    use_judge(a.judge)
    import workbench
    from workbench.config import Settings
    from workbench.models import NO_AUTHORITATIVE_EVIDENCE
    from workbench.service import Workbench

    print(f"workbench from {Path(workbench.__file__).resolve().parent}", file=sys.stderr)
    wb = Workbench(Settings(data_dir=Path(a.workspace)))
    rows = []
    for fname, qs in QUESTIONS.items():
        doc = wb.ingest(str(CORPUS / fname))
        wb.ask([qs[0][0]], [doc.id])  # warm: the first question on a document pays for indexing
        for q, phrases in qs:
            t = time.perf_counter()
            [run] = wb.ask([q], [doc.id])
            dt = time.perf_counter() - t
            ok = {v.requirement_id for v in run.verifications if v.verified}
            verified = [e for e in run.evidence if e.requirement_id in ok]
            cited = {r.requirement_id for r in run.answer.requirement_references if r.used_in_answer}
            rows.append({"document": fname, "question": q, "expected": phrases,
                         "answered": any(contains(e.exact_quote, phrases) for e in verified),
                         "cited": any(contains(e.exact_quote, phrases) for e in verified if e.requirement_id in cited),
                         "nae": run.answer.result == NO_AUTHORITATIVE_EVIDENCE,
                         "confidence": run.answer.grounding_confidence, "ask_s": round(dt, 3),
                         "verified": [" ".join(e.exact_quote.split()) for e in verified],
                         "answer": run.answer.final_answer})
    summary: dict[str, dict] = {}
    for fname in QUESTIONS:
        rs = [r for r in rows if r["document"] == fname]
        summary[fname] = {"questions": len(rs), "answered": sum(r["answered"] for r in rs),
                          "cited_in_answer": sum(r["cited"] for r in rs), "nae": sum(r["nae"] for r in rs),
                          "confidence": {c: sum(r["confidence"] == c for r in rs)
                                         for c in ("high", "medium", "low", "insufficient")},
                          "median_warm_ask_s": sorted(r["ask_s"] for r in rs)[len(rs) // 2]}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"bench_regulatory{a.tag}.json").write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    for r in rows:
        print(f"{'OK ' if r['answered'] else '-- '}{r['document'][:8]} {r['question']}  [{r['confidence']}]")
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
