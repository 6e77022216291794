"""The review table against CUAD's lawyers (issue 43, "Must show"): one table per contract set,
built and run through the service (create_table → run_table → table_view; rules backend, cells as
jobs on the in-process queue), 8 checklist questions written down before the first run
(bench/data/table_questions.tsv), every cell scored against CUAD's gold clause and answer.

    PYTHONPATH=. nice -n 10 .venv/bin/python -m bench.bench_table_gold --set cuad
    PYTHONPATH=. .venv/bin/python -m bench.render_cuad_train --n 40     # once: /tmp/cuad-heldout
    PYTHONPATH=. nice -n 10 .venv/bin/python -m bench.bench_table_gold --set heldout
    PYTHONPATH=. .venv/bin/python -m bench.bench_table_gold --set cuad --report   # rescore the stored rows

Sets: `cuad` = the 31 PDFs of ../shared/corpus/cuad, gold from master_clauses_subset.csv;
`heldout` = the first 40 contracts of cuad-train's test split rendered to PDF by
bench/render_cuad_train.py (--pdfs, default /tmp/cuad-heldout), gold from labels.jsonl.

Per column:
- filled: cells whose run is stored (status done), reading a short answer or "not found"; a
  failed or unfinished cell is neither.
- gold held: over pairs with a gold clause, the cell's evidence (its citations' quotes: the quote
  the short answer rests on first, then the answer's other cited quotes, at most 5) covers some gold
  clause >= 90 % of its words (bench_clause_whole.clause_coverage: a word counts inside a run of
  3+ gold words one quote holds contiguously). "touched": some citation shares a run of
  min(8, piece) words with a gold piece (bench_cuad's hit rule).
- exact: over pairs with a normalised gold answer, the cell's normalised short answer equals
  CUAD's after the same normalisation (below). Yes/no columns: over gold "Yes", the cell reads yes.
- not found right: over pairs with no gold clause (and, for value columns, no gold answer), the
  cell reads "not found" (a yes/no column's gold "No" is this case: the table never says "No").
  Beside it for yes/no columns, the worse miss: the cell reads "Yes" where CUAD says No (the other
  misses read a clause, which a reviewer sees is not the one asked for).

Normalisation (`same`, the same on both sides): each side goes through the product's own reader,
workbench.table.short_answer.normalize_text(text, kind) — our side is the cell's `normalized`, which
is that reader applied to the quote — then:
- jurisdiction: the first state or country named ("British Columbia, Canada" → "British Columbia",
  "the laws of the State of New York" → "New York"), case-folded; a text naming none stays itself,
  case-folded ("the state in which the franchised restaurant is located" matches nothing we write).
- date: ISO yyyy-mm-dd (two-digit years as the reader reads them). CUAD writes an unknown part as
  "[]" ("[]/[]/2009", "[]/[]/19[]"): only the parts it gives are compared.
- duration: a count and a unit, compared as months for month/quarter/year ("12 months" = "1 year")
  and as days for day/week; "successive" and "2 successive" dropped by the reader. CUAD's
  "perpetual" is matched by nothing the reader writes (counted as a miss); "3 months" is not "90
  days" (a month is not a fixed number of days). Stray brackets in CUAD's answers ("60) days")
  are dropped when the text does not read otherwise.
- CUAD's answers separated by ";" ("60 days; 180 days"): equal to any of them.

Rows (one per cell, with the gold) go to bench/out/table_gold_<set><tag>.jsonl, the summary to
stdout and bench/out/table_gold_<set><tag>.json. Nothing here feeds back into the engine."""

from __future__ import annotations

import argparse
import ast
import csv
import json
import re
import sys
import time
from pathlib import Path

from bench.bench_clause_whole import HELDOUT_PDFS, WHOLE, clause_coverage, overlaps
from bench.common import CORPUS

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"
QUESTIONS_FILE = ROOT / "bench" / "data" / "table_questions.tsv"
NOT_FOUND = "not found"
VALUE_KINDS = ("jurisdiction", "date", "duration")
_CUAD_DATE = re.compile(r"^\s*(\[\]|\d{1,2})\s*/\s*(\[\]|\d{1,2})\s*/\s*(\[\]|\d{4}|\d{2}|\d\d\[\])\s*$")
_DURATION = re.compile(r"^([\d,.]+) (business day|calendar day|working day|day|week|month|quarter|year)s?$")
_BRACKETS = re.compile(r"[()\[\]]")  # CUAD's stray brackets ("60) days", "(6) months")
_TO_MONTHS = {"month": 1, "quarter": 3, "year": 12}
_TO_DAYS = {"day": 1, "calendar day": 1, "week": 7}


