"""Facts are read: a claim stating a jurisdiction, date, period, amount or percentage is supported
only by a passage stating the same fact, in whatever form it is written. Passages are real
contract text from the shared corpus (each test reads it from the file it names)."""

from __future__ import annotations

import re

import pytest

from workbench.judgment.facts import compare, extract, words_to_number


def sentence(corpus, folder: str, name_part: str, needle: str) -> str:
    """The sentence of a corpus contract that contains `needle` (whitespace normalised)."""
    for p in sorted((corpus / folder / "txt").iterdir()):
        if name_part in p.name:
            text = re.sub(r"\s+", " ", p.read_text(errors="replace"))
            if (i := text.find(needle)) >= 0:
                break
    else:
        raise AssertionError(f"{needle!r} not in a {folder} contract named like {name_part!r}")
    start = max(text.rfind(". ", 0, i) + 2, 0)
    end = text.find(". ", i + len(needle))
    return text[start:end + 1 if end > 0 else len(text)]


@pytest.fixture
def virginia(corpus):
    return sentence(corpus, "cuad", "", "laws of the Commonwealth of Virginia")


@pytest.fixture
def delaware(corpus):
    return sentence(corpus, "cuad", "", "governed in all respects by the laws of the State of Delaware")


@pytest.fixture
def new_york(corpus):
    return sentence(corpus, "cuad", "", "in accordance with the laws of the State of New York applicable")


def test_governing_law_other_state_is_a_conflict_named_in_words(virginia, delaware, new_york):
    check = compare("This Agreement is governed by the laws of Delaware.", new_york)
    assert check.conflicts and not check.ok
    assert check.reason == "the claim says the laws of Delaware, the passage says the laws of New York"
    assert not compare("The contract is governed by New York law.", delaware).ok
    check = compare("This Agreement is governed by the laws of Delaware.", virginia)
    assert "Virginia" in check.reason and "Delaware" in check.reason


def test_governing_law_same_state_in_another_form_matches(virginia, delaware, new_york):
    assert compare("This Agreement is governed by the laws of Virginia.", virginia).ok
    assert compare("Delaware law governs the agreement.", delaware).ok
    check = compare("The agreement is governed by the laws of the State of New York.", new_york)
    assert check.ok and check.reason == "the passage states the same jurisdiction (the laws of New York)"


def test_state_of_incorporation_is_not_the_governing_law():
    span = ("Acme Inc., a Delaware corporation, agrees that this Agreement shall be governed by the laws "
            "of the State of New York.")
    assert not compare("This Agreement is governed by the laws of Delaware.", span).ok
    assert compare("This Agreement is governed by the laws of New York.", span).ok
    assert [f.role for f in extract(span) if f.kind == "jurisdiction"] == ["incorporation", "law"]


def test_thirty_days_is_not_sixty_60_days(corpus):
    span = sentence(corpus, "cuad", "", "upon sixty (60) days prior written notice")
    check = compare("The franchisee must give 30 days prior written notice.", span)
    assert check.conflicts
    assert check.reason == "the claim says 30 days, the passage says sixty (60) days"
    assert compare("The franchisee must give sixty days prior written notice.", span).ok
    assert compare("The franchisee must give 60 days prior written notice.", span).ok


def test_notice_without_a_unit_still_counts(corpus):
    span = sentence(corpus, "cuad", "", "for non-cause with a sixty (60) written notice")
    assert compare("Either party may terminate for convenience on 60 days notice.", span).ok
    assert not compare("Either party may terminate for convenience on 30 days notice.", span).ok


def test_periods_compare_across_units(corpus):
    span = sentence(corpus, "cuad", "", "for a period of three (3) years all books and records")
    assert compare("Books and records must be kept for three years.", span).ok
    assert compare("Books and records must be kept for 36 months.", span).ok
    check = compare("Books and records must be kept for two years.", span)
    assert check.reason == "the claim says two years, the passage says three (3) years"


def test_dates_in_any_written_form(corpus):
    preamble = sentence(corpus, "cuad-train", "CybergyHoldings", "entered into this 8th day of May 2014")
    assert compare("The agreement is dated May 8, 2014.", preamble).ok
    assert compare("The agreement was made on 5/8/14.", preamble).ok
    check = compare("The agreement is dated June 21, 1999.", preamble)
    assert check.reason == "the claim says June 21, 1999, the passage says 8th day of May 2014"
    assert compare("The agreement is dated May 19, 2010.", "This Agreement is made this 19th day of May, 2010.").ok
    assert not compare("The agreement is dated May 8, 2014.", "Dated: June 21, 1999").ok
    assert compare("It took effect on January 1, 2009.", sentence(corpus, "cuad", "", "effective as from the 1st day of January, 2009")).ok


def test_date_values():
    got = [f.value for f in extract("made 19th day of May, 2010; 5/8/14; 2014-05-08; the twenty-first day of June, 1999; "
                                    "Sept. 3, 2001; 8 May 2014")]
    assert got == [(2010, 5, 19), (2014, 5, 8), (2014, 5, 8), (1999, 6, 21), (2001, 9, 3), (2014, 5, 8)]


def test_percentages_and_amounts(corpus):
    span = sentence(corpus, "cuad", "", "shall not exceed seven percent (7%) during any renewal period")
    assert compare("The continuing fee is capped at 7% during renewals.", span).ok
    assert compare("The continuing fee is capped at seven percent during renewals.", span).ok
    assert compare("The continuing fee is capped at 5% during renewals.", span).reason == (
        "the claim says 5%, the passage says seven percent (7%)")
    assert compare("The fee is $1.5 million.", "a fee of one million five hundred thousand dollars ($1,500,000)").ok
    assert not compare("The fee is $150,000.", "a fee of $1,500,000 payable on signature").ok


def test_number_words():
    assert words_to_number("sixty") == 60
    assert words_to_number("one hundred twenty-five") == 125
    assert words_to_number("two million") == 2_000_000
    assert words_to_number("termination") is None


def test_claim_without_facts_has_nothing_to_check(virginia):
    check = compare("The agreement may not be assigned without consent.", virginia)
    assert not check.claim_has_facts and check.ok and check.reason == ""


def test_fact_absent_from_passage_is_missing_not_conflict(virginia):
    check = compare("Either party may terminate on 30 days notice.", virginia)
    assert check.missing and not check.conflicts and not check.ok
    assert check.reason == "the passage does not state 30 days"


def test_section_references_are_not_numbers():
    assert [f.kind for f in extract("as set out in Section 14.2 and Article 5")] == []


@pytest.mark.parametrize("claim,passage,conflicts", [
    ("Incidents are reported within 72 hours.", "Every incident must be reported within 24 hours of discovery.", True),
    ("Incidents are reported within 24 hours.", "Every incident must be reported within twenty-four (24) hours.", False),
    ("Incidents are reported within 48 hours.", "Every incident must be reported within two (2) days.", False),
    ("Support responds within 30 minutes.", "Support shall respond within forty-five (45) minutes.", True),
])
def test_periods_in_hours_and_minutes_are_read(claim, passage, conflicts):
    check = compare(claim, passage)
    assert bool(check.conflicts) is conflicts, check.reason
    assert check.ok is not conflicts
