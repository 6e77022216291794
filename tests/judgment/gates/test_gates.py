"""Each gate of a quote's verdict as a table of accepts and rejects (no corpus, no model: the
judge's relevance is given), and the registry that runs them in Settings.judgment's order."""

from __future__ import annotations

import pytest

from workbench.config import JudgmentSettings
from workbench.judgment.gates import GATES, QuoteInput, first_rejection
from workbench.models import UnitInfo

Q = "How can either party terminate this agreement?"


def inp(quote: str, relevance: float = 0.9, lead: str = "") -> QuoteInput:
    return QuoteInput(Q, quote, relevance, UnitInfo(lead_in=lead), relevant=0.5)


RELEVANCE = [  # (relevance, passes)
    (0.9, True), (0.5, True), (0.49, False), (0.0, False),
]


@pytest.mark.parametrize(("relevance", "passes"), RELEVANCE)
def test_relevance(relevance, passes):
    hit = GATES["relevance"](inp("Either party may terminate this Agreement on thirty days' notice.", relevance))
    assert (hit is None) is passes
    if hit:
        assert hit.reason == "does_not_address_question" and "needs 0.50" in hit.rationale and hit.keeps_score


HEDGE = [  # (quote, the hedging words or None)
    ("Either party may terminate this Agreement on thirty (30) days' written notice.", None),
    ("Either party may generally terminate this Agreement on notice.", "generally"),
    ("The licensee will probably be entitled to terminate.", "probably"),
    ("It appears that termination requires notice.", "It appears"),
    ("Records shall be reviewed weekly, as appropriate to the risk.", "as appropriate"),
    ("The Company shall typically provide notice.", "typically"),
]


@pytest.mark.parametrize(("quote", "words"), HEDGE)
def test_hedge(quote, words):
    hit = GATES["hedge"](inp(quote))
    assert (hit is None) is (words is None)
    if hit:
        assert hit.reason == "requires_inference" and f"'{words}'" in hit.rationale


FRAGMENT = [  # (quote, lead-in, passes)
    ("Either party may terminate this Agreement upon notice.", "", True),
    ("(b) the tenth anniversary of the first sale.", "", True),  # an enumerator opens an item
    ("and will automatically renew for one-year terms.", "", False),
    ("upon the occurrence of any of the following events of default:", "", False),
    ("peer and lay health worker support in community-based settings.",
     "The following interventions should be considered:", True),  # an item read after its lead-in
    ("\u201cConfidential Information\u201d means all non-public information.", "", True),
]


@pytest.mark.parametrize(("quote", "lead", "passes"), FRAGMENT)
def test_fragment(quote, lead, passes):
    hit = GATES["fragment"](inp(quote, lead=lead))
    assert (hit is None) is passes
    if hit:
        assert hit.reason == "incomplete_quote" and "mid-sentence" in hit.rationale


DANGLING = [  # (quote, the words that point outside or None)
    ("This Agreement shall be governed by the laws of the State of Kansas.", None),  # a defined term
    ("this agreement may be terminated by either party on notice.", None),  # the document itself
    ("It is expressly agreed that the Licensee shall bear all costs.", None),  # an expletive "it"
    ("Such notice shall be given in writing to the other party.", "Such"),
    ("Either party may terminate on such notice in writing.", "such notice"),
    ("This section applies to every order placed by the Company.", "This section"),
    ("The parties shall act in such a manner as to avoid any delay.", None),  # "such a manner" names nothing
    ("Payment terms are as set forth above and are binding.", "as set forth above"),
    ("If a party breaches, such breach shall be cured within 30 days.", None),  # "such breach" after "breaches"
]


@pytest.mark.parametrize(("quote", "words"), DANGLING)
def test_dangling_reference(quote, words):
    hit = GATES["dangling_reference"](inp(quote))
    assert (hit is None) is (words is None)
    if hit:
        assert hit.reason == "incomplete_quote" and f"'{words}" in hit.rationale


def test_the_first_gate_in_the_settings_order_decides():
    quote = "Such notice may generally be given."  # hedged and dangling
    assert first_rejection(inp(quote), JudgmentSettings().gates).gate == "hedge"
    assert first_rejection(inp(quote), ["dangling_reference", "hedge"]).gate == "dangling_reference"
    assert first_rejection(inp(quote), ["relevance", "fragment"]) is None  # a gate left out does not run
    assert first_rejection(inp(quote, relevance=0.1), JudgmentSettings().gates).gate == "relevance"


def test_an_unknown_gate_is_refused_by_the_settings_and_the_settings_name_every_gate():
    from typing import get_args

    from workbench.config import GateName

    with pytest.raises(ValueError, match="dangling_reference"):
        JudgmentSettings(gates=["relevance", "vibes"])
    assert set(get_args(GateName)) == set(GATES)