def load_questions(path: Path = QUESTIONS_FILE) -> list[dict[str, str]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            column, question, category, kind = (x.strip() for x in line.split("\t"))
            out.append({"column": column, "question": question, "category": category, "kind": kind})
    return out


def _year(y: str) -> str | None:
    """A year, or the digits CUAD gives of it ("19[]" → "19"; "[]" → None); two digits as the
    reader reads them (below 50: 20xx)."""
    if "[" in y:
        return y.split("[")[0] or None
    return y if len(y) == 4 else ("20" if int(y) < 50 else "19") + y


def canonical(kind: str, text: str | None) -> tuple | str | None:
    """One side's value in the form compared (module docstring): a string, a tuple, or None when
    the reader finds no value of `kind` in `text`."""
    from workbench.table.short_answer import normalize_text

    if text is None or not text.strip():
        return None
    t = " ".join(text.split())
    if t.casefold() == NOT_FOUND:
        return NOT_FOUND
    if kind == "yes_no":
        return normalize_text(t, "yes_no")
    if kind == "date":
        m = _CUAD_DATE.match(t)
        if m and "[" in t:  # CUAD's partial date: (year, month, day), None where CUAD gives none
            mo, d, y = m.groups()
            return (_year(y), None if "[" in mo else int(mo), None if "[" in d else int(d))
        iso = normalize_text(t, "date")
        if iso is None:
            return None
        parts = [int(x) for x in iso.split("-")]
        return (str(parts[0]), parts[1] if len(parts) > 1 else None, parts[2] if len(parts) > 2 else None)
    if kind == "duration":
        if t.casefold().strip(". ") in ("perpetual", "perpetually"):
            return "perpetual"
        norm = normalize_text(t, "duration") or normalize_text(_BRACKETS.sub(" ", t), "duration")
        m = _DURATION.match(norm or "")
        if m is None:
            return None
        n, unit = float(m.group(1).replace(",", "")), m.group(2)
        if unit in _TO_MONTHS:
            return (round(n * _TO_MONTHS[unit], 3), "month")
        if unit in _TO_DAYS:
            return (round(n * _TO_DAYS[unit], 3), "day")
        return (n, unit)
    if kind == "jurisdiction":
        norm = normalize_text(t, "jurisdiction")
        return (norm or t).casefold()
    raise ValueError(f"no normalisation for {kind!r}")


def same(kind: str, ours: str | None, gold: str | None) -> bool:
    """Does our normalised short answer equal CUAD's answer (any of its ";" parts) after the same
    normalisation? A CUAD date's "[]" parts match anything."""
    a = canonical(kind, ours)
    if a is None or not gold:
        return False
    for part in gold.split(";"):
        b = canonical(kind, part)
        if b is None:
            continue
        if kind == "date" and isinstance(a, tuple) and isinstance(b, tuple):
            year_ok = b[0] is None or (a[0] or "").startswith(b[0])
            if year_ok and all(y is None or x == y for x, y in zip(a[1:], b[1:], strict=True)):
                return True
        elif a == b:
            return True
    return False


def _answer_column(fields: list[str], category: str) -> str:
    """master_clauses_subset.csv's answer column of a category ("Notice Period To Terminate
    Renewal- Answer" has a space)."""
    return next(f for f in fields if f.replace(" ", "") == (category + "-Answer").replace(" ", ""))


Gold = dict[str, dict[str, object]]  # category → {"clauses": [...], "answer": str}


def cuad_set(cats: list[str]) -> list[tuple[str, Path, Gold]]:
    root = CORPUS / "cuad"
    gold: dict[str, Gold] = {}
    with open(root / "master_clauses_subset.csv", newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        fields = list(reader.fieldnames or [])
        for row in reader:
            gold[Path(row["Filename"]).stem] = {
                c: {"clauses": [str(x) for x in ast.literal_eval(row[c] or "[]")],
                    "answer": (row[_answer_column(fields, c)] or "").strip()} for c in cats}
    pdfs = sorted(p for p in (root / "pdf").iterdir() if p.suffix.lower() == ".pdf")
    return [(p.stem, p, gold[p.stem]) for p in pdfs if p.stem in gold]


def heldout_set(cats: list[str], pdf_dir: Path) -> list[tuple[str, Path, Gold]]:
    manifest = pdf_dir / "manifest.tsv"
    if not manifest.is_file():
        raise SystemExit(f"{manifest} not found: run python -m bench.render_cuad_train --n 40 --out {pdf_dir}")
    gold: dict[str, Gold] = {}
    for line in (CORPUS / "cuad-train" / "labels.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["category"] in cats:
            gold.setdefault(r["txt"], {})[r["category"]] = {"clauses": [str(x) for x in r["clauses"]],
                                                           "answer": str(r["answer"] or "").strip()}
    out = []
    for line in manifest.read_text().splitlines()[1:]:
        pdf, txt, _pages = line.split("\t")
        out.append((Path(pdf).stem, pdf_dir / pdf, gold[txt]))
    return out


def score(row: dict) -> dict:
    """One cell's figures from its citations, short answer and gold (module docstring)."""
    quotes = [c["quote"] for c in row["citations"]]
    clauses, answer, kind = row["gold_clauses"], row["gold_answer"], row["kind"]
    filled = row["status"] == "done" and row["short_answer"] is not None
    nf = filled and row["short_answer"] == NOT_FOUND
    if kind == "yes_no":
        expected = "yes" if answer.casefold() == "yes" else None
        absent = not clauses
        exact = filled and row["normalized"] == "yes" if expected else None
    else:
        expected = answer or None
        absent = not clauses and not answer
        exact = (filled and same(kind, row["normalized"], answer)) if expected else None
    cov = max((clause_coverage(c, quotes) for c in clauses), default=0.0) if clauses else None
    return dict(row, filled=filled, not_found=nf, coverage=None if cov is None else round(cov, 3),
                held=None if cov is None else cov >= WHOLE,
                touched=None if not clauses else any(overlaps(q, clauses) for q in quotes),
                expected=expected, exact=exact, absent=absent, nf_right=(filled and nf) if absent else None,
                false_yes=(row["normalized"] == "yes") if kind == "yes_no" and absent else None)


def summarize(rows: list[dict], columns: list[str]) -> dict:
    def figures(rs: list[dict]) -> dict:
        def ratio(key: str) -> list[int]:
            vals = [r[key] for r in rs if r[key] is not None]
            return [sum(vals), len(vals)]

        return {"cells": len(rs), "filled": sum(r["filled"] for r in rs), "not_found": sum(r["not_found"] for r in rs),
                "held": ratio("held"), "touched": ratio("touched"), "exact": ratio("exact"),
                "nf_right": ratio("nf_right"), "false_yes": ratio("false_yes")}

    out = {c: figures([r for r in rows if r["column"] == c]) for c in columns}
    out["ALL"] = figures(rows)
    return out


def _frac(p: list[int]) -> str:
    return f"{p[0]}/{p[1]} ({p[0] / p[1]:.0%})" if p[1] else "–"


def markdown(summary: dict) -> str:
    lines = ["| column | filled / cells | not found | gold held ≥ 90 % | gold touched | short answer exact | "
             "not found where no gold | yes/no: \"Yes\" where CUAD says No |", "|---|---|---|---|---|---|---|---|"]
    for c, f in summary.items():
        name = f"**{c}**" if c == "ALL" else c
        lines.append(f"| {name} | {f['filled']}/{f['cells']} | {f['not_found']} | {_frac(f['held'])} | "
                     f"{_frac(f['touched'])} | {_frac(f['exact'])} | {_frac(f['nf_right'])} | {_frac(f['false_yes'])} |")
    return "\n".join(lines)


def misses(rows: list[dict], n: int = 3) -> str:
    """A few wrong cells per column: what the cell read beside CUAD's answer."""
    lines = []
    for c in dict.fromkeys(r["column"] for r in rows):
        bad = [r for r in rows if r["column"] == c and (r["exact"] is False or r["nf_right"] is False)]
        for r in bad[:n]:
            lines.append(f"{c[:28]:28} {r['contract'][:40]:40} cell={r['short_answer']!r:.60} "
                         f"norm={r['normalized']!r} gold={r['gold_answer']!r:.40} clauses={len(r['gold_clauses'])}")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", required=True, choices=("cuad", "heldout"))
    ap.add_argument("--limit", type=int, default=0, help="first N contracts only")
    ap.add_argument("--pdfs", type=Path, default=HELDOUT_PDFS, help="rendered held-out PDFs (with manifest.tsv)")
    ap.add_argument("--tag", default="")
    ap.add_argument("--report", action="store_true", help="only rescore the rows file of an earlier run")
    a = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    rows_file = OUT / f"table_gold_{a.set}{a.tag}.jsonl"
    questions = load_questions()
    columns = [q["column"] for q in questions]
    if a.report:
        rows = [score(json.loads(line)) for line in rows_file.read_text().splitlines()]
        old = OUT / f"table_gold_{a.set}{a.tag}.json"  # the measured run's timing, kept
        timing = {k: v for k, v in json.loads(old.read_text()).items() if k not in ("set", "questions", "per_column")} \
            if old.is_file() else {}
        return _report(rows, columns, a, rows_file, timing)

    import tempfile

    import workbench
    from workbench.config import load_settings
    from workbench.models import TableColumn
    from workbench.service import Workbench
    from workbench.table.checklist import question_kind

    for q in questions:
        if question_kind(q["question"], q["column"]) != q["kind"]:
            raise SystemExit(f"{q['column']}: the question reads as {question_kind(q['question'])}, not {q['kind']}")
    contracts = cuad_set([q["category"] for q in questions]) if a.set == "cuad" else \
        heldout_set([q["category"] for q in questions], a.pdfs)
    if a.limit:
        contracts = contracts[:a.limit]
    print(f"workbench from {Path(workbench.__file__).resolve().parent}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        wb = Workbench(load_settings(data_dir=Path(tmp) / "data", index_on_ingest=False))
        t0 = time.perf_counter()
        ids = {name: wb.ingest(pdf.read_bytes(), filename=pdf.name, source_type="contract").id
               for name, pdf, _ in contracts}
        t_ingest = time.perf_counter() - t0
        cols = [TableColumn(key=q["column"], question=q["question"], kind=q["kind"]) for q in questions]
        table = wb.create_table(list(ids.values()), cols, name=f"CUAD {a.set}")
        t1 = time.perf_counter()
        records = wb.run_table(table.table_id)
        wb.wait([r.job_id for r in records])
        t_cells = time.perf_counter() - t1
        view = wb.table_view(table.table_id)
    by_cell = {(c.row_key, c.column_key): c for c in view.cells}
    rows = []
    with rows_file.open("w", encoding="utf-8") as log:
        for name, pdf, gold in contracts:
            for q in questions:
                c = by_cell[(pdf.name, q["column"])]
                g = gold.get(q["category"], {"clauses": [], "answer": ""})
                row = {"contract": name, "column": q["column"], "category": q["category"], "kind": q["kind"],
                       "status": c.status, "short_answer": c.short_answer, "normalized": c.normalized,
                       "result": c.result, "confidence": c.grounding_confidence, "error": c.error,
                       "citations": [{"id": x.requirement_id, "page": x.page, "quote": x.quote} for x in c.citations],
                       "gold_clauses": g["clauses"], "gold_answer": g["answer"]}
                log.write(json.dumps(row) + "\n")
                rows.append(score(row))
    timing = {"contracts": len(contracts), "cells": len(view.cells), "counts": view.counts,
              "ingest_s": round(t_ingest, 1), "cells_s": round(t_cells, 1),
              "cells_per_min": round(len(records) / t_cells * 60, 1) if t_cells else None}
    return _report(rows, columns, a, rows_file, timing)


def _report(rows: list[dict], columns: list[str], a: argparse.Namespace, rows_file: Path, timing: dict) -> int:
    summary = {"set": a.set, "questions": str(QUESTIONS_FILE.relative_to(ROOT)), **timing,
               "per_column": summarize(rows, columns)}
    (OUT / f"table_gold_{a.set}{a.tag}.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps({k: v for k, v in summary.items() if k != "per_column"}))
    print(markdown(summary["per_column"]))
    print(misses(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
