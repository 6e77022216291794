"""Background jobs behind one seam: `submit`, `get`, `list`, `events`, `wait`.

- `WORKBENCH_QUEUE_URL` unset: `InProcessQueue`, a thread in this process (the embedded default:
  a run outlives the page that started it, not the process).
- set to a Redis URL: `RqQueue`, jobs on an RQ queue for `workbench worker` processes, records
  and stage events in Redis where every process (app, CLI, workers) reads them.

Why RQ: Redis only (already part of the team setup), plain Python functions as jobs, custom job
ids (a job's runs are stored once, keyed by it), retries, and registries that notice a worker
that died mid-job (its heartbeat stops) and hand the job to another worker. Dramatiq would do
too; Celery's Redis transport only redelivers an unacknowledged job after its visibility
timeout (an hour by default) and brings far more machinery than four job kinds need.

A job is a kind from the closed list (JobKind) and JSON arguments, never a function or an
object: on RQ it travels signed (workbench.jobs.envelope) and a worker refuses a record the
queue key does not sign; no secret (a PDF password) is put in a job (service.submit opens such
a PDF in the submitting process and queues its stored id)."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from workbench.errors import NotFoundError, WorkbenchError
from workbench.jobs.common import DONE, failure_message, new_job_id
from workbench.models import Identity, JobInfo, JobKind, StageEvent, utcnow


class JobQueue(Protocol):
    def submit(self, kind: JobKind, payload: dict[str, Any], identity: Identity | None = None) -> JobInfo: ...
    def get(self, job_id: str) -> JobInfo: ...
    def list(self) -> list[JobInfo]: ...
    def events(self, job_id: str) -> list[StageEvent]: ...


def wait(queue: JobQueue, job_ids: list[str], timeout: float | None = None, poll: float = 0.5) -> list[JobInfo]:
    """The jobs once all are finished or failed, or as they stand when `timeout` seconds passed."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        infos = [queue.get(j) for j in job_ids]
        if all(i.status in DONE for i in infos) or (deadline is not None and time.monotonic() >= deadline):
            return infos
        time.sleep(poll)


class InProcessQueue:
    """Jobs on one background thread of this process, in submission order; records in memory
    (every job not ended, and the last `keep` jobs)."""

    def __init__(self, workbench, keep: int = 200):
        self.wb = workbench
        self.keep = keep
        self._jobs: OrderedDict[str, JobInfo] = OrderedDict()
        self._events: dict[str, list[StageEvent]] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="workbench-job")

    def submit(self, kind: JobKind, payload: dict[str, Any], identity: Identity | None = None) -> JobInfo:
        info = JobInfo(job_id=new_job_id(), kind=kind, document_ids=list(payload.get("document_ids") or []),
                       requested_by=identity)
        with self._lock:
            self._jobs[info.job_id] = info
            self._events[info.job_id] = []
            # forget the oldest ended jobs beyond `keep`; a queued or running one is never forgotten
            # (it would never run: a review table queues hundreds of cells at once)
            ended = [j for j, i in self._jobs.items() if i.status in DONE]
            for old in ended[:max(0, len(self._jobs) - self.keep)]:
                del self._jobs[old]
                self._events.pop(old, None)
        self._pool.submit(self._run, info.job_id, payload)
        return info

    def _set(self, job_id: str, **fields: Any) -> None:
        with self._lock:
            if job_id in self._jobs:
                self._jobs[job_id] = self._jobs[job_id].model_copy(update=fields)

    def _run(self, job_id: str, payload: dict[str, Any]) -> None:
        from workbench.jobs.tasks import perform

        self._set(job_id, status="running", started_at=utcnow(), attempts=1)
        try:
            done = perform(self.wb, self.get(job_id), payload, lambda ev: self._event(job_id, ev),
                           lambda **f: self._set(job_id, **f))
            self._set(job_id, **{**done.model_dump(include={"document_ids", "run_ids", "result"}),
                                 "status": "finished", "progress": 1.0, "ended_at": utcnow()})
        except Exception as exc:  # noqa: BLE001 - a failed job says why; the thread lives on
            self._set(job_id, status="failed", error=failure_message(exc), ended_at=utcnow())

    def _event(self, job_id: str, ev: StageEvent) -> None:
        with self._lock:
            self._events.setdefault(job_id, []).append(ev)

    def get(self, job_id: str) -> JobInfo:
        with self._lock:
            info = self._jobs.get(job_id)
        if info is None:
            raise NotFoundError(f"no job {job_id!r} in this process: `workbench jobs` lists the known jobs")
        return info

    def list(self) -> list[JobInfo]:
        with self._lock:
            return list(reversed(self._jobs.values()))

    def events(self, job_id: str) -> list[StageEvent]:
        self.get(job_id)
        with self._lock:
            return list(self._events.get(job_id, []))


def get_queue(settings, workbench=None) -> JobQueue:
    """The queue the settings name: RQ on Redis when queue_url is set, else in this process."""
    if settings.queue_url:
        from workbench.jobs.rq_queue import RqQueue

        return RqQueue(settings)
    if workbench is None:
        raise WorkbenchError("in-process jobs need the workspace that runs them")
    return InProcessQueue(workbench)
