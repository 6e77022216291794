"""select_section_quotes --exclude: the contracts named in several tables (bench/select_section_quotes.py)."""

from __future__ import annotations

from bench.select_section_quotes import excluded_contracts


def test_exclude_reads_the_contract_column_of_every_table(tmp_path):
    a = tmp_path / "a.tsv"
    b = tmp_path / "b.tsv"
    a.write_text('contract\tpage\tquote_start\nX.pdf\t1\t"Quoted" opening\nY.pdf\t2\tplain\n', encoding="utf-8")
    b.write_text("contract\tpage\tquote_start\nY.pdf\t3\tagain\nZ.pdf\t1\tother\n", encoding="utf-8")
    assert excluded_contracts([]) == set()
    assert excluded_contracts([a]) == {"X.pdf", "Y.pdf"}
    assert excluded_contracts([a, b]) == {"X.pdf", "Y.pdf", "Z.pdf"}


def test_the_fifth_set_draws_none_of_the_third_or_fourth_sets_contracts():
    from pathlib import Path

    data = Path(__file__).resolve().parents[1] / "bench" / "data"
    earlier = excluded_contracts([data / "section_quotes_rendered.tsv", data / "section_quotes_rendered2.tsv"])
    fifth = excluded_contracts([data / "section_quotes_rendered3.tsv"])
    assert len(earlier) == 20 and len(fifth) == 10 and not earlier & fifth
