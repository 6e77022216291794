"""Each gate of a quote's verdict as a table of accepts and rejects (no corpus, no model: the
judge's relevance is given), and the registry that runs them in Settings.judgment's order."""

from __future__ import annotations

import pytest

from workbench.config import JudgmentSettings
from workbench.judgment.gates import GATES, QuoteInput, first_rejection
from workbench.models import UnitInfo
from workbench.text.weights import TermWeights

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


HEDGE_BY_SOURCE = [  # (quote, source type, rejected): a contract's hedge words are terms of art
    ("This Agreement will automatically terminate if a Party becomes unable generally to pay its debts as they "
     "become due.", "contract", False),  # an insolvency trigger
    ("Confidential Information does not include information that is generally available to the public.",
     "contract", False),  # a confidentiality exclusion
    ("Access restrictions are likely in place for most contractor systems.", "policy", True),  # guidance hedging
    ("Cirrhosis is usually compensated at diagnosis.", "other", True),
    ("Cirrhosis is usually compensated at diagnosis.", "paper", True),
]


@pytest.mark.parametrize(("quote", "source_type", "rejected"), HEDGE_BY_SOURCE)
def test_hedge_reads_guidance_not_contracts(quote, source_type, rejected):
    hit = GATES["hedge"](QuoteInput(Q, quote, 0.9, UnitInfo(), relevant=0.5, source_type=source_type))
    assert (hit is not None) is rejected


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
    ("Notwithstanding the foregoing, the Licensee may sublicense.", "the foregoing"),
    ("Xencor hereby grants to Aimmune an exclusive, worldwide license under the Xencor Patents to develop the "
     "Product, provided that the foregoing license excludes any right to manufacture.", None),  # points inside
    ("If a party breaches, such breach shall be cured within 30 days.", None),  # "such breach" after "breaches"
    # "such <noun>" defined by the clause after it points forward, inside the quote
    ("(B) if not cured within thirty (30) days after notice specifying such action the defaulting party must take.",
     None),
    ("The Licensee shall provide such information as the Licensor may reasonably request.", None),
    ("The Licensee shall provide such information to the Licensor within ten days.", "such information"),
    ("… under the laws of Pennsylvania, except in such cases and to such extent as the laws of another "
     "jurisdiction shall necessarily control.", None),  # coordinated with a "such … as" that follows
    ("… except in such cases and in all other matters.", "such cases"),
    ("If a default is not cured, each such item of default is a breach.", None),  # "of default": inside
    ("Each such item of the order shall be shipped.", "such item"),
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


