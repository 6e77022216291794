"""Attacks on the job queue by someone who can write to Redis but holds no queue key (issue 37,
item 1): the tests act with exactly that, a Redis client and the queue's name, writing RQ's raw
keys by hand. Whatever they write, a worker runs nothing of it, says it refused the job and why
(in `workbench jobs` and in the security log), and goes on with the real jobs. A PDF password
given to a queued job never reaches Redis."""

from __future__ import annotations

import contextlib
import json
import pickle
import zlib
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.jobs.conftest import REDIS_URL, cli, start_worker

pytestmark = [pytest.mark.redis, pytest.mark.slow]

POLICY = ("Access Control Policy. Employees must use multifactor authentication for remote access to "
          "company systems. Audit logs must be retained for at least three years by the security team.")
PERFORM = "workbench.jobs.rq_queue.perform_job"


class _OpensAFile:
    """Unpickling this creates `path`: the attacker's stand-in for any command."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _redis():
    from redis import Redis

    return Redis.from_url(REDIS_URL)


def _write_job(name: str, job_id: str, data: bytes, **fields: str) -> None:
    """What an attacker with Redis write access does: an RQ job hash and its id on the queue."""
    conn = _redis()
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    conn.hset(f"rq:job:{job_id}", mapping={"status": "queued", "origin": name, "data": zlib.compress(data),
                                           "created_at": stamp, "enqueued_at": stamp, "timeout": "3600",
                                           "description": f"forged {job_id}", **fields})
    conn.sadd("rq:queues", f"rq:queue:{name}")
    conn.rpush(f"rq:queue:{name}", job_id)


def _rows(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def _work(env: dict[str, str]) -> str:
    """One burst worker over everything queued; its stderr (where the security log goes)."""
    worker = start_worker(env, "--burst")
    assert worker.wait(timeout=600) == 0, worker.stderr.read()
    return worker.stderr.read()


def _refused(env: dict[str, str], job_id: str) -> dict:
    rows = {r["job_id"]: r for r in _rows(cli(env, "jobs", "--json").stdout)}
    assert job_id in rows, f"`workbench jobs` does not show the refused job: {sorted(rows)}"
    row = rows[job_id]
    assert row["status"] == "failed" and row["refused"] is True, row
    assert row["error"].startswith("refused:"), row
    assert row["run_ids"] == [] and row["requested_by"] is None, row
    return row


def _no_runs(env: dict[str, str]) -> None:
    assert _rows(cli(env, "runs", "--json").stdout) == []


def test_a_forged_pickle_job_is_refused_runs_nothing_and_the_real_job_behind_it_still_runs(queue_env, make_pdf,
                                                                                           tmp_path):
    name = queue_env["WORKBENCH_QUEUE_NAME"]
    marker = tmp_path / "pwned-by-pickle"
    forged = f"{name}-pickle"
    _write_job(name, forged, pickle.dumps((PERFORM, None, (_OpensAFile(marker),), {})))
    sent = cli(queue_env, "ask", str(make_pdf([POLICY], name="policy.pdf")), "--question",
               "How long must audit logs be retained?", "--queue", "--json")
    assert sent.returncode == 0, sent.stderr
    real = _rows(sent.stdout)[0]["job_id"]

    log = _work(queue_env)

    assert not marker.exists()
    row = _refused(queue_env, forged)
    assert "not signed" in row["error"]
    assert "workbench.security" in log and forged in log and "refused" in log
    waited = cli(queue_env, "wait", real, "--timeout", "60", "--json")
    assert waited.returncode == 0, waited.stdout + waited.stderr
    assert _rows(waited.stdout)[0]["run_ids"] == [f"{real}-1"]


@pytest.mark.parametrize("encoding", ["pickle", "json"])
def test_a_job_naming_builtins_exec_is_refused_and_runs_nothing(queue_env, tmp_path, encoding):
    name = queue_env["WORKBENCH_QUEUE_NAME"]
    marker = tmp_path / "pwned-by-exec"
    forged = f"{name}-exec-{encoding}"
    job = ("builtins.exec", None, [f"open({str(marker)!r}, 'w').write('ran')"], {})
    _write_job(name, forged, pickle.dumps(job) if encoding == "pickle" else json.dumps(job).encode())

    _work(queue_env)

    assert not marker.exists()
    _refused(queue_env, forged)
    _no_runs(queue_env)


def _envelope(name: str, job_id: str, pdf: Path, requested_by: dict | None = None) -> str:
    """A job exactly as the workbench shapes one (docs/security/queue.md), minus the key."""
    return json.dumps({"v": 1, "job_id": job_id, "queue": name, "kind": "ask",
                       "payload": {"questions": ["How long must audit logs be retained?"], "paths": [str(pdf)],
                                   "document_ids": []},
                       "requested_by": requested_by, "issued_at": datetime.now(UTC).isoformat(),
                       "rq": {"timeout": 3600, "result_ttl": 1209600, "failure_ttl": 1209600,
                              "failure_callback_name": "workbench.jobs.rq_queue.on_failure"}})


@pytest.mark.parametrize("signature", [None, "", "0" * 64, "guessed"])
def test_a_well_shaped_job_without_a_valid_signature_is_refused(queue_env, make_pdf, signature):
    name = queue_env["WORKBENCH_QUEUE_NAME"]
    forged = f"{name}-unsigned"
    sealed = {"envelope": _envelope(name, forged, make_pdf([POLICY]), {"name": "Ada Admin", "role": "admin"})}
    if signature is not None:
        sealed["signature"] = signature
    _write_job(name, forged, json.dumps([PERFORM, None, [sealed], {}]).encode(),
               failure_callback_name="workbench.jobs.rq_queue.on_failure", result_ttl="1209600",
               failure_ttl="1209600")

    _work(queue_env)

    row = _refused(queue_env, forged)
    assert "not signed" in row["error"]
    _no_runs(queue_env)


def _submit_as(queue_env, make_pdf, who: str):
    """A real job, queued through the service by a signed-in user."""
    from workbench.config import Settings
    from workbench.service import Workbench

    wb = Workbench(Settings(data_dir=Path(queue_env["WORKBENCH_DATA_DIR"]), sign_in=True))
    wb.add_user("Ada Admin", "admin", "correct horse admin")  # the first account is an admin's
    wb.add_user(who, "reviewer", "correct horse battery", identity=wb.sign_in("Ada Admin", "correct horse admin"))
    return wb.submit("ask", questions=["How long must audit logs be retained?"],
                     paths=[make_pdf([POLICY], name="policy.pdf")], identity=wb.sign_in(who, "correct horse battery"))


def test_a_signed_job_with_its_identity_changed_is_refused(queue_env, make_pdf):
    info = _submit_as(queue_env, make_pdf, "Rae Reviewer")
    conn = _redis()
    key = f"rq:job:{info.job_id}"
    func, instance, args, kwargs = json.loads(zlib.decompress(conn.hget(key, "data")))
    envelope = json.loads(args[0]["envelope"])
    assert envelope["requested_by"]["name"] == "Rae Reviewer"
    envelope["requested_by"] = {"name": "Ada Admin", "role": "admin", "via": "local"}
    args[0]["envelope"] = json.dumps(envelope)
    conn.hset(key, "data", zlib.compress(json.dumps([func, instance, args, kwargs]).encode()))

    _work(queue_env)

    rows = {r["job_id"]: r for r in _rows(cli(queue_env, "jobs", "--json").stdout)}
    row = rows[info.job_id]
    assert row["status"] == "failed" and row["refused"] is True and row["error"].startswith("refused:"), row
    assert row["requested_by"] != "Ada Admin"
    _no_runs(queue_env)


@pytest.mark.parametrize("field", ["failure_callback_name", "success_callback_name", "stopped_callback_name"])
def test_a_signed_job_whose_record_names_other_code_is_refused(queue_env, make_pdf, field):
    info = _submit_as(queue_env, make_pdf, "Rae Reviewer")
    _redis().hset(f"rq:job:{info.job_id}", field, "os.system")

    _work(queue_env)

    row = {r["job_id"]: r for r in _rows(cli(queue_env, "jobs", "--json").stdout)}[info.job_id]
    assert row["status"] == "failed" and row["refused"] is True and field in row["error"], row
    _no_runs(queue_env)


def _encrypted_pdf(make_pdf, password: str) -> Path:
    import pymupdf

    plain = make_pdf([POLICY], name="plain.pdf")
    path = plain.with_name("locked.pdf")
    with pymupdf.open(plain) as doc:
        doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw=password, owner_pw=password + "-owner")
    return path


def _everything_in_redis() -> bytes:
    """Every key and value of the test database, compressed values opened: what a Redis reader sees."""
    conn = _redis()
    out = []
    for key in conn.scan_iter():
        kind = conn.type(key).decode()
        values = ([conn.get(key)] if kind == "string" else list(conn.hgetall(key).items()) if kind == "hash"
                  else conn.lrange(key, 0, -1) if kind == "list" else list(conn.smembers(key)) if kind == "set"
                  else [m for m, _ in conn.zrange(key, 0, -1, withscores=True)] if kind == "zset" else [])
        flat = [key] + [b for v in values for b in (v if isinstance(v, tuple) else (v,)) if b]
        for b in flat:
            out.append(b)
            with contextlib.suppress(zlib.error):
                out.append(zlib.decompress(b))
    return b"\n".join(out)


def test_a_queued_ingest_of_an_encrypted_pdf_leaves_no_password_in_redis(queue_env, make_pdf):
    from workbench.config import Settings
    from workbench.service import Workbench

    password = "Quartz-Otter-7731"
    wb = Workbench(Settings(data_dir=Path(queue_env["WORKBENCH_DATA_DIR"])))
    info = wb.submit("ingest", paths=[_encrypted_pdf(make_pdf, password)], password=password)
    assert password.encode() not in _everything_in_redis()

    _work(queue_env)

    (done,) = wb.wait([info.job_id], timeout=60)
    assert done.status == "finished", done.error
    assert [d.encrypted for d in wb.documents()] == [True]
    seen = _everything_in_redis()
    assert password.encode() not in seen
    assert (Path(queue_env["WORKBENCH_DATA_DIR"]) / "queue.key").read_bytes().strip() not in seen


def test_a_job_record_written_into_redis_is_not_shown_as_what_it_claims(queue_env):
    name = queue_env["WORKBENCH_QUEUE_NAME"]
    forged = f"{name}-record"
    conn = _redis()
    stamp = datetime.now(UTC).isoformat()
    conn.set(f"{name}:job:{forged}", json.dumps({
        "job_id": forged, "kind": "ask", "status": "finished", "progress": 1.0, "run_ids": [f"{forged}-1"],
        "requested_by": {"name": "Ada Admin", "role": "admin", "via": "local"}, "created_at": stamp}))
    conn.zadd(f"{name}:jobs", {forged: datetime.now(UTC).timestamp()})

    listed = cli(queue_env, "jobs", "--json")
    assert listed.returncode == 0, listed.stderr
    (row,) = _rows(listed.stdout)
    assert row["job_id"] == forged and row["status"] == "failed" and row["run_ids"] == [], row
    assert row["requested_by"] is None and "not signed" in row["error"], row


def test_a_signed_job_copied_under_another_id_is_refused(queue_env, make_pdf):
    """Added after the fix (not xfail-first): replaying a signed job as a new one."""
    info = _submit_as(queue_env, make_pdf, "Rae Reviewer")
    name = queue_env["WORKBENCH_QUEUE_NAME"]
    conn = _redis()
    copy = f"{name}-copy"
    conn.hset(f"rq:job:{copy}", mapping=conn.hgetall(f"rq:job:{info.job_id}"))
    conn.rpush(f"rq:queue:{name}", copy)

    _work(queue_env)

    rows = {r["job_id"]: r for r in _rows(cli(queue_env, "jobs", "--json").stdout)}
    assert rows[copy]["refused"] is True and "signed for job" in rows[copy]["error"], rows[copy]
    assert rows[info.job_id]["status"] == "finished" and rows[info.job_id]["run_ids"] == [f"{info.job_id}-1"]
    assert [r["run_id"] for r in _rows(cli(queue_env, "runs", "--json").stdout)] == [f"{info.job_id}-1"]
