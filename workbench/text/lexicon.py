"""Patterns of the language of documents that several layers read alike, written once: the PDF
layer, the judgment gates and the backends import them from here instead of keeping copies."""

from __future__ import annotations

import re

# An enumerator or clause number opening a unit: "(a) ", "iii. ", "4.2 ", "§ 12.3 " (repeated:
# "1. (a) "). What a gate strips before reading the unit's first word.
ENUMERATOR = re.compile(r"^\s*(?:\(?(?:\d+(?:\.\d+)*|[a-zA-Z]|[ivxlcIVXLC]{1,6})[.)]\s+|§+\s*\d[\w.]*\s+)+")

# Wording that suggests rather than states: a quote that hedges would need inference to answer.
HEDGES = re.compile(
    r"\b(might|perhaps|possibly|probably|likely|arguably|it appears|appears to|seems? to|"
    r"generally|typically|usually|in some cases|where appropriate|as appropriate)\b", re.I)


def squash(text: str) -> str:
    """Letters and digits only, case folded: what two texts must share to say the same words."""
    return re.sub(r"[\W_]+", "", text).casefold()
