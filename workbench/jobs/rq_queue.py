"""Jobs on RQ (Redis): the app and the CLI enqueue, `workbench worker` processes run them.

Keys, all under the queue name (one per workspace sharing a Redis; tests use their own):
`<name>:job:<id>` the JobInfo JSON, `<name>:job:<id>:events` its stage events (a list),
`<name>:jobs` the ids by submission time. RQ keeps its own keys (`rq:job:<id>`, `rq:wip:<name>`…).

A job runs in the worker process itself (RQ's SimpleWorker: the embedding model and parsed
documents stay loaded between jobs). While it runs, a thread renews the worker's heartbeat every
HEARTBEAT_S seconds; when a worker dies (SIGKILL, power loss) the heartbeat lapses after
HEARTBEAT_TTL seconds, and the next maintenance pass of any other worker (every
MAINTENANCE_S seconds) finds the job abandoned and, as each job may be retried once, queues it
again. Runs are keyed by the job id (workbench.jobs.tasks), so the second attempt stores each
run once. A job that fails for a reason of its own (a bad PDF, no question) is not retried: its
record says why."""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from redis import Redis
from rq import Queue, Retry, SimpleWorker
from rq.exceptions import NoSuchJobError
from rq.job import Job

from workbench.errors import NotFoundError, WorkbenchError
from workbench.jobs import DONE, failure_message, new_job_id
from workbench.models import JobInfo, JobKind, StageEvent, utcnow
from workbench.redact import redact, redact_url

log = logging.getLogger(__name__)

HEARTBEAT_S = 2
HEARTBEAT_TTL = 10  # a worker silent this long is dead
MAINTENANCE_S = 5  # how often an idle worker looks for abandoned jobs
RECORD_TTL = 14 * 24 * 3600  # job records and events are kept two weeks


def connect(url: str) -> Redis:
    try:
        conn = Redis.from_url(url, socket_connect_timeout=5)
        conn.ping()
    except Exception as exc:  # noqa: BLE001 - any connection problem is one line for the user
        raise WorkbenchError(f"cannot reach the job queue at {redact_url(url)} ({type(exc).__name__}: "
                             f"{redact(str(exc), url)}); start Redis or unset WORKBENCH_QUEUE_URL to run jobs "
                             "in this process") from None
    return conn


class Records:
    """JobInfo records and stage events in Redis."""

    def __init__(self, conn: Redis, name: str):
        self.conn, self.name = conn, name

    def key(self, job_id: str) -> str:
        return f"{self.name}:job:{job_id}"

    def save(self, info: JobInfo) -> None:
        self.conn.set(self.key(info.job_id), info.model_dump_json(), ex=RECORD_TTL)

    def load(self, job_id: str) -> JobInfo | None:
        raw = self.conn.get(self.key(job_id))
        return JobInfo.model_validate_json(raw) if raw else None

    def update(self, job_id: str, **fields: Any) -> JobInfo:
        info = self.load(job_id)
        if info is None:
            raise NotFoundError(f"no job {job_id!r}")
        info = info.model_copy(update=fields)
        self.save(info)
        return info

    def add_event(self, job_id: str, ev: StageEvent) -> None:
        k = f"{self.key(job_id)}:events"
        self.conn.rpush(k, ev.model_dump_json())
        self.conn.expire(k, RECORD_TTL)

    def events(self, job_id: str) -> list[StageEvent]:
        return [StageEvent.model_validate_json(r) for r in self.conn.lrange(f"{self.key(job_id)}:events", 0, -1)]

    def index(self, info: JobInfo) -> None:
        self.conn.zadd(f"{self.name}:jobs", {info.job_id: info.created_at.timestamp()})

    def ids(self) -> list[str]:
        return [i.decode() for i in self.conn.zrevrange(f"{self.name}:jobs", 0, -1)]


class RqQueue:
    """The JobQueue seam on RQ."""

    def __init__(self, settings):
        self.settings = settings
        self.conn = connect(settings.queue_url)
        self.queue = Queue(settings.queue_name, connection=self.conn)
        self.records = Records(self.conn, settings.queue_name)

    def submit(self, kind: JobKind, payload: dict[str, Any]) -> JobInfo:
        info = JobInfo(job_id=new_job_id(), kind=kind, document_ids=list(payload.get("document_ids") or []))
        self.records.save(info)
        self.records.index(info)
        self.queue.enqueue("workbench.jobs.rq_queue.perform_job", info.job_id, self.settings.queue_name, kind, payload,
                           job_id=info.job_id, retry=Retry(max=1), job_timeout=self.settings.job_timeout,
                           on_failure=on_failure, result_ttl=RECORD_TTL, failure_ttl=RECORD_TTL,
                           description=f"workbench {kind} {info.job_id}")
        return info

    def get(self, job_id: str) -> JobInfo:
        info = self.records.load(job_id)
        if info is None:
            raise NotFoundError(f"no job {job_id!r} on queue {self.settings.queue_name}: `workbench jobs` lists them")
        if info.status not in DONE:
            info = self._reconcile(info)
        return info

    def _reconcile(self, info: JobInfo) -> JobInfo:
        """RQ knows first when a job it could not run ended: say so in the record too."""
        try:
            status = Job.fetch(info.job_id, connection=self.conn).get_status(refresh=True)
        except NoSuchJobError:
            return info
        if status in ("failed", "stopped", "canceled") and info.status != "failed":
            return self.records.update(info.job_id, status="failed", ended_at=utcnow(),
                                       error=info.error or f"the job was {status} by the queue")
        return info

    def list(self) -> list[JobInfo]:
        out = []
        for j in self.records.ids():
            try:
                out.append(self.get(j))
            except NotFoundError:  # expired record
                continue
        return out

    def events(self, job_id: str) -> list[StageEvent]:
        self.get(job_id)
        return self.records.events(job_id)


