"""Render held-out CUAD contracts to PDF: the first N contracts (sorted by name) of cuad-train's
**test** split (train.build_pairs.split_of(txt_name) == "test", labelled in labels.jsonl), none
skipped by content, typeset as a contract is: US letter pages, a serif font (10.5 pt), 1-inch
margins, one paragraph per non-empty line of the dataset's text, and a footer with the page number
("Page 3 of 12"). Deterministic: the same text gives byte-identical PDFs (no dates, fixed metadata).

    PYTHONPATH=. .venv/bin/python -m bench.render_cuad_train [--n 42] [--out /tmp/cuad-heldout]

The PDFs go outside the repository (default /tmp/cuad-heldout; bench/out/ is git-ignored too),
named <txt stem>.pdf, with manifest.tsv (pdf name, txt name, pages). bench/bench_clause_whole.py
reads them with labels.jsonl's gold."""

from __future__ import annotations

import argparse
import html
import json
import re
from pathlib import Path

from bench.common import require_corpus

DEFAULT_OUT = Path("/tmp/cuad-heldout")
CSS = "body {font-family: serif; font-size: 10.5pt; line-height: 1.25;} p {margin: 0 0 6pt 0; text-align: left;}"
_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def test_split_names(corpus: Path) -> list[str]:
    """labels.jsonl's contract names (``txt/<name>.txt``) of the test split, sorted."""
    from train.build_pairs import split_of

    rows = (json.loads(line) for line in (corpus / "cuad-train" / "labels.jsonl").read_text().splitlines())
    return sorted({r["txt"] for r in rows if split_of(r["txt"]) == "test"})


def render(text: str, path: Path, title: str) -> int:
    """Typeset `text` into `path`; returns the page count."""
    import pymupdf

    paras = [_CTRL.sub(" ", line).strip() for line in text.replace("\r\n", "\n").split("\n")]
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paras if p)
    story = pymupdf.Story(html=body, user_css=CSS)
    tmp = path.with_suffix(".tmp.pdf")
    writer = pymupdf.DocumentWriter(str(tmp))
    more = True
    while more:
        dev = writer.begin_page(pymupdf.paper_rect("letter"))
        more, _ = story.place(pymupdf.Rect(72, 72, 540, 708))
        story.draw(dev)
        writer.end_page()
    writer.close()
    doc = pymupdf.open(str(tmp))
    n = doc.page_count
    for i, page in enumerate(doc, 1):  # footer: page number, centred, below the text block
        label = f"Page {i} of {n}"
        width = pymupdf.get_text_length(label, fontname="tiro", fontsize=9)
        page.insert_text(((page.rect.width - width) / 2, 745), label, fontname="tiro", fontsize=9)
    doc.set_metadata({"title": title, "producer": "bench/render_cuad_train.py", "creator": "", "author": "",
                      "subject": "", "keywords": "", "creationDate": "", "modDate": ""})
    doc.save(str(path), garbage=3, deflate=True, no_new_id=True)
    doc.close()
    tmp.unlink()
    return n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=42, help="how many test-split contracts, first by sorted name")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    a = ap.parse_args()
    corpus = require_corpus()
    a.out.mkdir(parents=True, exist_ok=True)
    lines = []
    for txt in test_split_names(corpus)[:a.n]:
        stem = Path(txt).stem
        pages = render((corpus / "cuad-train" / txt).read_text(errors="replace"), a.out / f"{stem}.pdf", stem)
        lines.append(f"{stem}.pdf\t{txt}\t{pages}")
        print(f"{pages:4d} pages  {stem[:80]}", flush=True)
    (a.out / "manifest.tsv").write_text("pdf\ttxt\tpages\n" + "\n".join(lines) + "\n")
    print(f"{len(lines)} contracts, {sum(int(x.rsplit(chr(9), 1)[1]) for x in lines)} pages -> {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
