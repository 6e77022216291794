"""Evidence IDs: stable per (document, span), new ones continue the sequence (seed 002).

The pipeline asks an `IdAssigner` for IDs so it does not depend on the store; the store's
`Store` satisfies the protocol as is, and `MemoryIds` serves tests and one-off runs."""

from __future__ import annotations

from typing import Protocol

from workbench.models import ID_PREFIX


class IdAssigner(Protocol):
    def assign_evidence_id(self, document_id: str, start: int, end: int, source_type: str) -> str:
        """The ID of this (document, span): the same one every time it is asked."""


class MemoryIds:
    """In-memory IdAssigner: REQ-S001, REQ-S002… per source-type prefix, stable per span."""

    def __init__(self) -> None:
        self._ids: dict[tuple[str, int, int], str] = {}
        self._next: dict[str, int] = {}

    def assign_evidence_id(self, document_id: str, start: int, end: int, source_type: str) -> str:
        key = (document_id, start, end)
        if key not in self._ids:
            prefix = ID_PREFIX.get(source_type, ID_PREFIX["other"])
            n = self._next.get(prefix, 0) + 1
            self._next[prefix] = n
            self._ids[key] = f"REQ-{prefix}{n:03d}"
        return self._ids[key]


def unanchored_id(source_type: str, n: int) -> str:
    """A run-local ID for a quote that could not be found in any document. It never gets a
    span, so it can never be verified or cited; the X keeps it apart from stable IDs."""
    return f"REQ-{ID_PREFIX.get(source_type, ID_PREFIX['other'])}X{n:03d}"