VALUE_ASKED = [  # (question, quote, passes)
    # a period asked: a clause on the subject without one does not answer
    ("How many days' prior written notice is required to terminate?",
     "Either party may terminate this Agreement at any time on prior written notice.", False),
    ("How many days' prior written notice is required to terminate?",
     "Either party may terminate this Agreement on thirty (30) days' prior written notice.", True),
    ("How much advance notice must a party give to stop the renewal?",  # notice is a period, not an amount
     "This Agreement renews yearly unless either party gives ninety (90) days' written notice.", True),
    ("How much advance notice must a party give to stop the renewal?",
     "This Agreement renews yearly unless either party gives written notice of non-renewal.", False),
    ("How long is each renewal term?", "This Agreement shall renew for successive one (1) year terms.", True),
    ("How long is each renewal term?", "The Term shall expire on December 31, 2025 unless renewed.", True),
    ("Within how many days after termination must the name no longer be used?",
     "CONSULTANT's name shall not be used within [*****] days after termination.", False),  # redacted: not stated
    # an amount asked
    ("What is the minimum amount of insurance coverage the Manufacturer must maintain?",
     "Manufacturer shall maintain adequate insurance coverage in respect of the Products.", False),
    ("What is the minimum amount of insurance coverage the Manufacturer must maintain?",
     "Manufacturer shall maintain product liability insurance of not less than $2,000,000 per occurrence.", True),
    # a figure of the accounts asks an amount as "how much" does: its definition does not state it
    ("What were the Net Sales in 1999?", "\"Net Sales\" means gross sales less returns and allowances.", False),
    ("What was Bravatek's revenue in 2016?", "\"Net Revenue\" shall mean gross receipts collected by Company.", False),
    ("What was Bravatek's revenue in 2016?", "Bravatek's revenue in 2016 was $1,250,000.", True),
    ("What is the sales territory?", "The sales territory is the State of Texas.", True),  # "sales" names no figure here
    ("What are the sales targets?", "Reseller shall use its best efforts to meet the sales targets.", True),
    ("How much revenue did the company earn in 2016?", "\"Net Revenue\" means gross receipts less refunds.", False),
    # a percentage, a number, a date, a governing law
    ("What percentage of the gas is retained as fuel?", "\"Fuel Usage\" means the gas used to operate the system.", False),
    ("What royalty rate applies to Net Sales?", "Licensee shall pay a royalty of five percent (5%) of Net Sales.", True),
    ("How many arbitrators decide a dispute?", "Disputes shall be resolved by a panel of three arbitrators.", True),
    ("How many arbitrators decide a dispute?", "Any and all disputes relating to this agreement shall be arbitrated.", False),
    ("On what date does the Term end?", "The Term shall end on the [*****] day of [*****].", False),
    ("On what date does the Term end?", "The Term shall end five (5) years after the Effective Date.", True),
    ("When does the initial term expire?", "The initial term expires on June 30, 2021.", True),
    ("Which state's law governs this agreement?",
     "GOVERNING LAW. Any lawsuit arising hereunder shall be brought in a court of competent venue.", False),
    ("Which state's law governs this agreement?", "This Agreement is governed by the laws of the State of Kansas.", True),
    # a forum: a place named beside a court or an arbitration; a governing-law clause names none
    ("Which courts hear lawsuits under this agreement?",
     "This Agreement shall be governed by the laws of the State of Illinois.", False),
    ("Which courts hear lawsuits under this agreement?",
     "The parties submit to the exclusive jurisdiction of the state and federal courts located in New York City.", True),
    ("Where would an arbitration between the parties be seated?",
     "Each party waives any right to trial by jury in any proceeding arising out of this Agreement.", False),
    ("Where would an arbitration between the parties be seated?", "The seat of the arbitration shall be Singapore.", True),
    ("What forum does the Choice of Law and Forum clause name for lawsuits?",  # the heading's "Forum" names none
     "15. Choice of Law and Forum - This Agreement will be governed by the laws of the State of Illinois.", False),
    ("In which city will arbitration hearings take place?", "Arbitration shall take place in Chicago, Illinois.", True),
    # "where must disputes be resolved" is answered by the forum itself, a place or not
    ("What law governs this agreement and where must disputes be resolved?",
     "Such dispute shall be submitted to arbitration and resolved by a panel of three arbitrators.", True),
    ("Where must disputes under this agreement be resolved?",
     "Each party waives any right to trial by jury in any proceeding arising out of this Agreement.", False),
    ("Where would an arbitration between the parties be seated?",  # a place asked: the forum alone does not say
     "Such dispute shall be submitted to arbitration and resolved by a panel of three arbitrators.", False),
    ("Where must a party bring an action under the Supply Agreement?",  # a city the jurisdictions lack
     "Any action involving the rights and duties of the parties shall be brought in the courts of Geneva.", True),
    ("Where must a party bring an action under the Supply Agreement?",
     "Any action shall be brought in a court of competent jurisdiction.", False),
    # a year: a date without one does not say it
    ("In what year was the Distributor Agreement made?", "THIS AGREEMENT, made as of the 1st day of December, by and "
     "between the parties.", False),
    ("In what year was the Distributor Agreement made?", "THIS AGREEMENT, made as of the 1st day of December, 2005.", True),
    # an interest rate is a percentage: a price per unit is none
    ("What interest rate applies to late payments?", "Company shall refund $1.00 per pager delivered.", False),
    ("What interest rate applies to late payments?", "Late payments bear interest at one percent (1%) per month.", True),
    # a share, a number of things, a price or a limit under another name; a redacted figure states none
    ("What share of its annual requirement must Buyer purchase from Seller?",
     "Buyer shall purchase [*] of its annual requirement from Seller.", False),
    ("What share of its annual requirement must Buyer purchase from Seller?",
     "Buyer shall purchase eighty percent (80%) of its annual requirement from Seller.", True),
    ("What is the maximum number of pagers a customer may receive?",
     "The airtime provider may market additional pagers to all customers.", False),
    ("What is the maximum number of pagers a customer may receive?", "No customer may receive more than two pagers.",
     True),
    ("What is the maximum number of pagers a customer may receive?",  # a footer crossed at a page break
     "The provider may market additional pagers to any account with a  Page 1 of 6  Purchase Customer.", False),
    ("What purchase price does the buyer pay for the assets?",
     "The buyer and the seller shall execute the purchase agreement in the form of Exhibit A.", False),
    ("What purchase price does the buyer pay for the assets?", "The purchase price for the assets is $2,500,000.", True),
    ("What minimum limits must the liability insurance carry?",
     "Each party shall maintain a general liability insurance policy with minimum limits of [*].", False),
    # a clause's own number is no value: a heading answers no "how much"
    ("How much royalty per unit does the distributor pay?", "5. Royalties payable by the distributor.", False),
    ("How much royalty per unit does the distributor pay?", "5. The distributor shall pay $0.50 per unit.", True),
    ("What royalty rate applies to Net Sales?", "5.5% of Net Sales is payable as a royalty.", True),  # no marker
    ("What does the license fee cover?", "The license fee covers support and updates.", True),  # no value asked
    # nothing paid is an amount: "no upfront compensation" answers what is paid up front
    ("What upfront compensation does the Producer receive?", "It will receive no upfront compensation for the rights.",
     True),
    ("What percentage of net receipts is paid on recorded products?",  # nothing paid is no percentage
     "No royalties will be paid on printed products until costs are recouped.", False),
    # no value asked: a clause, a condition, a yes/no, several things at once
    ("When may a party terminate this agreement?", "Either party may terminate upon a material breach.", True),
    ("What happens to confidential information on termination?", "Each party shall return it.", True),
    ("Is there a cap on liability?", "Neither party shall be liable for indirect damages.", True),
    ("What law governs this agreement and can either party terminate it?", "Either party may terminate on notice.",
     True),  # one part asks for a clause
    ("What law governs this agreement and how many days' notice ends it?", "Either party may terminate on notice.",
     False),  # each part asks a value, and the quote states none
    # several parts, each asking a value: a quote stating a value of one of them answers; how long a
    # term runs and when it ends may be stated by the event that ends it, how many days never
    ("How long does the initial term run, and on what date does it end?",
     "All other terms of the Agreement shall remain in full force and effect.", False),
    ("How long does the initial term run, and on what date does it end?",
     "The term will commence on the Effective Date and will end when terminated by either party.", True),
    ("How long does the initial term run, and on what date does it end?",
     "This Agreement shall continue until the Secondary Royalty Term with respect to such Product expires.", True),
    ("How long does the initial term run, and on what date does it end?",
     "The term of this Agreement will end automatically upon the end of Year 3.", True),
    ("How many days' notice must a party give?", "Either party may terminate this Agreement until terminated.", False),
]


