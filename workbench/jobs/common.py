"""What every queue shares (the in-process one and RQ's): job ids, when a job is over, and the
one line a failed job says. Kept apart from the package's seam so the queues import it, not
each other."""

from __future__ import annotations

import uuid

from workbench.errors import WorkbenchError

DONE = ("finished", "failed")


def new_job_id() -> str:
    return uuid.uuid4().hex[:16]


def failure_message(exc: BaseException) -> str:
    """One line a reviewer can act on: our errors are worded for people already."""
    if isinstance(exc, WorkbenchError):
        return " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:500]}"
