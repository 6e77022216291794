"""Jobs on the real queue (RQ on the local Redis) with `workbench worker` processes, driven
through the CLI: ids printed, progress and results visible to any reader, failures explained,
and a worker killed mid-run costs nothing but time."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from tests.jobs.conftest import cli, start_worker

pytestmark = [pytest.mark.redis, pytest.mark.slow]

POLICY = ("Access Control Policy. Employees must use multifactor authentication for remote access to "
          "company systems. Audit logs must be retained for at least three years by the security team.")


def _rows(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_cli_queues_an_ask_a_worker_runs_it_and_jobs_shows_it_finished(queue_env, make_pdf):
    pdf = make_pdf([POLICY], name="policy.pdf")
    sent = cli(queue_env, "ask", str(pdf), "--question", "How long must audit logs be retained?", "--queue", "--json")
    assert sent.returncode == 0, sent.stderr
    ((job,),) = [list(r.values()) for r in _rows(sent.stdout)]
    listed = _rows(cli(queue_env, "jobs", "--json").stdout)
    assert [(r["job_id"], r["kind"], r["status"]) for r in listed] == [(job, "ask", "queued")]

    worker = start_worker(queue_env, "--burst")
    assert worker.wait(timeout=600) == 0, worker.stderr.read()
    waited = cli(queue_env, "wait", job, "--timeout", "60", "--json")
    assert waited.returncode == 0, waited.stderr
    (row,) = _rows(cli(queue_env, "jobs", "--json").stdout)
    assert row["status"] == "finished" and row["progress"] == 1.0 and row["run_ids"] == [f"{job}-1"]
    shown = json.loads(cli(queue_env, "show", row["run_ids"][0], "--json").stdout.splitlines()[0])
    assert "three years" in json.dumps(shown)


def test_a_job_that_fails_says_why_and_is_not_retried(queue_env, tmp_path):
    bad = tmp_path / "notes.pdf"
    bad.write_text("this is not a PDF")
    claims = tmp_path / "claims.txt"
    claims.write_text("Logs are kept for three years.\n")
    sent = cli(queue_env, "verify", str(bad), "--claims", str(claims), "--queue")
    assert sent.returncode == 0, sent.stderr
    job = sent.stdout.strip()
    worker = start_worker(queue_env, "--burst")
    assert worker.wait(timeout=600) == 0
    waited = cli(queue_env, "wait", job, "--timeout", "30", "--json")
    assert waited.returncode == 1
    (row,) = _rows(waited.stdout)
    assert row["status"] == "failed" and row["attempts"] == 1
    assert "notes.pdf" in row["error"] and "PDF" in row["error"]
    assert f"{job}: " in waited.stderr


def _signed_in(queue_env):
    from workbench.config import Settings
    from workbench.service import Workbench

    wb = Workbench(Settings(data_dir=Path(queue_env["WORKBENCH_DATA_DIR"]), sign_in=True))
    wb.add_user("Ada Admin", "admin", "correct horse admin")  # the first account is an admin's
    wb.add_user("Rae Reviewer", "reviewer", "correct horse battery", identity=_ada(wb))
    return wb


def _ada(wb):
    return wb.sign_in("Ada Admin", "correct horse admin")


def test_a_job_says_who_asked_with_the_role_the_store_gives_when_it_runs(queue_env, make_pdf):

    wb = _signed_in(queue_env)
    info = wb.submit("ingest", paths=[make_pdf([POLICY])], identity=wb.sign_in("Rae Reviewer", "correct horse battery"))
    assert info.requested_by.name == "Rae Reviewer"
    wb.set_role("Rae Reviewer", "adjudicator", identity=_ada(wb))  # promoted while the job waits
    worker = start_worker(queue_env, "--burst")
    assert worker.wait(timeout=600) == 0, worker.stderr.read()
    (done,) = wb.wait([info.job_id], timeout=60)
    assert done.status == "finished" and not done.refused, done.error
    assert (done.requested_by.name, done.requested_by.role) == ("Rae Reviewer", "adjudicator")
    (row,) = _rows(cli(queue_env, "jobs", "--json").stdout)
    assert row["requested_by"] == "Rae Reviewer" and row["refused"] is False


def test_a_job_asked_for_by_an_account_that_does_not_exist_is_refused(queue_env, make_pdf):
    from workbench.errors import SignInError
    from workbench.models import Identity

    wb = _signed_in(queue_env)
    pdf = str(make_pdf([POLICY]))
    with pytest.raises(SignInError):  # the service queues only a session the store holds...
        wb.submit("ingest", paths=[pdf], identity=Identity(name="Nobody", role="admin"))
    # ...and a worker re-reads the account of one signed by any process holding the queue key
    info = wb.jobs.submit("ingest", {"document_ids": [], "paths": [pdf]}, Identity(name="Nobody", role="admin"))
    worker = start_worker(queue_env, "--burst")
    assert worker.wait(timeout=600) == 0, worker.stderr.read()
    (done,) = wb.wait([info.job_id], timeout=60)
    assert done.status == "failed" and done.refused and "Nobody" in done.error and done.requested_by is None
    assert wb.documents() == []


def test_without_a_queue_url_queue_is_refused_with_the_way_out(data_dir, make_pdf, monkeypatch):
    from tests.conftest import ROOT

    monkeypatch.delenv("WORKBENCH_QUEUE_URL", raising=False)
    env = {k: v for k, v in os.environ.items() if k != "WORKBENCH_QUEUE_URL"} | {"PYTHONPATH": str(ROOT)}
    out = cli(env, "ingest", str(make_pdf([POLICY])), "--queue")
    assert out.returncode == 2 and "WORKBENCH_QUEUE_URL" in out.stderr and "Traceback" not in out.stderr


def test_crash_drill_a_worker_killed_mid_run_loses_nothing_and_duplicates_nothing(queue_env, corpus: Path):
    """2 workers, 6 queued runs over corpus PDFs, one worker SIGKILLed in the middle of a run."""
    names = ("CURAEGISTECHNOLOGIES", "DRAGONSYSTEMSINC", "ACCELERATEDTECHNOLOGIESHOLDINGCORP")
    pdfs = [next((corpus / "cuad" / "pdf").glob(n + "*")) for n in names]
    questions = ["What is the term of the agreement?", "Which law governs the agreement?"]
    jobs = []
    for pdf in pdfs:
        for q in questions:
            sent = cli(queue_env, "ask", str(pdf), "--question", q, "--queue", "--json")
            assert sent.returncode == 0, sent.stderr
            jobs.append(_rows(sent.stdout)[0]["job_id"])
    assert len(jobs) == 6

    from redis import Redis
    from rq import Queue, Worker

    from workbench.config import Settings
    from workbench.jobs.envelope import queue_key
    from workbench.jobs.rq_queue import Records

    conn = Redis.from_url(queue_env["WORKBENCH_QUEUE_URL"])
    queue = Queue(queue_env["WORKBENCH_QUEUE_NAME"], connection=conn)
    records = Records(conn, queue_env["WORKBENCH_QUEUE_NAME"],
                      queue_key(Settings(data_dir=Path(queue_env["WORKBENCH_DATA_DIR"]))))
    workers = [start_worker(queue_env), start_worker(queue_env)]
    try:
        victim, killed_job = _freeze_a_worker_mid_run(workers, queue, records, Worker)
        os.kill(victim.pid, signal.SIGKILL)  # frozen inside the run: it can neither finish nor clean up
        victim.wait(timeout=60)
        assert records.load(killed_job).status == "running"  # the kill left the run unfinished

        waited = cli(queue_env, "wait", *jobs, "--timeout", "600", "--json")
        assert waited.returncode == 0, waited.stdout + waited.stderr
    finally:
        for p in workers:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in workers:
            try:
                p.wait(timeout=60)
            except Exception:  # noqa: BLE001
                p.kill()

    rows = {r["job_id"]: r for r in _rows(cli(queue_env, "jobs", "--json").stdout)}
    assert set(rows) == set(jobs)
    assert all(r["status"] == "finished" for r in rows.values()), rows
    assert rows[killed_job]["attempts"] == 2  # started again by the other worker
    stored = [r["run_id"] for r in _rows(cli(queue_env, "runs", "--json").stdout)]
    assert sorted(stored) == sorted(f"{j}-1" for j in jobs)  # each run stored exactly once


def _freeze_a_worker_mid_run(workers, queue, records, Worker, limit_s: float = 600):
    """The first worker seen running a job, stopped (SIGSTOP) while the job's record still says
    running: stopped first and checked after, so the job is certainly unfinished when it is killed
    however fast the machine is. A job that finished in between lets the worker go on (SIGCONT)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        for w in Worker.all(queue=queue):
            job_id = w.get_current_job_id()
            proc = next((p for p in workers if w.name.endswith(f"-{p.pid}")), None)
            if not job_id or proc is None or proc.poll() is not None:
                continue
            os.kill(proc.pid, signal.SIGSTOP)
            info = records.load(job_id)
            if info is not None and info.status == "running":
                return proc, job_id
            os.kill(proc.pid, signal.SIGCONT)
        time.sleep(0.2)
    raise AssertionError("no worker was seen in the middle of a job")