@pytest.mark.parametrize(("question", "quote", "passes"), VALUE_ASKED)
def test_value_asked(question, quote, passes):
    hit = GATES["value_asked"](QuoteInput(question, quote, 0.9, UnitInfo(), relevant=0.5))
    assert (hit is None) is passes
    if hit:
        assert hit.reason == "does_not_address_question" and "states no value" in hit.rationale


def test_a_value_in_the_lead_in_of_a_list_item_answers():
    lead = "Licensee shall pay the following fees of $5,000 each:"
    hit = GATES["value_asked"](QuoteInput("How much must the Licensee pay?", "(a) upon signing;", 0.9,
                                          UnitInfo(lead_in=lead), relevant=0.5))
    assert hit is None


# A small contract's sentences: which of a question's words are specific to it (TermWeights' IDF).
HOSTING = [
    "HDI shall host the Site for the Company.",
    "HDI shall keep the Site operational.",
    "The Company shall pay HDI monthly.",
    "HDI shall report to the Company.",
    "If HDI commits a material breach, the Company may terminate this Agreement on notice.",
    "HDI shall cure any breach within thirty (30) days after written notice of it.",
    "In the event that HDI fails to have the Site fully operational within seventy (70) days from the date of "
    "this Agreement, the Company shall have the right to terminate this Agreement without penalty.",
    "Payments to HDI shall be due within thirty (30) days of the end of each calendar month.",
    "This Agreement shall continue for a period of five (5) years.",
    "Either party may stop the renewal by written notice given ninety (90) days before the Term ends.",
]
CURE = "Within how many days must HDI cure a breach after notice?"
VALUE_IN_CONTEXT = [  # (question, quote, passes)
    # the value's own sentence must hold a word the question is specifically about
    (CURE, "HDI shall cure any breach within thirty (30) days after written notice of it.", True),
    (CURE, HOSTING[6], False),  # seventy days, but to get the Site running: "HDI" is everywhere
    (CURE, HOSTING[7], False),  # thirty days, but of payments
    # the question's words in another sentence of the quote than the value's do not count
    (CURE, "HDI may remedy a breach. Payments to HDI shall be due within thirty (30) days of the end of each "
           "calendar month.", False),
    ("How many days after the end of each calendar month are payments due?", HOSTING[7], True),
    # a question about the agreement's own term is answered by a sentence naming the agreement
    ("How long does the initial term run, and on what date does it come to an end?", HOSTING[8], True),
    ("How much advance notice must a party give to keep the contract from rolling over into another term?",
     HOSTING[9], True),
    # a year the question names must be the value's: a share of Net Sales is no year's figure
    ("What were the Net Sales of Deerskin Products on the Site in 1999?",
     "HDI shall receive ten percent (10%) of the Net Sales of Deerskin Products on the Site.", False),
    ("What were the Net Sales of Deerskin Products on the Site in 1999?",
     "Net Sales of Deerskin Products on the Site in 1999 were $412,000.", True),
    # ... of the part that asks it: the law clause answers the other part, whatever the year
    ("What law governs this agreement and what was the reseller's revenue in 2019?",
     "This Agreement shall be governed by the laws of the State of California.", True),
    ("What law governs this agreement and what was the reseller's revenue in 2019?",
     "Reseller shall receive twenty percent (20%) of the revenue.", False),
    # a date asked of an event is the date of that event
    ("On which date does the endorsement deal expire?",
     "This Endorsement Agreement is made this 14th day of March, 2016, by and between Lifeway and Individual.", False),
    ("On which date does the endorsement deal expire?", "The endorsement deal shall terminate on 31 December 2017.",
     True),
    ("On what date did the regulator approve this agreement?",
     "This Agreement is made and entered into as of the 1st day of November, 2002.", False),
    ("On what date did the parties sign this agreement?",
     "This Agreement is made and entered into as of the 1st day of November, 2002.", True),
    ("On what date does the Term of this Agreement commence?", "The Term shall commence on the 1st day of September 2004.",
     True),
    ("What is the Effective Date of the Hosting Agreement?", "This Agreement is dated as of 09/24/2018.", True),  # no event
    # no value of the kind asked, or no value asked: other gates decide
    (CURE, "HDI shall report to the Company.", True),
    ("How can either party terminate this agreement?", HOSTING[6], True),
]


