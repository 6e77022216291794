"""Speculative language (seed 001's list, plus its closest kin): a sentence or quote that
suggests rather than states."""

from __future__ import annotations

import re

from workbench.text.citations import strip_citations

# "may" alone is a legal modal ("may not" is a prohibition), so it is not on the list; "may be" is,
# except before a legal act: "This Agreement may be terminated by either party …" grants a right
# (the verifier's hedge gate agrees), where "may be associated with" hedges.
SPECULATIVE_TERMS: tuple[str, ...] = (
    "likely", "unlikely", "probably", "might", "could be", "appears to", "appear to", "seems to",
    "seem to", "possibly", "perhaps", "presumably", "may be", "it is believed", "arguably",
)
_LEGAL_ACTS = (
    "terminated|assigned|amended|waived|modified|extended|renewed|used|disclosed|transferred|required|"
    "made|given|delivered|sent|paid|sold|granted|provided|executed|enforced|brought|filed|deemed|construed|"
    "cancell?ed|withheld|sublicensed|submitted|charged|invoiced|increased|reduced|adjusted|changed|"
    "revoked|suspended|released|exercised|obtained|performed|shared|copied|signed|settled|resolved|"
    "referred|conducted|audited|inspected|licensed|distributed|marketed|purchased|ordered|returned|"
    "destroyed|retained|stored|issued|appointed|removed|replaced|designated|approved|rejected|accepted")
_SPECULATIVE_RE = re.compile(
    r"\b(" + "|".join(re.escape(t) + (rf"(?!\s+(?:{_LEGAL_ACTS})\b)" if t == "may be" else "")
                      for t in SPECULATIVE_TERMS) + r")\b", re.IGNORECASE)


def speculative_terms(text: str) -> list[str]:
    """The speculative terms a text uses (citations ignored), sorted."""
    return sorted({m.group(1).lower() for m in _SPECULATIVE_RE.finditer(strip_citations(text))})
