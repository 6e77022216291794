"""Indexing is paid once per document, and never silently: the app indexes a document in the
background right after upload, and a question on a document not yet indexed says so."""

from __future__ import annotations

from workbench.config import Settings
from workbench.service import Workbench

POLICY = ("Access Control Policy. Employees must use multifactor authentication for remote access to "
          "company systems. Contractors shall return all badges within five business days of the end "
          "of their contract. Audit logs must be retained for at least three years by the security team.")


def test_prepare_builds_the_index_in_the_background_and_the_question_reuses_it(data_dir, make_pdf):
    wb = Workbench(Settings(data_dir=data_dir, index_on_ingest=True))
    doc = wb.ingest(make_pdf([POLICY]), "policy.pdf", source_type="policy")
    parsed = wb.parsed(doc.id)
    assert not wb.retriever.store.is_built(parsed)
    wb.prepare([doc.id]).join(timeout=300)
    assert wb.retriever.store.is_built(parsed)
    embedded: list[str] = []
    embed = wb.retriever.embedder.embed
    wb.retriever.embedder.embed = lambda texts: embedded.extend(texts) or embed(texts)
    events = []
    wb.ask(["How long must audit logs be retained?"], [doc.id], on_event=events.append)
    chunks = {c.text for c in wb.retriever.store.get(parsed).chunks}
    segments = set(wb.retriever.store.get(parsed).segment_units(parsed).texts)
    assert "How long must audit logs be retained?" in " ".join(embedded)
    assert not [t for t in embedded for c in chunks if c in t]  # the index is reused: no chunk embedded again
    assert not set(embedded) & segments  # nor a segment: Extract's segment search was embedded up front too
    assert not any("indexing" in e.message for e in events)


def test_a_question_on_a_document_not_yet_indexed_reports_the_indexing(data_dir, make_pdf):
    wb = Workbench(Settings(data_dir=data_dir, index_on_ingest=False))
    doc = wb.ingest(make_pdf([POLICY]), "policy.pdf", source_type="policy")
    assert wb.prepare([doc.id]) is None  # switched off: nothing runs in the background
    events = []
    wb.ask(["How long must audit logs be retained?"], [doc.id], on_event=events.append)
    indexing = [e for e in events if e.stage == "retrieval" and "indexing policy.pdf" in e.message]
    assert len(indexing) == 1 and indexing[0].status == "progress"
    assert events.index(indexing[0]) < next(i for i, e in enumerate(events) if e.status == "started")
    (run,) = wb.runs()
    assert run.stage_timings["indexing"] > 0  # the audit trail says what the first question paid for
    assert run.audit_trail()["evidence_audit_trail"]["stage_timings"]["indexing"] > 0


def test_a_warm_question_in_a_new_process_imports_no_pdf_llama_or_nltk_code(data_dir, make_pdf):
    """A CLI question on a built workspace pays only for what it uses: the parsed document comes
    from the cache (no pymupdf), the library's vectors from FAISS (no llama-index), stems from
    the vendored Porter stemmer (no nltk): about 1.5 s of imports less (docs/benchmarks-log.md,
    "Pipeline: `ask` speed and memory")."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    wb = Workbench(Settings(data_dir=data_dir))
    doc = wb.ingest(make_pdf([POLICY]), "policy.pdf", source_type="policy")
    wb.ask(["How long must audit logs be retained?"], [doc.id])  # builds the index
    child = f"""
import sys
from pathlib import Path
from workbench.config import Settings
from workbench.service import Workbench
run, = Workbench(Settings(data_dir=Path({str(data_dir)!r}))).ask(["Who must return badges?"], [{doc.id!r}])
print(run.answer.result is None, sorted({{m.split(".")[0] for m in sys.modules}} & {{"pymupdf", "llama_index", "nltk"}}))
"""
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1], env=dict(os.environ, WORKBENCH_DATA_DIR=str(data_dir)))
    assert out.stdout.split("\n")[0] == "True []", out.stdout + out.stderr
