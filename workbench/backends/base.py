"""The interface every backend implements. Backends propose; the pipeline checks:
quotes are anchored by workbench.pdf, citations validated by pipeline.quality. The data they
exchange (Chunk, Candidate, Draft, StageUsage) is shared vocabulary in workbench.models."""

from __future__ import annotations

from typing import Any, Protocol

from workbench.models import Candidate, Chunk, Draft, Evidence, SentenceSupport, StageUsage, Verification


class Backend(Protocol):
    name: str

    def extract(self, question: str | None, chunks: list[Chunk], context: ExtractContext) -> list[Candidate]:
        """Verbatim requirement quotes from the chunks; question None inventories all."""

    def verify(self, question: str, evidence: list[Evidence]) -> list[Verification]:
        """One verdict per evidence item (seed 000's three criteria)."""

    def support(self, sentences: list[str], evidence: list[Evidence]) -> list[SentenceSupport]:
        """Seed 004's validate step: is each sentence supported by the evidence it may cite?"""

    def claim_support(self, claim: str, evidence_texts: list[str]) -> tuple[bool, float, str]:
        """(supported, score in [0, 1], reason): one claim against evidence spans already found
        (`workbench verify`); no evidence → unsupported."""

    def usage(self) -> dict[str, StageUsage]:
        """Cost per stage since the backend was made (for the audit trail)."""


class Composer(Protocol):
    """A backend that writes answers itself (an LLM). One without `compose` (the offline backend)
    gets the pipeline's answer composed from the verified quotes (workbench.pipeline.compose)."""

    def compose(self, question: str, verified: list[Evidence], feedback: list[str] | None = None) -> Draft:
        """An answer only from verified evidence, every statement citing [REQ-…] IDs.
        `feedback` carries quality-review findings on a revise pass."""


class ExtractContext(Protocol):
    """What extract may read besides the chunks: the parsed documents by id."""

    def sentences(self, document_id: str, start: int, end: int) -> list[tuple[int, int, str]]:
        """(start, end, text) of the document's sentences/clauses overlapping [start, end)."""

    def heading_at(self, document_id: str, offset: int) -> str | None: ...

    def sentence_before(self, document_id: str, start: int) -> tuple[int, int, str] | None:
        """The sentence right before `start` in the same run of text, if any."""

    def documents(self) -> list[Any]:
        """The parsed documents being asked about."""

    retriever: Any  # segment search (search_segments) over them, or None
