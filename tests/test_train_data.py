"""The support model's training rows (train/build_nli.py): VitaminC split by Wikipedia page, so
the held-out figure never sees a page it trained on, and Wikipedia dump tokenisation written back
as a PDF reads."""

from __future__ import annotations

import json

import pytest

from train.build_nli import LABELS, VITAMINC, detok, page_split


@pytest.mark.parametrize("raw,written", [
    ("Westlife 's total sales were 23 million .", "Westlife's total sales were 23 million."),
    ("The film -LRB- 2005 -RRB- grossed $ 5 million , a record .", "The film (2005) grossed $5 million, a record."),
    ("It is n't 50 % of the vote ; it is 40 % .", "It isn't 50% of the vote; it is 40%."),
])
def test_dump_tokenisation_reads_as_written(raw, written):
    assert detok(raw) == written


def test_a_page_is_wholly_in_one_split_and_the_shares_are_about_right():
    pages = [f"Page {i}" for i in range(4000)]
    splits = [page_split(p) for p in pages]
    assert splits == [page_split(p) for p in pages]  # deterministic
    share = {s: splits.count(s) / len(splits) for s in ("test", "calib", "train")}
    assert 0.08 < share["test"] < 0.12 and 0.03 < share["calib"] < 0.07 and share["train"] > 0.8


def test_vitaminc_labels_map_to_the_models_outputs(corpus):
    assert [LABELS[VITAMINC[k]] for k in ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")] == list(LABELS)
    path = corpus / "nli" / "vitaminc" / "real.jsonl"
    if not path.is_file():
        pytest.skip(f"shared corpus not found at {path}")
    with path.open() as f:
        rows = [json.loads(next(f)) for _ in range(200)]
    by_page: dict[str, set[str]] = {}
    for r in rows:
        by_page.setdefault(r["page"], set()).add(page_split(r["page"]))
    assert all(len(s) == 1 for s in by_page.values())
