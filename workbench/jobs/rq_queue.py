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
record says why.

A job is data, never code (workbench.jobs.envelope): RQ is configured with its JSON serializer
(nothing read from Redis is unpickled, in the workers or the app) and with WorkbenchJob, which
authenticates each job record as it is read from Redis, before RQ parses it, and calls no
function, callback or webhook but ours. A record that fails is refused: not run, marked failed
and refused in `workbench jobs` with the reason, and logged on the "workbench.security" logger."""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from redis import Redis
from rq import Queue, Retry, SimpleWorker
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from workbench.errors import NotFoundError, WorkbenchError
from workbench.jobs.common import DONE, failure_message, new_job_id
from workbench.jobs.envelope import (
    ON_FAILURE,
    PERFORM,
    Envelope,
    JobRefused,
    open_record,
    open_sealed,
    open_signed_record,
    queue_key,
    seal,
    sign_record,
)
from workbench.models import Identity, JobInfo, JobKind, StageEvent, utcnow
from workbench.redact import redact, redact_url

log = logging.getLogger(__name__)
security = logging.getLogger("workbench.security")

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
    """JobInfo records and stage events in Redis, each signed with the queue key
    (envelope.sign_record): what `workbench jobs` shows was written by a key holder (the app, the
    CLI, a worker), and a record written or altered by anyone else says so instead."""

    def __init__(self, conn: Redis, name: str, signing_key: bytes):
        self.conn, self.name, self.signing_key = conn, name, signing_key

    def key(self, job_id: str) -> str:
        return f"{self.name}:job:{job_id}"

    def save(self, info: JobInfo) -> None:
        self.conn.set(self.key(info.job_id), sign_record(self.signing_key, info.job_id, info.model_dump_json()),
                      ex=RECORD_TTL)

    def load(self, job_id: str) -> JobInfo | None:
        raw = self.conn.get(self.key(job_id))
        if not raw:
            return None
        text = open_signed_record(self.signing_key, job_id, raw)
        try:
            if text is not None:
                return JobInfo.model_validate_json(text)
        except ValueError:
            pass
        security.warning("job record %s on queue %s is not signed with the queue key: not shown", job_id, self.name)
        return JobInfo(job_id=job_id, kind="unknown", status="failed",
                       error="its record in Redis is not signed with the queue key (written or altered by someone "
                             "without it): what it said is not shown")

    def update(self, job_id: str, **fields: Any) -> JobInfo:
        info = self.load(job_id)
        if info is None:
            raise NotFoundError(f"no job {job_id!r}")
        info = info.model_copy(update=fields)
        self.save(info)
        return info

    def add_event(self, job_id: str, ev: StageEvent) -> None:
        k = f"{self.key(job_id)}:events"
        self.conn.rpush(k, sign_record(self.signing_key, job_id, ev.model_dump_json()))
        self.conn.expire(k, RECORD_TTL)

    def events(self, job_id: str) -> list[StageEvent]:
        """The job's signed stage events; any other is left out (and logged)."""
        out = []
        for raw in self.conn.lrange(f"{self.key(job_id)}:events", 0, -1):
            text = open_signed_record(self.signing_key, job_id, raw)
            if text is None:
                security.warning("a stage event of job %s on queue %s is not signed with the queue key: left out",
                                 job_id, self.name)
                continue
            out.append(StageEvent.model_validate_json(text))
        return out

    def index(self, info: JobInfo) -> None:
        self.conn.zadd(f"{self.name}:jobs", {info.job_id: info.created_at.timestamp()})

    def ids(self) -> list[str]:
        return [i.decode() for i in self.conn.zrevrange(f"{self.name}:jobs", 0, -1)]


class WorkbenchJob(Job):
    """RQ's Job, made to run only what the workbench signed: the record is authenticated
    (envelope.open_record) as it is read from Redis, before RQ parses any of it; the one function
    it calls is perform_job, the one callback on_failure, and it sends no webhooks. A record that
    fails keeps nothing of what it held but its origin: `refusal` says why, and the worker
    refuses it (WorkbenchWorker) instead of running it."""

    signing_key: bytes = b""  # the queue key, set on the subclass a process makes (job_class)
    refusal: str | None = None
    envelope: Envelope | None = None

    def restore(self, raw_data) -> None:
        try:
            self.envelope = open_record(self.signing_key, self.id, raw_data)
            super().restore(raw_data)
            return
        except JobRefused as exc:
            self.refusal = str(exc)
        except Exception as exc:  # noqa: BLE001 - signed, but RQ's bookkeeping fields were garbled
            self.refusal = f"refused: its record in Redis cannot be read ({type(exc).__name__}); nothing of it was run"
        self.envelope = None
        origin = raw_data.get(b"origin", b"")
        status = raw_data.get(b"status", b"")
        super().restore({b"data": b"null", b"origin": origin if len(origin) < 200 else b"",
                         b"status": status if status in {s.value.encode() for s in JobStatus} else b"queued"})

    @property
    def func(self):
        if self.refusal or self.envelope is None or self.func_name != PERFORM:
            raise JobRefused(self.refusal or "refused: not a workbench job")
        return perform_job

    @property
    def failure_callback(self):
        return on_failure if not self.refusal and self._failure_callback_name == ON_FAILURE else None

    @property
    def success_callback(self):
        return None

    @property
    def stopped_callback(self):
        return None

    def send_webhooks(self, *args, **kwargs) -> None:
        return None


