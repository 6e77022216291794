"""Without a queue URL, jobs run on a thread of this process: same records, events and
idempotent runs as with workers."""

from __future__ import annotations

from workbench.config import Settings
from workbench.jobs.tasks import perform, run_ids_for
from workbench.models import JobInfo
from workbench.service import Workbench

POLICY = ("Access Control Policy. Employees must use multifactor authentication for remote access to "
          "company systems. Audit logs must be retained for at least three years by the security team.")


def test_an_ask_job_runs_in_the_background_and_stores_its_run_under_the_job_id(data_dir, make_pdf):
    wb = Workbench(Settings(data_dir=data_dir))
    info = wb.submit("ask", questions=["How long must audit logs be retained?"], paths=[make_pdf([POLICY])])
    assert info.status == "queued" and info.kind == "ask"
    (done,) = wb.wait([info.job_id], timeout=300)
    assert done.status == "finished", done.error
    assert done.progress == 1.0 and done.attempts == 1
    assert done.run_ids == [f"{info.job_id}-1"]
    assert "three years" in wb.run(done.run_ids[0]).answer.final_answer
    stages = [(e.stage, e.status) for e in wb.job_events(info.job_id)]
    assert ("retrieval", "started") in stages and ("finalize", "done") in stages
    assert wb.job_list()[0].job_id == info.job_id


def test_a_failing_job_says_why(data_dir):
    wb = Workbench(Settings(data_dir=data_dir))
    info = wb.submit("ask", questions=["Anything?"], document_ids=["0" * 64])
    (done,) = wb.wait([info.job_id], timeout=60)
    assert done.status == "failed" and done.run_ids == []
    assert "0" * 12 in done.error


def test_a_job_started_twice_stores_each_run_once(data_dir, make_pdf):
    wb = Workbench(Settings(data_dir=data_dir))
    doc = wb.ingest(make_pdf([POLICY]), "policy.pdf")
    info = JobInfo(job_id="jobtwice", kind="ask")
    payload = {"questions": ["How long must audit logs be retained?", "Who keeps the audit logs?"],
               "document_ids": [doc.id]}
    first = perform(wb, info, payload, lambda ev: None, lambda **f: None)
    events = []
    again = perform(wb, info, payload, events.append, lambda **f: None)
    assert first.run_ids == again.run_ids == run_ids_for("jobtwice", 2)
    assert events == []  # nothing ran the second time: both runs were stored
    assert sorted(r.run_id for r in wb.runs()) == sorted(first.run_ids)


def test_an_ingest_job_reports_pages_read_by_ocr_as_its_progress():
    """Each page OCR reads moves the job on, in words a reviewer reads on the Documents page and in
    `workbench jobs` (reading is the first half of a file's share, indexing the second)."""
    from pathlib import Path

    updates: list[dict] = []

    class Reading:
        def ingest(self, path: Path, source_type=None, on_ocr=None):
            for done in (1, 2, 3, 4):
                on_ocr(done, 4)
            return type("Doc", (), {"id": path.name})()

    from workbench.jobs.tasks import _documents

    ids = _documents(Reading(), {"paths": ["/in/a-scan.pdf", "/in/b.pdf"]}, lambda **f: updates.append(f))
    assert ids == ["a-scan.pdf", "b.pdf"]
    assert [round(u["progress"], 3) for u in updates] == [0.062, 0.125, 0.188, 0.25, 0.562, 0.625, 0.688, 0.75]
    assert updates[1]["message"] == "reading a-scan.pdf by OCR: page 2 of 4"
