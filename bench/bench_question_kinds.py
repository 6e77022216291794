"""Which kind of clause an everyday question asks about (workbench.judgment.topics.Topics.asked),
on questions a reader might ask that are in no bank: bench/data/question_kinds.tsv, each labelled
with the CUAD kind(s) it asks about or NONE (payment, disputes, breach, off-topic).

    .venv/bin/python -m bench.bench_question_kinds [--split dev|test|all] [--words-off] [--data FILE]

Per question, the "correct mass": the share of the ask on a right kind, or for a NONE question the
share not asked at all (a wrong kind lifts the wrong clauses in relevance by up to 6.5 in log-odds).
Reported: its mean, top-1 kind accuracy, the mean mass on wrong kinds, and the mean ask of the NONE
questions. The word weights (topics.HEAD_WORDS, BANK_WORDS) were chosen on dev; test is held out.
`--words-off` reads the question by its bank similarity alone, without OTHER_QUESTIONS (the
mapper before either)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "question_kinds.tsv"


def load(split: str, data: Path = DATA) -> list[tuple[str, list[str]]]:
    rows = [line.rstrip("\n").split("\t") for line in data.read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    keep = [r for i, r in enumerate(rows) if split == "all" or (i % 2 == 0) == (split == "dev")]
    return [(q, [] if k == "NONE" else k.split("|")) for q, k in keep]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", choices=("dev", "test", "all"), default="test")
    ap.add_argument("--words-off", action="store_true")
    ap.add_argument("--show", action="store_true", help="one line per question")
    ap.add_argument("--data", type=Path, default=DATA, help="another question file of the same format "
                    "(bench/data/question_kinds_2.tsv: all held out, use --split all)")
    a = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from workbench.index.embed import embed_texts
    from workbench.judgment import topics as T

    if a.words_off:
        from bench.common import question_words_off

        question_words_off()
    model = T.load_topics()
    rows = load(a.split, a.data)
    vectors = embed_texts([q for q, _ in rows])
    right, wrong, none_ask, top1 = [], [], [], []
    for (question, kinds), v in zip(rows, vectors, strict=True):
        ask = model.asked(v, question)
        idx = [model.categories.index(k) for k in kinds]
        if idx:
            m = float(ask[idx].sum())
            right.append(m)
            wrong.append(float(ask.sum()) - m)
            top1.append(bool(ask.max() > 0 and int(np.argmax(ask)) in idx))
        else:
            m = 1.0 - float(ask.sum())
            none_ask.append(float(ask.sum()))
        if a.show:
            print(f"{m:.2f}  {question:60s} {model.top_kinds(v, question, 2)}")
    n = len(rows)
    print(f"{a.split}: {n} questions ({len(right)} about a kind, {len(none_ask)} about none); "
          f"words {'off' if a.words_off else f'on (head {T.HEAD_WORDS}, bank {T.BANK_WORDS})'}")
    print(f"  correct mass {(sum(right) + sum(1 - x for x in none_ask)) / n:.3f} | top-1 kind "
          f"{np.mean(top1):.3f} | on a right kind {np.mean(right):.3f}, on wrong kinds {np.mean(wrong):.3f} "
          f"| NONE questions asked {np.mean(none_ask):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
