"""Render held-out CUAD contracts to PDF: the first N contracts (sorted by name) of cuad-train's
**test** split (train.build_pairs.split_of(txt_name) == "test", labelled in labels.jsonl), or of its
**train** split with --split train, none skipped by content, typeset as a contract is: US letter
pages, a serif font (Times, 10.5 pt), 1-inch margins, one left-aligned paragraph per non-empty line
of the dataset's text, and a footer with the page number ("Page 3 of 12"). Deterministic: the same
text gives byte-identical PDFs (no dates, fixed metadata).

    PYTHONPATH=. .venv/bin/python -m bench.render_cuad_train [--n 42] [--out /tmp/cuad-heldout] [--split test|train]
    PYTHONPATH=. .venv/bin/python -m bench.render_cuad_train --split train --n 30 --out /tmp/cuad-train-typeset

--split train typesets train-split contracts instead (the ninth section-label set's source: contracts
whose section structure nobody had looked at, the test split's typeset ones being used up by the
earlier sets; the judgment cross-encoder trains on this split's sentences and gold clauses
(train/build_pairs.py), so it is no held-out source for clause benches, only for section
structure, which no rule was built on). The default, test, gives the same PDFs and manifest as
before the option existed.

Lines are broken here, word by word, not by MuPDF's Story: Story silently dropped the text after a
page break inside long paragraphs (9 of the first 40 contracts lost over 50 words, one 68 %).
Every rendered PDF is read back and its words compared with the source's; a contract whose words
do not all come back stops the run.

The PDFs go outside the repository (default /tmp/cuad-heldout; bench/out/ is git-ignored too),
named <txt stem>.pdf, with manifest.tsv (pdf name, txt name, pages). bench/bench_clause_whole.py
reads them with labels.jsonl's gold."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from bench.common import require_corpus

DEFAULT_OUT = Path("/tmp/cuad-heldout")
FONT, SIZE, LEADING, PARA_GAP = "tiro", 10.5, 13.125, 6.0
LEFT, TOP, RIGHT, BOTTOM = 72.0, 72.0, 540.0, 708.0
_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


SPLITS = ("test", "train")


def split_names(corpus: Path, split: str = "test") -> list[str]:
    """labels.jsonl's contract names (``txt/<name>.txt``) of one split ("test" or "train"), sorted."""
    from train.build_pairs import split_of

    if split not in SPLITS:
        raise ValueError(f"split {split!r}: one of {SPLITS}")
    rows = (json.loads(line) for line in (corpus / "cuad-train" / "labels.jsonl").read_text().splitlines())
    return sorted({r["txt"] for r in rows if split_of(r["txt"]) == split})


def paragraphs(text: str) -> list[list[str]]:
    """One paragraph per non-empty line, as its words (control characters read as spaces)."""
    lines = (_CTRL.sub(" ", line) for line in text.replace("\r\n", "\n").split("\n"))
    return [words for words in (line.split() for line in lines) if words]


def break_lines(words: list[str], width: float, measure) -> list[str]:
    """Greedy left-aligned lines no wider than `width`; a word wider than a line is cut by
    characters, so nothing is ever dropped."""
    out: list[str] = []
    line = ""
    for word in words:
        while measure(word) > width:  # e.g. a long URL
            cut = max([i for i in range(1, len(word)) if measure(word[:i]) <= width] or [1])
            if line:
                out.append(line)
                line = ""
            out.append(word[:cut])
            word = word[cut:]
        trial = f"{line} {word}" if line else word
        if line and measure(trial) > width:
            out.append(line)
            line = word
        else:
            line = trial
    if line:
        out.append(line)
    return out


def render(text: str, path: Path, title: str) -> int:
    """Typeset `text` into `path`; returns the page count."""
    import pymupdf

    font = pymupdf.Font(FONT)

    def measure(s: str) -> float:
        return font.text_length(s, fontsize=SIZE)

    pages: list[list[tuple[float, str]]] = [[]]
    y = TOP
    for words in paragraphs(text):
        for line in break_lines(words, RIGHT - LEFT, measure):
            if y + LEADING > BOTTOM:
                pages.append([])
                y = TOP
            pages[-1].append((y + SIZE, line))  # baseline
            y += LEADING
        y += PARA_GAP
    doc = pymupdf.open()
    n = len(pages)
    for i, lines in enumerate(pages, 1):
        page = doc.new_page(width=612, height=792)
        writer = pymupdf.TextWriter(page.rect)
        for baseline, line in lines:
            writer.append((LEFT, baseline), line, font=font, fontsize=SIZE)
        label = f"Page {i} of {n}"  # footer: page number, centred, below the text block
        writer.append(((page.rect.width - measure(label) * 9 / SIZE) / 2, 745), label, font=font, fontsize=9)
        writer.write_text(page)
    doc.set_metadata({"title": title, "producer": "bench/render_cuad_train.py", "creator": "", "author": "",
                      "subject": "", "keywords": "", "creationDate": "", "modDate": ""})
    doc.save(str(path), garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return n


def lost_words(text: str, path: Path) -> int:
    """How many of the source's words (in order) the PDF's text does not give back."""
    import difflib

    import pymupdf

    with pymupdf.open(str(path)) as doc:
        got = "".join(page.get_text() for page in doc)
    got_words = [w for w in got.split() if not re.fullmatch(r"Page|\d+|of", w)]
    src = [w for words in paragraphs(text) for w in words if not re.fullmatch(r"Page|\d+|of", w)]
    src_joined, got_joined = "".join(src), "".join(got_words)  # a word cut by characters still counts
    if src_joined == got_joined:
        return 0
    sm = difflib.SequenceMatcher(None, src, got_words, autojunk=False)
    return len(src) - sum(b.size for b in sm.get_matching_blocks())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=42, help="how many of the split's contracts, first by sorted name")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--split", choices=SPLITS, default="test", help="cuad-train's split to typeset (default test)")
    a = ap.parse_args()
    corpus = require_corpus()
    a.out.mkdir(parents=True, exist_ok=True)
    lines = []
    for txt in split_names(corpus, a.split)[:a.n]:
        stem = Path(txt).stem
        text = (corpus / "cuad-train" / txt).read_text(errors="replace")
        pdf = a.out / f"{stem}.pdf"
        pages = render(text, pdf, stem)
        if lost := lost_words(text, pdf):
            raise SystemExit(f"{pdf}: {lost} source words are not on the pages")
        lines.append(f"{stem}.pdf\t{txt}\t{pages}")
        print(f"{pages:4d} pages  {stem[:80]}", flush=True)
    (a.out / "manifest.tsv").write_text("pdf\ttxt\tpages\n" + "\n".join(lines) + "\n")
    print(f"{len(lines)} contracts, {sum(int(x.rsplit(chr(9), 1)[1]) for x in lines)} pages -> {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
