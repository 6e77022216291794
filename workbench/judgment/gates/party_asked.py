"""Gate `party_asked`: a question about what one named party must or may do is not answered by
what another party must or may do. "How many days' written notice must MMI give to terminate this
Agreement without cause?" is not answered by "Dragon may terminate this agreement without cause by
giving sixty (60) days written notice to MMI": the right, the notice and the number are all there,
and they are Dragon's. Likewise "What license does Company grant to Client?" against "Client hereby
grants to Company a … license".

The question's party is the capitalised name right after its auxiliary, with no article, as
contracts name their parties ("must MMI give", "does Company grant"; "must the Internet connection
have" names a thing). The quote's actors are the names before its modal or granting verbs ("Dragon
may", "the Company shall", "Client hereby grants"), read with the list's lead-in. The quote is
rejected only when it names actors, none of them is the party asked, none is a party in general
("either party", "each Party", "the parties"), and the party asked is in it all the same, acted
upon ("notice to MMI", "grants to Company"). A passive clause ("shall be delivered"), one that names
no actor or does not name the party asked, passes, and so does any clause where the party asked
acts. It reads sentence structure, not meaning, so a party named by its role in the question and by
its name in the clause ("the Licensee" / "Acme") is not matched; where the question names none, the
gate never runs."""

from __future__ import annotations

import re
from functools import lru_cache

from workbench.judgment.gates.base import GateResult, QuoteInput

NAME = "party_asked"

_NAME = r"[A-Z][\w&'’.-]*(?:\s+[A-Z][\w&'’.-]*){0,3}"
# "must MMI give", "does Company grant": the party right after the auxiliary, named as contracts name their
# parties, with no article ("must the Internet connection have" names a thing; "the Licensee" is left unread)
_ASKED = re.compile(rf"\b(?:must|may|shall|can|could|will|would|should|does|do|did)\s+({_NAME})\s+(?:[a-z]+)\b")
# "Dragon may", "the Company shall have", "Client hereby grants", "ADAMS GOLF must", "Licensor agrees"
_ACTOR = re.compile(rf"(?:^|(?<=[\s(“\"]))(?:[Tt]he\s+)?({_NAME})\s+(?:(?:shall|may|must|will|can)(?!\s+(?:not\s+)?be\b)"
                    r"|agrees|hereby|grants|has\s+the\s+right)\b")
# a party in general: it acts for the party asked too
_ANY_PARTY = re.compile(r"\b(?:either|each|both|any|a|the\s+other|neither|the)\s+part(?:y|ies)\b", re.I)
# capitalised words that are no party: the document, its parts, sentence openers
_NOT_PARTY = frozenset(("this", "the", "such", "any", "all", "each", "either", "neither", "agreement", "contract",
                        "term", "section", "article", "schedule", "exhibit", "notwithstanding", "if", "in", "upon",
                        "subject", "except", "nothing", "no", "party", "parties", "it", "they", "he", "she", "we",
                        "you", "there", "thereafter", "following", "after", "before", "during", "within", "unless",
                        "provided", "however", "where", "when", "as", "for", "to", "on", "by", "of", "and", "or"))
# a document's parts are no party ("does Exhibit B specify")
_PARTS = frozenset(("exhibit", "schedule", "section", "article", "appendix", "annex", "attachment", "clause"))


def _key(name: str) -> str:
    words = [w for w in re.findall(r"[A-Za-z0-9&]+", name) if w.lower() not in _NOT_PARTY]
    return " ".join(words).lower()


@lru_cache(maxsize=256)
def asked_party(question: str) -> str | None:
    """The party the question asks about ("mmi"), lower-cased, or None. A possessive ("does Lifeway's
    endorsement deal …") or a part of the document ("does Exhibit B specify") is no party acting."""
    for m in _ASKED.finditer(question):
        name = m.group(1)
        if name.endswith(("'s", "’s", "'", "’")) or name.split()[0].lower() in _PARTS:
            continue
        key = _key(name)
        if key:
            return key
    return None


def actors(text: str) -> set[str]:
    """The named actors of a text's modal and granting verbs, lower-cased ("dragon", "adams golf")."""
    return {k for m in _ACTOR.finditer(text) if (k := _key(m.group(1)))}


def check(inp: QuoteInput) -> GateResult | None:
    party = asked_party(inp.question)
    if party is None:
        return None
    text = f"{inp.unit.lead_in} {inp.quote}" if inp.unit.lead_in else inp.quote
    named = actors(text)
    if not named or _ANY_PARTY.search(text) or any(party == a or party in a.split() or a in party.split()
                                                  for a in named):
        return None
    if not re.search(rf"\b{re.escape(party)}\b", text, re.I):  # the party asked is not in it: no reversal to read
        return None
    who = ", ".join(sorted(named))
    return GateResult(NAME, "does_not_address_question",
                      f"Says what {who} must or may do; the question asks about {party}.", keeps_score=True)