def job_class(settings) -> type[WorkbenchJob]:
    """WorkbenchJob holding this workspace's queue key."""
    return type("WorkbenchJob", (WorkbenchJob,), {"signing_key": queue_key(settings)})


def rq_queue(settings, conn: Redis) -> Queue:
    """The workspace's RQ queue: JSON, never pickle; jobs read as WorkbenchJob."""
    return Queue(settings.queue_name, connection=conn, serializer=JSONSerializer, job_class=job_class(settings))


class RqQueue:
    """The JobQueue seam on RQ."""

    def __init__(self, settings):
        self.settings = settings
        self.conn = connect(settings.queue_url)
        self.queue = rq_queue(settings, self.conn)
        self.records = Records(self.conn, settings.queue_name, queue_key(settings))

    def submit(self, kind: JobKind, payload: dict[str, Any], identity: Identity | None = None) -> JobInfo:
        """Queue a signed job; `identity` (who asked) travels inside the signature."""
        if payload.get("password"):
            raise WorkbenchError("a PDF password is never queued: open the PDF in this process first")
        info = JobInfo(job_id=new_job_id(), kind=kind, document_ids=list(payload.get("document_ids") or []),
                       requested_by=identity)
        rq = {"description": f"workbench {kind} {info.job_id}", "timeout": self.settings.job_timeout,
              "result_ttl": RECORD_TTL, "failure_ttl": RECORD_TTL, "failure_callback_name": ON_FAILURE}
        sealed = seal(queue_key(self.settings), job_id=info.job_id, queue=self.settings.queue_name, kind=kind,
                      payload=payload, requested_by=identity, rq=rq)
        self.records.save(info)
        self.records.index(info)
        self.queue.enqueue(PERFORM, sealed, job_id=info.job_id, retry=Retry(max=1), job_timeout=self.settings.job_timeout,
                           on_failure=on_failure, result_ttl=RECORD_TTL, failure_ttl=RECORD_TTL,
                           description=rq["description"])
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
        # the status field alone: nothing else of RQ's record is read (or deserialised) here
        raw = self.conn.hget(f"{Job.redis_job_namespace_prefix}{info.job_id}", "status")
        if raw is None:
            return info
        status = raw.decode("utf-8", "replace")
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
_workbench = None  # the worker process's workspace, handed over by run_worker


def _worker_workbench():
    """The one workspace of this worker process (the CLI's `workbench worker` makes it and hands
    it to run_worker: jobs stay below the service and never build one themselves)."""
    if _workbench is None:
        raise RuntimeError("perform_job runs only in a worker started by run_worker")
    return _workbench


def perform_job(sealed: dict[str, Any]) -> dict[str, Any]:
    """The RQ job function: opens the sealed envelope (again: it is the job's only argument),
    re-reads who asked from the store, and runs the job body, keeping its record and events up
    to date. The record says who asked as the envelope proves it, whatever Redis said before."""
    from rq import get_current_job

    from workbench.jobs.tasks import perform

    job = get_current_job()
    wb = _worker_workbench()
    env = open_sealed(queue_key(wb.settings), sealed, job.id)
    if env.queue != job.origin:
        raise JobRefused(f"refused: it was signed for queue {env.queue!r}, not {job.origin!r}")
    job_id, conn = job.id, job.connection
    records = Records(conn, env.queue, queue_key(wb.settings))
    info = records.load(job_id) or JobInfo(job_id=job_id, kind=env.kind)
    try:
        identity = current_identity(wb, env.requested_by)
    except JobRefused as exc:
        refuse_record(records, job_id, str(exc), kind=env.kind)
        return {"failed": str(exc)}
    info = info.model_copy(update={"kind": env.kind, "status": "running", "started_at": utcnow(),
                                   "attempts": info.attempts + 1, "error": None, "requested_by": identity})
    records.save(info)
    payload = env.payload
    if info.attempts > 1:
        records.add_event(job_id, StageEvent(stage="retrieval", status="progress",
                                             message=f"attempt {info.attempts}: started again after the first attempt stopped"))
    try:
        done = perform(wb, info, payload, lambda ev: records.add_event(job_id, ev),
                       lambda **f: records.update(job_id, **f))
    except WorkbenchError as exc:  # the input's fault: retrying cannot help, say why
        records.update(job_id, status="failed", error=failure_message(exc), ended_at=utcnow())
        return {"failed": failure_message(exc)}
    records.update(job_id, status="finished", progress=1.0, ended_at=utcnow(), document_ids=done.document_ids,
                   run_ids=done.run_ids, result=done.result, message="finished")
    return {"run_ids": done.run_ids}