# --- the worker side -------------------------------------------------------------------------
_workbench = None


def _worker_workbench():
    """One Workbench per worker process, from the worker's settings (environment / TOML): the
    worker is an entry point, so it loads them."""
    global _workbench
    if _workbench is None:
        from workbench.config import get_settings
        from workbench.service import Workbench

        _workbench = Workbench(get_settings())
    return _workbench


def perform_job(job_id: str, queue_name: str, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """The RQ job function: runs the job body, keeping its record and events up to date."""
    from rq import get_current_job

    from workbench.jobs.tasks import perform

    conn = get_current_job().connection
    records = Records(conn, queue_name)
    info = records.load(job_id) or JobInfo(job_id=job_id, kind=kind)  # type: ignore[arg-type]
    info = info.model_copy(update={"status": "running", "started_at": utcnow(), "attempts": info.attempts + 1,
                                   "error": None})
    records.save(info)
    if info.attempts > 1:
        records.add_event(job_id, StageEvent(stage="retrieval", status="progress",
                                             message=f"attempt {info.attempts}: started again after the first attempt stopped"))
    try:
        done = perform(_worker_workbench(), info, payload, lambda ev: records.add_event(job_id, ev),
                       lambda **f: records.update(job_id, **f))
    except WorkbenchError as exc:  # the input's fault: retrying cannot help, say why
        records.update(job_id, status="failed", error=failure_message(exc), ended_at=utcnow())
        return {"failed": failure_message(exc)}
    records.update(job_id, status="finished", progress=1.0, ended_at=utcnow(), document_ids=done.document_ids,
                   run_ids=done.run_ids, result=done.result, message="finished")
    return {"run_ids": done.run_ids}


def on_failure(job: Job, connection: Redis, exc_type, exc_value, tb) -> None:
    """RQ calls this when an attempt failed or its worker was found dead, before it retries."""
    queue_name = job.origin
    records = Records(connection, queue_name)
    job_id = job.id
    if records.load(job_id) is None:
        return
    from rq.exceptions import AbandonedJobError

    why = ("the worker running it stopped (killed or crashed)" if exc_type is AbandonedJobError
           else failure_message(exc_value) if exc_value is not None else "it failed")
    if job.retries_left and job.retries_left > 0:
        records.update(job_id, status="queued", message=f"attempt failed: {why}; queued again")
    else:
        records.update(job_id, status="failed", error=why, ended_at=utcnow())


class WorkbenchWorker(SimpleWorker):
    """Runs jobs in this process and keeps its heartbeat alive while a job runs (so only a dead
    worker's job is taken for abandoned, and quickly)."""

    def get_heartbeat_ttl(self, job: Job) -> int:
        return HEARTBEAT_TTL

    def execute_job(self, job: Job, queue: Queue):
        stop = threading.Event()

        def beat() -> None:
            while not stop.wait(HEARTBEAT_S):
                try:
                    self.maintain_heartbeats(job)
                except Exception:  # noqa: BLE001 - a missed beat is retried on the next tick
                    log.warning("heartbeat failed", exc_info=True)

        t = threading.Thread(target=beat, name="workbench-heartbeat", daemon=True)
        t.start()
        try:
            return super().execute_job(job, queue)
        finally:
            stop.set()
            t.join()


def run_worker(settings, burst: bool = False) -> bool:
    """`workbench worker`: work the queue (until it is empty with burst). Loads the embedding
    model before the first job so every job finds it warm."""
    conn = connect(settings.queue_url)
    _worker_workbench().retriever.embedder.embed(["warm up"])
    worker = WorkbenchWorker([Queue(settings.queue_name, connection=conn)], connection=conn,
                             name=f"workbench-{os.uname().nodename}-{os.getpid()}", worker_ttl=HEARTBEAT_TTL + 10,
                             maintenance_interval=MAINTENANCE_S)
    return worker.work(burst=burst, logging_level="WARNING", with_scheduler=False)
