"""`ask` on the 31 CUAD contracts with PDFs (held out: nothing is tuned on them): for each
(contract, category question), does the verified evidence contain the lawyers' gold clause, and
is a category the contract lacks answered NO_AUTHORITATIVE_EVIDENCE?

    .venv/bin/python -m bench.bench_cuad [--limit N] [--workspace DIR] [--prepare] [--wording plain|everyday]
                                         [--pdf-dir DIR]

`--pdf-dir` asks other copies of the same contracts (same file names), e.g. the scanned copies
bench_ocr_cuad makes (bench/out/cuad-scanned-0.4; with its --workspace, their OCR is reused).

`--wording everyday` asks every question of bench/data/question_kinds.tsv (or `--questions FILE`) labelled with one of
these categories alone (2-5 a category, written as a reader would, never in the topic bank);
`--question-words off` reads questions by bank similarity alone, without topics.OTHER_QUESTIONS
(the topic mapper before it read their words), for a before/after on the same checkout.

(run from the repository root, or with PYTHONPATH naming the checkout to measure)

The questions below were written in plain language before any result was seen. A pair counts
as found when a verified quote shares a run of at least 8 consecutive words (or the whole gold
piece, when shorter) with a gold clause piece (`<omitted>` splits pieces). Results go to stdout
and bench/out/bench_cuad.json (per pair: verified quotes, result, hit)."""

from __future__ import annotations

import argparse
import ast
import csv
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CUAD = ROOT.parent / "shared" / "corpus" / "cuad"
OUT = ROOT / "bench" / "out"

QUESTIONS: dict[str, str] = {
    "Governing Law": "Which state's or country's law governs this agreement?",
    "Termination For Convenience": "Can a party terminate this agreement for convenience, without cause, by giving notice?",
    "Non-Compete": "Is a party restricted from competing with the other party or from operating a competing business?",
    "Exclusivity": "Does the agreement grant exclusive rights or require a party to deal exclusively with the other?",
    "Expiration Date": "When does the initial term of this agreement expire?",
    "Renewal Term": "Does the agreement renew automatically, and for how long is each renewal term?",
    "Anti-Assignment": "Can a party assign this agreement without the other party's consent?",
    "Cap On Liability": "Is either party's liability capped or limited to a maximum amount?",
    "Audit Rights": "Does a party have the right to audit the other party's books or records?",
    "Insurance": "What insurance must a party maintain?",
}
# The same categories asked a second time in plainer words that share less of the contracts'
# vocabulary ("end" for terminate, "contract" for Agreement), written 2026-11-23 before any result
# for them was seen: how much of the judgment holds when questions are worded like a reader's.
PLAIN_QUESTIONS: dict[str, str] = {
    "Governing Law": "Under which jurisdiction's laws is this contract interpreted?",
    "Termination For Convenience": "Can either side end the contract whenever it wants by giving notice?",
    "Non-Compete": "Does this contract stop anyone from running a competing business?",
    "Exclusivity": "Is this an exclusive arrangement?",
    "Expiration Date": "How long does this agreement last?",
    "Renewal Term": "Does the contract automatically extend when its term ends?",
    "Anti-Assignment": "Is consent needed before a party transfers its rights under this contract to someone else?",
    "Cap On Liability": "Is there a limit on how much a party can be liable for?",
    "Audit Rights": "Can one party inspect the other's accounts?",
    "Insurance": "Does a party have to carry insurance coverage?",
}
MIN_RUN = 8
_W = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    return _W.findall(text.lower().replace("\u2019", "'"))


def longest_common_run(a: list[str], b: list[str]) -> int:
    best = 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        for j, y in enumerate(b, 1):
            if x == y:
                cur[j] = prev[j - 1] + 1
                best = max(best, cur[j])
        prev = cur
    return best


def hit(quotes: list[str], gold: list[str]) -> bool:
    pieces = [words(p) for g in gold for p in g.split("<omitted>") if words(p)]
    for q in quotes:
        qw = words(q)
        for p in pieces:
            if longest_common_run(qw, p) >= min(MIN_RUN, len(p), len(qw)):
                return True
    return False


