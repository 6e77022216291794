"""Text helpers the stages share: answer sentences, inline [REQ-…] citations, speculative
language (seed 001's list) and word counting."""

from __future__ import annotations

import re

ID_RE = re.compile(r"REQ-[A-Z]+\d+")
# A bracket group that holds at least one evidence ID: "[REQ-S001]", "[REQ-S001, REQ-P002]".
CITATION_RE = re.compile(r"\[\s*REQ-[^\]]*\]")

# Seed 001's speculative terms, plus their closest kin. "may" alone is a legal modal
# ("may not" is a prohibition), so it is not on the list; "may be" is.
SPECULATIVE_TERMS: tuple[str, ...] = (
    "likely", "unlikely", "probably", "might", "could be", "appears to", "appear to", "seems to",
    "seem to", "possibly", "perhaps", "presumably", "may be", "it is believed", "arguably",
)
_SPECULATIVE_RE = re.compile(r"\b(" + "|".join(re.escape(t) for t in SPECULATIVE_TERMS) + r")\b", re.IGNORECASE)

_ABBREVIATIONS = {
    "e.g", "i.e", "etc", "cf", "vs", "no", "nos", "sec", "secs", "art", "u.s", "u.s.c", "inc", "ltd",
    "co", "corp", "fig", "vol", "pp", "para", "st", "dr", "mr", "mrs", "ms", "jr", "sr", "approx",
    "incl", "al", "ch", "pt", "subpt", "op", "p", "c.f.r", "cfr", "u.k", "e.u", "rev",
}
_BOUNDARY = re.compile(r"[.!?]['\"\u201d\u2019)]*(?=\s+|$)")


def cited_ids(text: str) -> list[str]:
    """Evidence IDs cited inside [..] groups, in order of first appearance."""
    out: list[str] = []
    for group in CITATION_RE.findall(text):
        for i in ID_RE.findall(group):
            if i not in out:
                out.append(i)
    return out


def strip_citations(text: str) -> str:
    """The sentence without its [REQ-…] groups (for judging what it claims)."""
    return re.sub(r"\s+([.,;:!?])", r"\1", " ".join(CITATION_RE.sub(" ", text).split()))


def speculative_terms(text: str) -> list[str]:
    return sorted({m.group(1).lower() for m in _SPECULATIVE_RE.finditer(strip_citations(text))})


def split_sentences(text: str) -> list[str]:
    """Sentences of a composed answer. A boundary is . ! or ? followed by space or the end,
    except after common abbreviations, single initials and inside section numbers (3.1.12)."""
    text = " ".join(text.split())
    out: list[str] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        end = m.end()
        before = text[start:m.start()].rsplit(" ", 1)[-1].lower().lstrip("([\"'")
        if m.group(0)[0] == "." and (before in _ABBREVIATIONS or (len(before) == 1 and before.isalpha())):
            continue
        rest = text[end:].lstrip()
        if rest and not (rest[0].isupper() or rest[0].isdigit() or rest[0] in "\"'(\u201c["):
            continue
        piece = text[start:end].strip()
        if piece:
            out.append(piece)
        start = end
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


def words(text: str) -> list[str]:
    return text.split()


def word_count(text: str) -> int:
    return len(text.split())
