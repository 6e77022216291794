"""The facts a question asks for, one part each: "What law governs this agreement and where must
disputes be resolved?" asks two things, and an answer that states only the law has answered half.

A part starts where a coordinator ("and", "or", ";", ", and", "as well as") is followed by a new
question of its own: a wh-word, possibly after a preposition ("where …", "how long …", "on what
date …"), or an auxiliary with its subject ("is there …", "does the licensee …"). Coordinated nouns
are one part ("the term and the renewal term": one fact asked of two things, read together), and so
is a verb phrase that goes on ("… breaches and does not cure"); a clause fronted by a subordinator
("Once the first term is over, does …") belongs to the question it fronts. Sentences ending in "?"
are parts of their own. Each part has at least MIN_WORDS words, or the question stays whole."""

from __future__ import annotations

import re

MIN_WORDS = 3

_WH = r"(?:what|which|who|whom|whose|when|where|why|how)"
_AUX = r"(?:is|are|was|were|does|do|did|can|could|may|must|shall|should|will|would|has|have)"
_SUBJECT = r"(?:the|this|that|these|those|there|it|they|either|each|any|a|an|its|their|such)"
# a preposition may come before the wh-word: "…, and on what date does it end?"
_PREP = r"(?:on|by|in|at|for|from|to|until|under|within|with|after|before)"
_JOIN = re.compile(rf"(?:\s*[;,]\s*(?:and|or)?|\s+(?:and|or|as\s+well\s+as))\s+"
                   rf"(?=(?:(?:{_PREP}\s+)?{_WH}\b|{_AUX}\s+{_SUBJECT}\b))", re.I)
# A piece opening with a subordinator is a fronted clause of the next one, no question of its own
# ("Once the first term is over, does the contract carry on …?"; "If it renews, how long is each term?").
_FRONTED = re.compile(r"^(?:once|if|after|before|unless|while|upon|assuming|provided|given|since|because|"
                      r"although|though|in\s+case|as\s+soon\s+as)\b", re.I)
_SENTENCE = re.compile(r"(?<=\?)\s+(?=\S)")


def _words(text: str) -> int:
    return len(text.split())


def question_parts(question: str) -> list[str]:
    """The question's parts in order, each without its joining word and trailing "?"; [question]
    (whitespace collapsed) when it asks one thing."""
    q = " ".join((question or "").split())
    parts: list[str] = []
    for sentence in _SENTENCE.split(q):
        pieces = [p.strip(" ,;") for p in _JOIN.split(sentence)]
        pieces = [p.rstrip(" ?") for p in pieces if p]
        fronted = [bool(_FRONTED.match(p)) for p in pieces]
        for i in range(len(pieces) - 1):  # a fronted clause joins the question it fronts
            if fronted[i]:
                pieces[i + 1], pieces[i] = f"{pieces[i]}, {pieces[i + 1]}", ""
        pieces = [p for p in pieces if p]
        if len(pieces) > 1 and all(_words(p) >= MIN_WORDS for p in pieces):
            parts += pieces
        elif sentence.strip(" ?"):
            parts.append(sentence.rstrip(" ?"))
    if len(parts) < 2 or any(_words(p) < MIN_WORDS for p in parts):
        return [q]
    return parts
