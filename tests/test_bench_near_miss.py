"""The near-miss bench's scorer and question file (bench/bench_near_miss.py, issue #39)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from bench.bench_near_miss import CUAD, DATA, coverage, load

GOLD = "the Company shall be entitled to compensation in the amount of $150,000.00"


@pytest.mark.parametrize("quotes, expected", [
    ([GOLD], 1.0),  # the gold whole
    (["15. Payment of Money. " + GOLD + ", to be paid in equal installments"], 1.0),  # inside a longer quote
    (["the Company shall be entitled to compensation"], 7 / 14),  # cut before the amount (14 tokens: … 150 000 00)
    (["the Company shall be entitled to compensation", "in the amount of $150,000.00"], 1.0),  # two quotes
    (["amount compensation 150 company the"], 0.0),  # scattered words: no run of two in order
    ([], 0.0),
])
def test_coverage_counts_gold_tokens_in_runs_of_two_or_more(quotes, expected):
    assert coverage(quotes, GOLD) == pytest.approx(expected)


def test_coverage_of_a_one_token_gold_needs_that_token():
    assert coverage(["three arbitrators"], "three") == 1.0
    assert coverage(["two arbitrators"], "three") == 0.0


HELDOUT = DATA.with_name("near_miss_heldout.tsv")
HELDOUT2 = DATA.with_name("near_miss_heldout2.tsv")
CUAD_TRAIN_TXT = CUAD.with_name("cuad-train") / "txt"


@pytest.mark.parametrize("questions, txt_dir", [
    (DATA, CUAD / "txt"),  # the first set, on cuad/ contracts
    (HELDOUT, CUAD_TRAIN_TXT),  # the held-out set, on cuad-train test-split contracts
    (HELDOUT2, CUAD_TRAIN_TXT),  # the third set, on 10 other of those contracts
], ids=["near_miss", "near_miss_heldout", "near_miss_heldout2"])
def test_question_file_pairs_near_miss_and_answerable_by_shape_and_golds_are_verbatim(questions, txt_dir):
    rows = load(questions)
    assert Counter(r["kind"] for r in rows) == {"near-miss": 40, "answerable": 40}
    per = Counter((r["contract"], r["shape"], r["kind"]) for r in rows)
    for (contract, shape, kind), n in per.items():
        other = "answerable" if kind == "near-miss" else "near-miss"
        assert per[(contract, shape, other)] == n, (contract, shape)
    assert len({r["contract"] for r in rows}) == 10
    if not txt_dir.is_dir():
        pytest.skip("shared corpus not here")
    norm = lambda s: re.sub(r"\s+", " ", s)  # noqa: E731
    for r in rows:
        text = norm((txt_dir / f"{r['contract']}.txt").read_text(encoding="utf-8"))
        if r["kind"] == "answerable":
            assert norm(r["gold"]) in text, r["question"]
        else:
            assert not r["gold"], r["question"]


def test_held_out_set_shares_no_contract_with_the_first_set_or_cuad():
    held, held2 = ({r["contract"] for r in load(f)} for f in (HELDOUT, HELDOUT2))
    assert not held & held2
    held |= held2
    assert not held & {r["contract"] for r in load(DATA)}
    if (CUAD / "pdf").is_dir():
        assert not held & {p.stem for p in (CUAD / "pdf").iterdir()}
