"""The signed job envelope: what a queued job may be, and the check a worker makes on a job
record read from Redis before anything else reads it.

Whoever can write to Redis can write any job record; a worker that ran it would run it with the
worker's rights (the database, the signing key, the data folder). So a job is data: a kind from
the closed list (JobKind), JSON arguments, who asked, and the queue and job id it was made for,
sealed with an HMAC under the *queue key*. The queue key is not the Redis password and not the
record key (store/signing.py): it lives in the data folder (`queue.key`, owner-only) or in
WORKBENCH_QUEUE_KEY, so the app, the CLI and the workers hold it and a Redis client does not.

`open_record` takes RQ's raw job hash (bytes, straight from HGETALL) and either returns the
envelope or raises JobRefused saying why. Before the signature is checked it only decompresses
(bounded) and parses JSON, neither of which can run code; RQ parses the record only after it
passed. What it authenticates:
- `data` (the function RQ calls and its arguments): exactly [perform_job, null, [sealed], {}],
  the sealed envelope's HMAC valid, made for this job id and this queue (`origin`);
- `origin` (the queue) and the record fields that choose code, where the result goes, or what else runs: callbacks,
  webhooks, dependencies, groups, repeats, timeouts, TTLs and the description must be what the
  envelope says (no callback but ours, no webhook, no dependency);
- RQ's own bookkeeping (status, timestamps, worker name, retry counters, results, meta), which
  RQ rewrites while the job lives, is not signed: it is parsed by RQ only after the rest passed,
  and changing it can at most re-run or stop a signed job (whose runs are stored once, by job id).
Any other field is refused."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from workbench.datadir import secret_key_file
from workbench.models import Identity, JobKind

KEY_FILE = "queue.key"
PERFORM = "workbench.jobs.rq_queue.perform_job"  # the one function a worker calls
ON_FAILURE = "workbench.jobs.rq_queue.on_failure"  # the one callback RQ may call
DOMAIN = b"workbench-job-v1\x1f"  # a queue signature is never valid as any other HMAC of ours
MAX_DATA = 8 * 1024 * 1024  # bytes a job's data may decompress to
MAX_AGE = timedelta(days=14)  # a sealed job older than the job records is refused

SIGNED_FIELDS = ("description", "timeout", "result_ttl", "failure_ttl", "failure_callback_name")
EMPTY_FIELDS = ("success_callback_name", "stopped_callback_name", "webhooks", "dependency_ids", "dependency_id",
                "group_id", "repeats_left", "repeat_intervals", "allow_dependency_failures")
BOOKKEEPING_FIELDS = ("status", "created_at", "enqueued_at", "started_at", "ended_at", "last_heartbeat",
                      "worker_name", "retries_left", "retry_intervals", "number_of_retries", "exc_info", "result",
                      "meta", "ttl", "failure_callback_timeout", "success_callback_timeout",
                      "stopped_callback_timeout", "enqueue_at_front", "enqueue_at_front_on_retry")


class JobRefused(Exception):
    """A job record a worker will not run; the message says why, for `workbench jobs`."""


class Envelope(BaseModel):
    """What a job is: signed as a whole (its JSON text), nothing outside it trusted."""

    v: int = 1
    job_id: str
    queue: str
    kind: JobKind
    payload: dict[str, Any]
    requested_by: Identity | None  # who asked (None: sign-in off); the worker re-reads the role
    issued_at: datetime
    rq: dict[str, str | None]  # the record fields in SIGNED_FIELDS as RQ writes them


# --- the key -----------------------------------------------------------------------------------
_keys: dict[Path, bytes] = {}
_lock = threading.Lock()


def queue_key(settings) -> bytes:
    """WORKBENCH_QUEUE_KEY, else `queue.key` in the data folder (created owner-only on first use,
    O_EXCL so processes starting together agree on one key)."""
    if settings.queue_key:
        return settings.queue_key.encode()
    path = Path(settings.data_dir) / KEY_FILE
    with _lock:
        if path not in _keys:
            _keys[path] = secret_key_file(path, "queue key")
        return _keys[path]


def _mac(key: bytes, text: str) -> str:
    return hmac.new(key, DOMAIN + text.encode(), hashlib.sha256).hexdigest()


# --- job records and events (what `workbench jobs` shows) ---------------------------------------
RECORD_DOMAIN = b"workbench-job-record-v1\x1f"


def sign_record(key: bytes, job_id: str, text: str) -> str:
    """A record or stage event as kept in Redis: its HMAC (bound to the job id), a space, the JSON."""
    mac = hmac.new(key, RECORD_DOMAIN + job_id.encode() + b"\x1f" + text.encode(), hashlib.sha256).hexdigest()
    return f"{mac} {text}"


def open_signed_record(key: bytes, job_id: str, raw: bytes) -> str | None:
    """The JSON of a record `sign_record` made for `job_id`; None when written by anyone else."""
    mac, _, text = raw.decode("utf-8", "replace").partition(" ")
    # bytes, not str: compare_digest refuses str with non-ASCII characters (a quote's "§", a hostile mac)
    return text if hmac.compare_digest(sign_record(key, job_id, text).encode(), f"{mac} {text}".encode()) else None


# --- sealing (the submitting process) ------------------------------------------------------------
def seal(key: bytes, *, job_id: str, queue: str, kind: str, payload: dict[str, Any],
         requested_by: Identity | None, rq: dict[str, Any]) -> dict[str, str]:
    """The job's one argument: {"envelope": JSON text, "signature": HMAC of that text}."""
    env = Envelope(job_id=job_id, queue=queue, kind=kind, payload=payload,  # type: ignore[arg-type]
                   requested_by=requested_by, issued_at=datetime.now(UTC),
                   rq={k: None if v is None else str(v) for k, v in rq.items()})
    text = env.model_dump_json()
    return {"envelope": text, "signature": _mac(key, text)}


