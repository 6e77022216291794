"""Speculative language (seed 001's list, plus its closest kin): a sentence or quote that
suggests rather than states."""

from __future__ import annotations

import re

from workbench.text.citations import strip_citations

# "may" alone is a legal modal ("may not" is a prohibition), so it is not on the list; "may be" is.
SPECULATIVE_TERMS: tuple[str, ...] = (
    "likely", "unlikely", "probably", "might", "could be", "appears to", "appear to", "seems to",
    "seem to", "possibly", "perhaps", "presumably", "may be", "it is believed", "arguably",
)
_SPECULATIVE_RE = re.compile(r"\b(" + "|".join(re.escape(t) for t in SPECULATIVE_TERMS) + r")\b", re.IGNORECASE)


def speculative_terms(text: str) -> list[str]:
    """The speculative terms a text uses (citations ignored), sorted."""
    return sorted({m.group(1).lower() for m in _SPECULATIVE_RE.finditer(strip_citations(text))})
