"""Anchor extracted candidates in their documents: a quote counts only with a span whose
text is the document's own text (DESIGN: quotes are validated, never trusted)."""

from __future__ import annotations

from workbench.models import Candidate, Evidence, ParsedDoc, Span, Verification, sha256_text
from workbench.pipeline.ids import IdAssigner, unanchored_id

_EDGE = " \t\n\r.,;:!?\"'()[]\u2018\u2019\u201c\u201d\u2013\u2014-"


def _same_words(a: str, b: str) -> bool:
    return a.split() == b.split()


def find_span(candidate: Candidate, docs: dict[str, ParsedDoc]) -> tuple[ParsedDoc, Span] | None:
    """The candidate's span: its offsets when they hold its words, else the document's
    locate() of the quote (its own document first, then the others), else None."""
    doc = docs.get(candidate.document_id)
    if doc is not None and candidate.start is not None and candidate.end is not None:
        s, e = candidate.start, candidate.end
        if 0 <= s < e <= len(doc.text) and _same_words(doc.text[s:e], candidate.exact_quote):
            return doc, doc.span(s, e)
    order = ([doc] if doc is not None else []) + [d for i, d in docs.items() if i != candidate.document_id]
    for d in order:
        span = d.locate(candidate.exact_quote)
        if span is not None:
            return d, _with_edges(d, span, candidate.exact_quote)
    return None


_HEAD = "(\"'[\u2018\u201c"
_TAIL = ".,;:!?\"')]\u2019\u201d"


def _with_edges(doc: ParsedDoc, span: Span, quote: str) -> Span:
    """The located span widened over the punctuation the quote opens or ends with where the
    document has it too ("… (very low certainty of evidence)." stays whole): the locator matches
    words, and a quote anchored without its closing ")." reads, and is judged, as another text
    than the same quote given by its offsets."""
    if doc.text[span.start:span.end] != span.text:
        return span
    q = quote.strip()
    head, tail = q[:len(q) - len(q.lstrip(_HEAD))], q[len(q.rstrip(_TAIL)):]
    s, e = span.start, span.end
    if head and doc.text[max(0, s - len(head)):s] == head:
        s -= len(head)
    if tail and doc.text[e:e + len(tail)] == tail:
        e += len(tail)
    return span if (s, e) == (span.start, span.end) else doc.span(s, e)


def _core(span: Span) -> tuple[str, int, int]:
    """A span's identity for de-duplication: its bounds without edge punctuation or spaces, so
    "… systems." from offsets and "… systems" from locate() are one evidence item."""
    text = span.text
    lead = len(text) - len(text.lstrip(_EDGE))
    trail = len(text) - len(text.rstrip(_EDGE))
    return span.document_id, span.start + lead, span.end - trail


def anchor(candidates: list[Candidate], docs: dict[str, ParsedDoc], ids: IdAssigner,
           source_type: str | None = None) -> tuple[list[Evidence], list[Verification]]:
    """Evidence for every candidate (identical spans once), and a quote_not_found verdict for
    each one that could not be anchored. `exact_quote` is always the span's text."""
    evidence: list[Evidence] = []
    rejected: list[Verification] = []
    seen: set[tuple[str, int, int]] = set()
    seen_missing: set[str] = set()
    for c in candidates:
        found = find_span(c, docs)
        if found is None:
            q = " ".join(c.exact_quote.split())
            if q in seen_missing:
                continue
            seen_missing.add(q)
            doc = docs.get(c.document_id)
            st = source_type or (doc.document.source_type if doc is not None else "other")
            rid = unanchored_id(st, len(seen_missing))
            evidence.append(Evidence(requirement_id=rid, source_type=st, document_id=c.document_id,
                                     section_heading=c.section_heading, exact_quote=c.exact_quote,
                                     chunk_id=c.chunk_id, extraction_confidence=c.extraction_confidence))
            rejected.append(Verification(requirement_id=rid, verified=False, rejection_reason="quote_not_found",
                                         verification_rationale="The quote was not found verbatim in the document "
                                         "text (after whitespace, hyphenation and ligature normalisation).",
                                         score=0.0, verifier="pipeline"))
            continue
        doc, span = found
        key = _core(span)
        if key in seen:
            continue
        seen.add(key)
        st = source_type or doc.document.source_type
        rid = ids.assign_evidence_id(span.document_id, span.start, span.end, st)
        heading = c.section_heading if span.document_id == c.document_id else None
        evidence.append(Evidence(requirement_id=rid, source_type=st, document_id=span.document_id,
                                 section_heading=heading or doc.heading_at(span.start), exact_quote=span.text,
                                 chunk_id=c.chunk_id, extraction_confidence=c.extraction_confidence, span=span))
    return evidence, rejected


def integrity_ok(evidence: Evidence, docs: dict[str, ParsedDoc]) -> bool:
    """The document's text at the span is the quote, and the stored hash is its SHA-256."""
    s = evidence.span
    doc = docs.get(evidence.document_id)
    if s is None or doc is None:
        return False
    text = doc.text[s.start:s.end]
    return text == evidence.exact_quote == s.text and sha256_text(text) == s.text_sha256
