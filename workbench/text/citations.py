"""Evidence IDs and inline citations. An ID is REQ-, a source-type prefix (S, P, C, R, O; an X
after it marks a quote that was never anchored) and digits: REQ-S001, REQ-CX002. The store
writes three or more digits; a shorter one a model invents (REQ-S00) is still read as an ID, so
that it is reported and removed as unknown rather than left in the answer as plain text.
Answer sentences are cited as SENT-n. One definition, used by the pipeline, the backends, the
export gate, the store and the UI (whose JavaScript twin is built from ID_PATTERN)."""

from __future__ import annotations

import re

ID_PATTERN = r"REQ-[A-Z]{1,2}\d+"
ID_RE = re.compile(ID_PATTERN)
SENTENCE_ID_PATTERN = r"SENT-\d+"
SENTENCE_ID = re.compile(r"^SENT-(\d+)$")  # an answer sentence, 1-based: SENT-1 is the first
# A bracket group that holds at least one evidence ID: "[REQ-S001]", "[REQ-S001, REQ-P002]".
CITATION_RE = re.compile(r"\[\s*REQ-[^\]]*\]")


def cited_ids(text: str) -> list[str]:
    """Evidence IDs cited inside [..] groups, in order of first appearance."""
    out: list[str] = []
    for group in CITATION_RE.findall(text):
        for i in ID_RE.findall(group):
            if i not in out:
                out.append(i)
    return out


def mentioned_ids(text: str) -> list[str]:
    """Every evidence ID in the text, cited in [..] or bare, in order of first appearance."""
    return list(dict.fromkeys(ID_RE.findall(text)))


def remove_ids(text: str, bad: set[str]) -> str:
    """The text with the given IDs taken out of their [..] groups (empty groups vanish; each
    group is rewritten as "[A, B]", once per ID) and out of loose mentions; white space and the
    space before punctuation tidied."""

    def fix(m: re.Match[str]) -> str:
        keep = [i for i in dict.fromkeys(ID_RE.findall(m.group(0))) if i not in bad]
        return f"[{', '.join(keep)}]" if keep else ""

    out = CITATION_RE.sub(fix, text)
    out = ID_RE.sub(lambda m: "" if m.group(0) in bad else m.group(0), out)  # loose mentions too
    out = re.sub(r"\s+([.,;:!?])", r"\1", out)
    return " ".join(out.split())


def strip_citations(text: str) -> str:
    """The sentence without its [REQ-…] groups (for judging what it claims)."""
    return re.sub(r"\s+([.,;:!?])", r"\1", " ".join(CITATION_RE.sub(" ", text).split()))