@pytest.mark.parametrize(("question", "quote", "passes"), VALUE_IN_CONTEXT)
def test_value_in_context(question, quote, passes):
    hit = GATES["value_in_context"](QuoteInput(question, quote, 0.9, UnitInfo(), relevant=0.5,
                                               weights=TermWeights(HOSTING, "contract")))
    assert (hit is None) is passes
    if hit:
        assert hit.reason == "does_not_address_question" and ("of something else" in hit.rationale
                                                              or "names no such year" in hit.rationale
                                                              or "does not name that event" in hit.rationale)


PIPELINE = [  # a transport contract naming each meter once, its parties everywhere
    "Transporter shall receive gas for Shipper at the Agua Dulce meter.",
    "Transporter shall maintain a minimum line pressure of 600 pounds per square inch gauge at Calvary.",
    "Transporter shall deliver gas to Shipper at the primary delivery points.",
    "Shipper shall pay Transporter the maximum tariff rate.",
    "Transporter and Shipper shall keep records of all gas delivered.",
    "This Agreement shall remain in force until October 31, 2012.",
]
RARE_NAMES = [  # (question, quote, passes): a name the document gives once must be the value's
    ("What minimum line pressure must Transporter maintain at the Agua Dulce meter?", PIPELINE[1], False),
    ("What minimum line pressure must Transporter maintain at Calvary?", PIPELINE[1], True),
    ("What minimum line pressure must Transporter maintain at the Agua Dulce meter?",
     "At the Agua Dulce meter Transporter shall maintain 450 pounds per square inch gauge.", True),
    # a name the document uses everywhere (a party) or never (a paraphrase) is no such name
    ("Until what date does the Transporter's contract remain in force?", PIPELINE[5], True),
    ("Until what date does the Gasline contract remain in force?", PIPELINE[5], True),
]


