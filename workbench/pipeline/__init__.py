"""The stages: Retrieval → Extract → Verify → Compose → Quality Review → Finalize (seed 000).
`run_question` runs one question and returns a complete models.Run."""

from workbench.pipeline.ids import IdAssigner, MemoryIds
from workbench.pipeline.run import run_question

__all__ = ["IdAssigner", "MemoryIds", "run_question"]
