"""The interface every backend implements. Backends propose; the pipeline checks:
quotes are anchored by workbench.pdf, citations validated by pipeline.quality."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, Field

from workbench.models import Confidence, Evidence, RequirementReference, SentenceSupport, Verification


class Chunk(BaseModel):
    """A retrieved piece of one document; start/end index that document's text."""

    chunk_id: str
    document_id: str
    start: int
    end: int
    text: str
    page: int
    section_heading: str | None = None
    score: float = 0.0


class Candidate(BaseModel):
    """An extracted quote before the pipeline anchors it in the PDF and gives it an ID.
    `start`/`end` are set when the backend knows the exact offsets (rules); otherwise the
    pipeline searches the document for `exact_quote`."""

    exact_quote: str
    chunk_id: str
    document_id: str
    section_heading: str | None = None
    extraction_confidence: Confidence = "medium"
    start: int | None = None
    end: int | None = None


class Draft(BaseModel):
    final_answer: str
    requirement_references: list[RequirementReference] = Field(default_factory=list)
    unused_requirements: list[str] = Field(default_factory=list)


class StageUsage(BaseModel):
    """What one backend call cost; LLM backends fill it in, rules leaves zeros."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    calls: int = 0
    raw_failures: list[str] = Field(default_factory=list)


class Backend(Protocol):
    name: str

    def extract(self, question: str | None, chunks: list[Chunk], context: ExtractContext) -> list[Candidate]:
        """Verbatim requirement quotes from the chunks; question None inventories all."""

    def verify(self, question: str, evidence: list[Evidence], vocabulary: frozenset[str] | None = None
               ) -> list[Verification]:
        """One verdict per evidence item (seed 000's three criteria). `vocabulary`: the searched
        documents' stemmed terms (judge.document_vocabulary), so a question word the documents
        never use does not count against every quote."""

    def compose(self, question: str, verified: list[Evidence], feedback: list[str] | None = None) -> Draft:
        """An answer only from verified evidence, every statement citing [REQ-…] IDs.
        `feedback` carries quality-review findings on a revise pass."""

    def support(self, sentences: list[str], evidence: list[Evidence]) -> list[SentenceSupport]:
        """Seed 004's validate step: is each sentence supported by the evidence it may cite?"""

    def usage(self) -> dict[str, StageUsage]:
        """Cost per stage since the backend was made (for the audit trail)."""


class ExtractContext(Protocol):
    """What extract may read besides the chunks: the parsed documents by id."""

    def sentences(self, document_id: str, start: int, end: int) -> list[tuple[int, int, str]]:
        """(start, end, text) of the document's sentences/clauses overlapping [start, end)."""

    def heading_at(self, document_id: str, offset: int) -> str | None: ...
