"""Stage progress as models.StageEvent, timed, for a UI to show live."""

from __future__ import annotations

import time
from collections.abc import Callable

from workbench.models import StageEvent

OnEvent = Callable[[StageEvent], None] | None


class StageClock:
    """Emits started / progress / done|failed|skipped for the stages of one question and keeps
    each stage's elapsed seconds (summed over revise passes)."""

    def __init__(self, on_event: OnEvent, question_index: int = 0, question_total: int = 1):
        self.on_event = on_event
        self.qi, self.qt = question_index, question_total
        self.timings: dict[str, float] = {}
        self._stage: str | None = None
        self._t0 = 0.0

    def _emit(self, stage: str, status: str, counts: dict[str, int] | None, message: str) -> None:
        if self.on_event is not None:
            self.on_event(StageEvent(stage=stage, status=status, counts=counts or {}, elapsed=self.elapsed(),
                                     message=message, question_index=self.qi, question_total=self.qt))

    def elapsed(self) -> float:
        return round(time.perf_counter() - self._t0, 4) if self._stage else 0.0

    def start(self, stage: str, message: str = "") -> None:
        self._stage, self._t0 = stage, time.perf_counter()
        self._emit(stage, "started", None, message)

    def progress(self, counts: dict[str, int], message: str = "") -> None:
        assert self._stage is not None
        self._emit(self._stage, "progress", counts, message)

    def end(self, counts: dict[str, int] | None = None, message: str = "", status: str = "done") -> None:
        assert self._stage is not None
        stage = self._stage
        self._emit(stage, status, counts, message)
        self.timings[stage] = round(self.timings.get(stage, 0.0) + self.elapsed(), 4)
        self._stage = None

    def skip(self, stage: str, message: str) -> None:
        self._stage, self._t0 = stage, time.perf_counter()
        self._emit(stage, "skipped", None, message)
        self._stage = None
