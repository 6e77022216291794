"""The table-vs-CUAD bench's comparison (bench/bench_table_gold.py): a cell's normalised short
answer equals CUAD's answer when both read the same after the product's normaliser
(short_answer.normalize_text) and the bench's comparison rules — one table of inputs and outputs."""

import pytest

from bench.bench_table_gold import canonical, same


@pytest.mark.parametrize(("kind", "ours", "gold", "expected"), [
    # governing law: the first state or country named, case-folded
    ("jurisdiction", "New York", "New York", True),
    ("jurisdiction", "British Columbia", "British Columbia, Canada", True),
    ("jurisdiction", "Netherlands", "Massachusetts; Netherlands", True),  # any of CUAD's ";" answers
    ("jurisdiction", "China", "People's Republic of China", True),
    ("jurisdiction", "New York", "Delaware", False),
    ("jurisdiction", "Kansas", "THE STATE IN WHICH THE FRANCHISED RESTAURANT IS LOCATED", False),
    # dates: ISO; CUAD's m/d/yy, two-digit years below 50 in 20xx; "[]" parts compared as unknown
    ("date", "2019-07-31", "7/31/19", True),
    ("date", "1992-05-20", "5/20/92", True),
    ("date", "2019-07-30", "7/31/19", False),
    ("date", "2009-03-01", "[]/[]/2009", True),
    ("date", "2008-03-01", "[]/[]/2009", False),
    ("date", "1996-01-01", "[]/[]/19[]", True),
    ("date", "2014-05", "5/8/14", False),  # a month without its day is not the day CUAD gives
    # durations: count and unit, months for month/quarter/year, days for day/week
    ("duration", "12 months", "1 year", True),
    ("duration", "1 year", "successive 1 year", True),
    ("duration", "5 years", "2 successive 5 years", True),
    ("duration", "180 days", "60 days; 180 days", True),
    ("duration", "60 days", "60) days", True),  # CUAD's stray bracket
    ("duration", "6 months", "(6) months", True),
    ("duration", "6 weeks", "42 days", True),
    ("duration", "3 months", "90 days", False),  # a month is no fixed number of days
    ("duration", "30 days", "Perpetual", False),
    # no value on our side, or no answer on CUAD's, is never equal
    ("duration", None, "1 year", False),
    ("date", "2019-07-31", "", False),
])
def test_same_after_normalisation(kind, ours, gold, expected):
    assert same(kind, ours, gold) is expected


@pytest.mark.parametrize(("kind", "text", "form"), [
    ("jurisdiction", "the laws of the State of New York", "new york"),
    ("date", "May 8, 2014", ("2014", 5, 8)),
    ("date", "8th day of May 2014", ("2014", 5, 8)),
    ("date", "[]/[]/2012", ("2012", None, None)),
    ("duration", "thirty (30) days", (30.0, "day")),
    ("duration", "twelve (12) months", (12.0, "month")),
    ("duration", "perpetual", "perpetual"),
    ("duration", "no number here", None),
    ("yes_no", "Yes", "yes"),
    ("date", "Not found", "not found"),
])
def test_canonical_form(kind, text, form):
    assert canonical(kind, text) == form
