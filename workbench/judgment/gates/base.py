"""What a gate reads and what it says: the same input for every backend (the quote, the judge's
relevance, the unit facts carried on the evidence item), so two backends cannot judge one quote
two ways."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workbench.models import RejectionReason, UnitInfo

if TYPE_CHECKING:
    from workbench.judgment.topics import KindReading
    from workbench.text.weights import TermWeights


@dataclass(frozen=True)
class QuoteInput:
    question: str
    quote: str  # whitespace-normalised
    relevance: float  # the judge's P(answers the question), read after the unit's lead-in
    unit: UnitInfo = field(default_factory=UnitInfo)
    relevant: float = 0.5  # Settings.judgment.relevant
    source_type: str = ""  # the evidence item's (models.SOURCE_TYPES): some gates read only some kinds of text
    weights: TermWeights | None = None  # the document's TermWeights (text.weights), where known: which words are specific to it
    kinds: KindReading | None = None  # the clause-topic model's reading of (question, quote), for a contract's quote


@dataclass(frozen=True)
class GateResult:
    gate: str  # the gate's name, as in Settings.judgment.gates
    reason: RejectionReason
    rationale: str
    keeps_score: bool = False  # the verdict's score stays the relevance (else × rejected_score_factor)
