"""Section labels checked by hand: bench/data/section_labels.tsv holds 60 quotes from 10 CUAD
contracts (drawn by bench/select_section_quotes.py before any label was looked at) and the label
a reader of the page gives each: the innermost numbered section with a title that holds it
("7. Accounting Provisions", "3.3 APPLICATIONS"; lettered and roman items such as "(a) Change
Orders" are items, not sections; an untitled numbered paragraph is named by its number, "2."),
else the division it sits in ("SCHEDULE 2", "Exhibit A"), else none ("-": a preamble, a
testimonium, a signature block). A shown label is right when it equals the correct one (case,
spacing, a number's dot and a closing stop aside) or begins with it and goes on with the
division's next heading lines ("SCHEDULE 2 CONTRACTS BIFURCATED …").

    python -m bench.bench_section_labels [--checkout DIR] [--record before|after] [--data FILE] [--pdf-dir DIR]

--checkout measures another checkout's parser (the baseline: a `git worktree` of main);
--record writes the labels shown and right/wrong into the table's before/after columns;
--data measures another table of the same columns: bench/data/section_labels_heldout.tsv holds 60
quotes from 10 other contracts (bench/select_section_quotes.py --heldout) the rules were not
adjusted on; --pdf-dir reads the table's contracts from another directory (default the CUAD PDFs):
bench/data/section_labels_rendered.tsv holds 60 quotes from 10 cuad-train test-split contracts
typeset to PDF by bench/render_cuad_train.py (/tmp/cuad-heldout)."""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CUAD = ROOT.parent / "shared" / "corpus" / "cuad" / "pdf"
DATA = ROOT / "bench" / "data" / "section_labels.tsv"
OUT = ROOT / "bench" / "out"


def norm(label: str | None) -> str:
    t = " ".join(unicodedata.normalize("NFKC", label or "").replace("\u2019", "'").split()).lower()  # ";" may be U+037E
    t = re.sub(r"(\d)\.(?=\s|$)", r"\1", t)  # "3.3. applications" = "3.3 applications"
    t = re.sub(r"^(\d+(?:\.\d+)*)\s+(?=[^\W\d_])", r"\1", t)  # "4.3fixtures" (a lost space) = "4.3 fixtures"
    return t.rstrip(" .:;")


def right(shown: str | None, correct: str) -> bool:
    c = "" if correct.strip() == "-" else norm(correct)
    s = norm(shown)
    return s == c or (bool(c) and not re.match(r"\d", c) and s.startswith(c + " "))


def quote_offset(text: str, page_start: int, page_end: int, opening: str) -> int:
    """Where the quote opening `opening` starts on its page (spacing in the text may differ; a
    ligature "ﬁ" in the table may be "fi" in a re-typeset PDF)."""
    for form in dict.fromkeys((opening, unicodedata.normalize("NFKC", opening))):
        for n in (8, 5, 3):  # fewer: an opening that runs over a page break and its footer
            pat = re.compile(r"\s*".join(re.escape(w) for w in form.split()[:n]))  # "co- funded" may be "co-funded"
            if m := pat.search(text, page_start, page_end) or pat.search(text):
                return m.start()
    raise LookupError(f"quote not found: {opening!r}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkout", type=Path, default=ROOT, help="the checkout whose parser labels the quotes")
    ap.add_argument("--record", choices=("before", "after"), default=None)
    ap.add_argument("--data", type=Path, default=DATA, help="the table of quotes and correct labels")
    ap.add_argument("--pdf-dir", type=Path, default=CUAD, help="the directory holding the table's contracts")
    a = ap.parse_args()
    sys.path.insert(0, str(a.checkout))
    import workbench
    from workbench.pdf.document import open_pdf

    print(f"workbench from {Path(workbench.__file__).resolve().parent}", file=sys.stderr)
    rows = list(csv.DictReader(a.data.open(encoding="utf-8"), delimiter="\t"))
    docs: dict[str, object] = {}
    n_right = 0
    for r in rows:
        doc = docs.get(r["contract"]) or docs.setdefault(r["contract"], open_pdf(str(a.pdf_dir / r["contract"])))
        pg = doc.pages[min(int(r["page"]), len(doc.pages)) - 1]  # the page is a hint
        shown = doc.heading_at(quote_offset(doc.text, pg.start, pg.end, r["quote_start"]))
        ok = right(shown, r["correct_label"])
        n_right += ok
        if a.record:
            r[f"label_{a.record}"] = " ".join((shown or "-").split())
            r[f"right_{a.record}"] = "yes" if ok else "no"
        if not ok:
            print(f"  wrong: {r['contract'][:30]} p{r['page']} {r['quote_start'][:30]!r}: shown {shown!r}, "
                  f"correct {r['correct_label']!r}", file=sys.stderr)
    summary = {"data": a.data.name, "quotes": len(rows), "contracts": len(docs), "right": n_right, "rate": round(n_right / len(rows), 3)}
    if a.record:
        with a.data.open("w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]), delimiter="\t", lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"bench_{a.data.stem}.json").write_text(json.dumps(summary, indent=1))  # bench_section_labels.json
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