def load_gold() -> dict[str, dict[str, list[str]]]:
    out: dict[str, dict[str, list[str]]] = {}
    with open(CUAD / "master_clauses_subset.csv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            name = Path(row["Filename"]).stem
            out[name] = {c: [str(x) for x in ast.literal_eval(row[c] or "[]")] for c in QUESTIONS}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=0, help="first N contracts only")
    ap.add_argument("--pdf-dir", type=Path, default=CUAD / "pdf", help="the contracts' PDFs (gold rows by file name)")
    ap.add_argument("--workspace", default=str(OUT / "cuad_ws"), help="kept between runs: ingest once")
    ap.add_argument("--tag", default="", help="suffix of the output file")
    ap.add_argument("--prepare", action="store_true", help="only ingest and index the contracts (chunk and "
                    "segment indexes, kept in the workspace), no questions")
    ap.add_argument("--judge", default="shipped", help="shipped (engine.get_judge), lexical, model or blend")
    ap.add_argument("--wording", default="bench", choices=("bench", "plain", "everyday"),
                    help="plain: the same categories asked in plainer words (PLAIN_QUESTIONS); everyday: "
                    "bench/data/question_kinds.tsv's questions for them")
    ap.add_argument("--question-words", default="on", choices=("on", "off"))
    ap.add_argument("--questions", type=Path, default=None, help="with --wording everyday: another question "
                    "file (bench/data/question_kinds_2.tsv)")
    a = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    if a.wording == "everyday":
        from bench.bench_question_kinds import DATA, load

        questions = [(kinds[0], q) for q, kinds in load("all", a.questions or DATA)
                     if len(kinds) == 1 and kinds[0] in QUESTIONS]
    else:
        questions = list((QUESTIONS if a.wording == "bench" else PLAIN_QUESTIONS).items())
    if a.question_words == "off":
        from bench.common import question_words_off

        question_words_off()
    from bench.common import use_judge

    use_judge(a.judge)
    import workbench
    from workbench.config import Settings
    from workbench.models import NO_AUTHORITATIVE_EVIDENCE
    from workbench.service import Workbench

    print(f"workbench from {Path(workbench.__file__).resolve().parent}", file=sys.stderr)
    gold = load_gold()
    pdfs = sorted(p for p in a.pdf_dir.iterdir() if p.suffix.lower() == ".pdf")
    if a.limit:
        pdfs = pdfs[:a.limit]
    wb = Workbench(Settings(data_dir=Path(a.workspace)))
    rows = []
    t_ask = 0.0
    n_ask = 0
    for pdf in pdfs:
        doc = wb.ingest(str(pdf), source_type="contract")
        if a.prepare:
            t = time.perf_counter()
            parsed = wb.parsed(doc.id)
            wb.retriever.retrieve(QUESTIONS["Governing Law"], [parsed], 5)
            wb.retriever.search_segments(QUESTIONS["Governing Law"], parsed, 5)
            print(f"indexed {pdf.name[:60]} in {time.perf_counter() - t:.1f} s", flush=True)
            continue
        g = gold.get(pdf.stem)
        if g is None:
            print(f"no gold row for {pdf.name}", file=sys.stderr)
            continue
        for k, (cat, q) in enumerate(questions):
            t = time.perf_counter()
            run, = wb.ask([q], [doc.id])
            dt = time.perf_counter() - t
            if k:  # the first question on a contract pays for its indexes: not a warm ask
                t_ask += dt
                n_ask += 1
            ok = {v.requirement_id for v in run.verifications if v.verified}
            # the best relevance of any proposed quote: what decides NO_AUTHORITATIVE_EVIDENCE
            best = max((v.score for v in run.verifications if v.rejection_reason in (None, "does_not_address_question")),
                       default=0.0)
            quotes = [e.exact_quote for e in run.evidence if e.requirement_id in ok]
            nae = run.answer.result == NO_AUTHORITATIVE_EVIDENCE
            rows.append({"contract": pdf.stem, "category": cat, "question": q, "has_gold": bool(g[cat]), "nae": nae,
                         "hit": hit(quotes, g[cat]) if g[cat] else None, "verified": quotes,
                         "confidence": run.answer.grounding_confidence, "best_relevance": round(best, 4),
                         "answers_question": getattr(run.answer, "answers_question", None), "ask_s": round(dt, 3)})
    if a.prepare:
        return 0
    pos = [r for r in rows if r["has_gold"]]
    neg = [r for r in rows if not r["has_gold"]]
    per_cat = {c: {"found": sum(r["hit"] for r in pos if r["category"] == c),
                   "with_gold": sum(r["category"] == c for r in pos),
                   "nae_when_absent": sum(r["nae"] for r in neg if r["category"] == c),
                   "absent": sum(r["category"] == c for r in neg)} for c in dict(questions)}
    summary = {"pdf_dir": str(a.pdf_dir), "wording": a.wording, "question_words": a.question_words, "questions": len(questions), "contracts": len(pdfs), "pairs": len(rows),
               "found_rate": round(sum(r["hit"] for r in pos) / max(1, len(pos)), 3), "with_gold": len(pos),
               "nae_rate_when_absent": round(sum(r["nae"] for r in neg) / max(1, len(neg)), 3), "absent": len(neg),
               "green_when_absent": sum(r["confidence"] == "high" for r in neg),
               "mean_warm_ask_s": round(t_ask / max(1, n_ask), 3), "per_category": per_cat}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"bench_cuad{a.tag}.json").write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