def test_with_sign_in_on_the_cli_queues_a_job_only_as_an_account_and_the_job_says_which(queue_env, make_pdf):
    """Issue 37: a job queued from the command line carries who asked, proven by the account's
    password (never on the command line); without one, sign-in on refuses to queue it."""
    _signed_in(queue_env)
    pdf = str(make_pdf([POLICY]))
    anonymous = cli(queue_env, "ingest", pdf, "--queue", "--json")
    assert anonymous.returncode == 2 and "--as NAME" in anonymous.stderr, anonymous.stderr
    wrong = cli(queue_env | {"WORKBENCH_PASSWORD": "not her password"}, "ingest", pdf, "--queue", "--as", "Rae Reviewer")
    assert wrong.returncode != 0 and "not her password" not in wrong.stderr + wrong.stdout
    sent = cli(queue_env | {"WORKBENCH_PASSWORD": "correct horse battery"}, "ingest", pdf, "--queue", "--as",
               "Rae Reviewer", "--json")
    assert sent.returncode == 0, sent.stderr
    ((job,),) = [list(r.values()) for r in _rows(sent.stdout)]
    (row,) = [r for r in _rows(cli(queue_env, "jobs", "--json").stdout) if r["job_id"] == job]
    assert row["requested_by"] == "Rae Reviewer" and row["status"] == "queued"