# --- opening (the worker) --------------------------------------------------------------------------
def _unsigned(why: str) -> JobRefused:
    return JobRefused(f"refused: {why}; the job record is not signed with this workspace's queue key "
                      "(forged or altered in Redis), so nothing of it was run")


def _text(raw: bytes | None) -> str | None:
    return None if raw is None else raw.decode("utf-8", "replace")


def _shown(value: Any) -> str:
    """An attacker's value, quoted and cut short, for a message."""
    return repr(value)[:80]


def open_sealed(key: bytes, sealed: Any, job_id: str) -> Envelope:
    """The envelope of a sealed argument whose signature holds for `job_id` (JobRefused otherwise)."""
    if not isinstance(sealed, dict) or set(sealed) != {"envelope", "signature"}:
        raise _unsigned("its argument is not a sealed envelope")
    text, sig = sealed["envelope"], sealed["signature"]
    if not isinstance(text, str) or not isinstance(sig, str) or not hmac.compare_digest(sig.encode(), _mac(key, text).encode()):
        raise _unsigned("its signature does not match")
    try:
        env = Envelope.model_validate_json(text)
    except ValidationError as exc:  # signed by us, so only a version we do not know
        raise JobRefused(f"refused: a signed job this worker cannot read ({exc.error_count()} problem(s))") from exc
    if env.job_id != job_id:
        raise _unsigned(f"it was signed for job {_shown(env.job_id)}, not this one")
    if datetime.now(UTC) - env.issued_at > MAX_AGE:
        raise JobRefused(f"refused: it was signed {env.issued_at:%Y-%m-%d}, too long ago to be run now")
    return env


def _data(raw: bytes) -> Any:
    try:
        d = zlib.decompressobj()
        out = d.decompress(raw, MAX_DATA)
        if d.unconsumed_tail:
            raise _unsigned(f"its data is over {MAX_DATA // (1024 * 1024)} MiB")
    except zlib.error:
        out = raw[: MAX_DATA + 1]
        if len(out) > MAX_DATA:
            raise _unsigned(f"its data is over {MAX_DATA // (1024 * 1024)} MiB") from None
    try:
        return json.loads(out)
    except (UnicodeDecodeError, ValueError):
        raise _unsigned("its data is not JSON (a pickle, or something else a worker will not load)") from None


def open_record(key: bytes, job_id: str, raw: dict[bytes, bytes]) -> Envelope:
    """Authenticate RQ's raw job hash for `job_id` (see the module docstring) → its Envelope."""
    fields = {k.decode("utf-8", "replace"): v for k, v in raw.items()}
    data = _data(fields.get("data") or b"")
    if not (isinstance(data, list) and len(data) == 4):
        raise _unsigned("its data is not a workbench job")
    func, instance, args, kwargs = data
    if func != PERFORM or instance is not None or kwargs != {}:
        raise _unsigned(f"it names {_shown(func)}, not the workbench's job function")
    if not (isinstance(args, list) and len(args) == 1):
        raise _unsigned("its arguments are not one sealed envelope")
    env = open_sealed(key, args[0], job_id)
    # signed: the data holds; now the rest of the record must be what the envelope says
    unknown = sorted(set(fields) - {"data", "origin", *SIGNED_FIELDS, *EMPTY_FIELDS, *BOOKKEEPING_FIELDS})
    if unknown:
        raise JobRefused(f"refused: its record in Redis has field(s) no workbench job has ({_shown(unknown)}); "
                         "nothing of it was run")
    for name in EMPTY_FIELDS:
        if fields.get(name) not in (None, b"", b"[]", b"0"):
            raise _altered(name, fields[name])
    if _text(fields.get("origin")) != env.queue:
        raise _altered("origin", fields.get("origin"))
    for name in SIGNED_FIELDS:
        if (_text(fields.get(name)) or None) != (env.rq.get(name) or None):
            raise _altered(name, fields.get(name))
    return env


def _altered(name: str, value: Any) -> JobRefused:
    return JobRefused(f"refused: its record in Redis was altered after it was signed ({name} = {_shown(value)}); "
                      "nothing of it was run")