def current_identity(wb, asked: Identity | None) -> Identity | None:
    """Who asked, as the store says now: a local account must still exist and its role is
    re-read (a demotion counts at once); an identity-provider user without an account is a
    reviewer, as at sign-in (service.oidc_identity). Hook for disabled accounts: a user row
    with a true "disabled" is refused once the store has that column."""
    if asked is None:
        return None
    user = wb.store.get_user(asked.name)
    if user is None and asked.via == "local":
        raise JobRefused(f"refused: the account {asked.name!r} that asked for it no longer exists")
    if user is not None and user.get("disabled"):
        raise JobRefused(f"refused: the account {asked.name!r} that asked for it is disabled")
    return asked.model_copy(update={"role": user["role"] if user else "reviewer"})


def refuse_record(records: Records, job_id: str, why: str, kind: str = "unknown") -> None:
    """The job's record says it was refused and why (made if the attacker's job had none), and
    the security log says so too. Nothing it claims (who asked) is kept: nothing proved it."""
    info = records.load(job_id) or JobInfo(job_id=job_id, kind=kind)  # type: ignore[arg-type]
    records.save(info.model_copy(update={"status": "failed", "refused": True, "error": why, "ended_at": utcnow(),
                                         "requested_by": None, "run_ids": [], "message": "refused"}))
    records.index(info)
    security.warning("refused job %s on queue %s: %s", job_id, records.name, why)


def on_failure(job: Job, connection: Redis, exc_type, exc_value, tb) -> None:
    """RQ calls this when an attempt failed or its worker was found dead, before it retries."""
    if not isinstance(job, WorkbenchJob) or not job.signing_key:
        return
    records = Records(connection, job.origin, job.signing_key)
    job_id = job.id
    if records.load(job_id) is None:
        return
    if exc_type is JobRefused:  # raised before the job ran: running it again cannot help
        job.retries_left = 0
        refuse_record(records, job_id, failure_message(exc_value))
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
        refusal = getattr(job, "refusal", None) if isinstance(job, WorkbenchJob) else "refused: not a workbench job"
        if refusal is None and job.envelope.queue != queue.name:  # type: ignore[attr-defined]
            refusal = f"refused: it was signed for another queue ({job.envelope.queue!r})"  # type: ignore[attr-defined]
        if refusal is not None:
            self.refuse(job, queue, refusal)
            return
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

    def refuse(self, job: Job, queue: Queue, why: str) -> None:
        """Not run: out of RQ's way (off the queue, marked failed, what the attacker wrote
        replaced by nothing), the record and the security log say why."""
        with self.connection.pipeline() as pipe:
            pipe.lrem(queue.intermediate_queue_key, 1, job.id)
            pipe.delete(job.key)
            pipe.hset(job.key, mapping={"status": JobStatus.FAILED.value, "origin": queue.name, "data": b"null",
                                        "ended_at": utcnow().isoformat(), "exc_info": why})
            pipe.expire(job.key, RECORD_TTL)
            pipe.execute()
        refuse_record(Records(self.connection, queue.name, self.job_class.signing_key), job.id, why)


def _security_log_to_stderr() -> None:
    """A worker's refusals reach its stderr even where no security log is set up."""
    if not any(isinstance(h, logging.StreamHandler) for h in security.handlers):
        h = logging.StreamHandler()
        h.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        security.addHandler(h)
        security.setLevel(logging.INFO)


def run_worker(settings, workbench, burst: bool = False) -> bool:
    """`workbench worker`: work the queue with `workbench` (until it is empty with burst). Loads
    the embedding model before the first job so every job finds it warm."""
    global _workbench
    _workbench = workbench
    conn = connect(settings.queue_url)
    _worker_workbench().retriever.embedder.embed(["warm up"])
    _security_log_to_stderr()
    worker = WorkbenchWorker([rq_queue(settings, conn)], connection=conn, serializer=JSONSerializer,
                             job_class=job_class(settings),
                             name=f"workbench-{os.uname().nodename}-{os.getpid()}", worker_ttl=HEARTBEAT_TTL + 10,
                             maintenance_interval=MAINTENANCE_S)
    return worker.work(burst=burst, logging_level="WARNING", with_scheduler=False)