@pytest.mark.parametrize(("question", "quote", "passes"), RARE_NAMES)
def test_value_in_context_a_rarely_named_thing_is_stated_only_where_named(question, quote, passes):
    hit = GATES["value_in_context"](QuoteInput(question, quote, 0.9, UnitInfo(), relevant=0.5,
                                               weights=TermWeights(PIPELINE, "contract")))
    assert (hit is None) is passes
    if hit:
        assert "names it in at most" in hit.rationale


def test_value_in_context_reads_the_lead_in_with_its_item():
    lead = "HDI shall cure any breach within the following periods after written notice:"
    item, weights = "(a) thirty (30) days for a payment;", TermWeights(HOSTING, "contract")
    assert GATES["value_in_context"](QuoteInput(CURE, item, 0.9, UnitInfo(lead_in=lead), relevant=0.5,
                                                weights=weights)) is None
    assert GATES["value_in_context"](QuoteInput(CURE, item, 0.9, UnitInfo(), relevant=0.5, weights=weights))


def test_value_in_context_without_weights_counts_every_word_of_the_question():
    # no document weights: "HDI" counts like any other word, and the sentence naming HDI passes
    assert GATES["value_in_context"](QuoteInput(CURE, HOSTING[6], 0.9, UnitInfo(), relevant=0.5)) is None


OTHER_KIND = [  # (asked, its share of the ask, P(quote is it), the quote's likeliest kind, its P, passes)
    ("Renewal Term", 0.95, 0.22, "Expiration Date", 1.00, False),  # a term clause for "does it renew?"
    ("Renewal Term", 0.95, 0.00, "Warranty Duration", 0.99, False),  # a warranty's 30 days for it
    ("Renewal Term", 0.95, 0.81, "Expiration Date", 0.99, True),  # a term clause that renews: it is both
    ("Renewal Term", 0.95, 0.45, "Renewal Term", 0.45, True),  # of no kind at even odds: the relevance decides
    ("Renewal Term", 0.95, 0.30, "Expiration Date", 0.49, True),  # another kind, but below even odds
    ("Renewal Term", 0.30, 0.10, "Expiration Date", 0.99, True),  # the question is spread over kinds
    # "How can either party end this agreement?" read as half post-termination: too loose to reject by
    ("Post-Termination Services", 0.54, 0.01, "Termination For Convenience", 0.92, True),
    ("Change Of Control", 0.90, 0.22, "Anti-Assignment", 1.00, False),  # consent to assign, no change of control
]


@pytest.mark.parametrize(("asked", "share", "p_asked", "kind", "p_kind", "passes"), OTHER_KIND)
def test_other_kind(asked, share, p_asked, kind, p_kind, passes):
    from workbench.judgment.topics import KindReading

    reading = KindReading(asked=asked, asked_weight=share, p_asked=p_asked, kind=kind, p_kind=p_kind)
    hit = GATES["other_kind"](QuoteInput("Does it renew?", "The term is one year.", 0.9, kinds=reading))
    assert (hit is None) is passes
    if hit:
        assert hit.reason == "does_not_address_question" and "not the" in hit.rationale


def test_other_kind_without_a_reading_passes():  # not a contract's quote, or a judge without topics
    assert GATES["other_kind"](QuoteInput("Does it renew?", "The term is one year.", 0.9)) is None


def test_other_kind_says_which_kind_the_quote_is_in_words():
    from workbench.judgment.topics import KindReading

    reading = KindReading(asked="Renewal Term", asked_weight=0.77, p_asked=0.22, kind="Expiration Date", p_kind=1.0)
    hit = GATES["other_kind"](QuoteInput("Does it renew?", "The term is six months.", 0.72, kinds=reading))
    assert hit.rationale == "An expiration date clause (P 1.00), not the renewal term the question asks about (P 0.22)."


PARTY_ASKED = [  # (question, quote, passes): near-miss questions of bench/data/near_miss.tsv and their contracts' clauses
    ("How many days' written notice must MMI give to terminate this Agreement without cause?",
     "Dragon may terminate this agreement without cause by giving sixty (60) days written notice to MMI.", False),
    ("How many days' written notice must Dragon give to terminate this Agreement without cause?",
     "Dragon may terminate this agreement without cause by giving sixty (60) days written notice to MMI.", True),
    ("What license does Company grant to Client?",
     "Client hereby grants to Company a non-exclusive and limited license to use Client's trade names.", False),
    ("What license does Client grant to Company?",
     "Client hereby grants to Company a non-exclusive and limited license to use Client's trade names.", True),
    ("How many days' written notice must Cano give to terminate this Agreement?",
     "If Cano fails to make any payment when required by this Agreement, the Company shall have the option of "
     "canceling this Agreement following the passage of ten (10) days after having given Cano written notice.", False),
    # a party in general acts for the party asked too
    ("How many days' written notice must MMI give to terminate this Agreement?",
     "Either party may terminate this Agreement on ninety (90) days' written notice to the other.", True),
    # passive: no actor named
    ("Within how many days must Company deliver Company Products after an order?",
     "Company Products shall be delivered within thirty (30) days after MMI's order.", True),
    # the party asked is not in the quote: nothing reversed to read
    ("Within how many days must HDI cure a breach after notice?",
     "Dragon may terminate this agreement on sixty (60) days written notice.", True),
    # no party asked: a thing after the auxiliary, a document part, a possessive, a general party
    ("What bandwidth must the Internet connection of the Site's computer system have?",
     "HDI shall maintain an Internet connection of at least T1 bandwidth.", True),
    ("What buyout payment amount does Exhibit B specify?",
     "Licensee shall pay the buyout amount set forth in Exhibit B.", True),
    ("On which date does Lifeway's endorsement deal with Ludmila Smolyansky expire?",
     "Ludmila Smolyansky shall endorse the products of Lifeway until December 31, 2017.", True),
    ("May either side end the contract early without having to show a breach or other cause?",
     "Dragon may terminate this agreement without cause by giving sixty (60) days written notice to MMI.", True),
]


@pytest.mark.parametrize(("question", "quote", "passes"), PARTY_ASKED)
def test_party_asked(question, quote, passes):
    hit = GATES["party_asked"](QuoteInput(question, quote, 0.9))
    assert (hit is None) is passes
    if hit:
        assert hit.reason == "does_not_address_question" and "the question asks about" in hit.rationale


def test_party_asked_reads_the_lead_in_with_its_item():
    question = "How many days' written notice must MMI give to terminate this Agreement?"
    item = "(a) on sixty (60) days written notice to MMI;"
    lead = "Dragon may terminate this Agreement as follows:"
    assert GATES["party_asked"](QuoteInput(question, item, 0.9, UnitInfo(lead_in=lead)))
    assert GATES["party_asked"](QuoteInput(question, item, 0.9)) is None


FOR_CAUSE = [  # (question, quote, passes)
    # a termination for cause does not answer a question about terminating without one
    ("May either side end the contract early without having to show a breach or other cause?",
     "Either party may terminate this Agreement upon written notice if the other party materially breaches this "
     "Agreement and fails to cure such breach within thirty (30) days.", False),
    ("How many days' notice must the Licensee give to terminate the license for convenience?",
     "Licensor may terminate this Agreement immediately if Licensee becomes insolvent or files for bankruptcy.", False),
    ("How many days' written notice must MMI give to terminate this Agreement without cause?",
     "MMI may terminate this Agreement upon an event of default by Dragon.", False),
    # a right without cause answers, beside a right for cause too
    ("May either side end the contract early without having to show a breach or other cause?",
     "Either party may terminate this Agreement for any reason upon ninety (90) days' written notice.", True),
    ("May either side end the contract early without having to show a breach or other cause?",
     "Either party may terminate this Agreement at any time on sixty (60) days' notice, or at once upon a material "
     "breach by the other party.", True),
    ("How many days' notice must the Licensee give to terminate the license for convenience?",
     "Licensee may terminate this Agreement upon thirty (30) days' notice; such termination shall not relieve either "
     "party of liability for any breach before it.", True),  # a breach the termination leaves intact is no cause
    # other questions, and quotes that end nothing, are not read
    ("How can either party terminate this agreement?",
     "Either party may terminate this Agreement if the other party materially breaches it.", True),
    ("May either side end the contract early without having to show a breach or other cause?",
     "Licensee shall indemnify Licensor against any breach of its warranties.", True),
]


@pytest.mark.parametrize(("question", "quote", "passes"), FOR_CAUSE)
def test_for_cause(question, quote, passes):
    hit = GATES["for_cause"](QuoteInput(question, quote, 0.9, UnitInfo(), relevant=0.5))
    assert (hit is None) is passes
    if hit:
        assert hit.reason == "does_not_address_question" and "for cause" in hit.rationale
