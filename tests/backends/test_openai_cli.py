"""`workbench ask … --backend openai` end to end through the CLI: settings from the
environment (OPENAI_BASE_URL, WORKBENCH_MODEL), the real client, the scripted server."""

from __future__ import annotations

import json

import pytest

from tests.backends.fake_openai import FakeOpenAI
from tests.backends.test_openai_pipeline import GOOD, GOOD2, PAGE, QUESTION, norm, obedient_model

cli = pytest.importorskip("workbench.cli")


@pytest.fixture
def env(data_dir, monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "WORKBENCH_OPENAI_API_KEY", "WORKBENCH_OPENAI_BASE_URL",
                "WORKBENCH_BACKEND", "WORKBENCH_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("WORKBENCH_MODEL", "local-llama")
    monkeypatch.setenv("WORKBENCH_LLM_MAX_RETRIES", "0")
    from workbench.config import get_settings

    get_settings.cache_clear()
    yield monkeypatch
    get_settings.cache_clear()


def test_ask_with_backend_openai_against_a_local_compatible_server(env, make_pdf, tmp_path, capsys):
    pdf = make_pdf([PAGE], name="county.pdf")
    out = tmp_path / "trail.json"
    with FakeOpenAI(responder=obedient_model) as srv:
        env.setenv("OPENAI_BASE_URL", srv.base_url)
        code = cli.main(["ask", str(pdf), "--question", QUESTION, "--backend", "openai", "--out", str(out),
                         "--source-type", "statute"])
        models = {r["model"] for r in srv.requests}
    assert code == 0, capsys.readouterr().err
    assert models == {"local-llama"}
    trail = json.loads(out.read_text())
    assert trail["evidence_audit_trail"]["backend"] == "openai"
    verified = {v["requirement_id"] for v in trail["verified_requirements"]}
    quotes = {e["requirement_id"]: norm(e["exact_quote"]) for e in trail["extracted_requirements"]}
    assert norm(GOOD) in {quotes[i] for i in verified}
    assert {quotes[i] for i in verified} <= {norm(GOOD), norm(GOOD2)}  # no injection, fabrication, off-topic
    assert "verify" in trail["evidence_audit_trail"]["usage"]
    summary = json.loads(capsys.readouterr().out.splitlines()[0])
    assert summary["result"] == "ANSWERED"


def test_ask_with_backend_openai_and_no_endpoint_is_one_line_exit_2(env, make_pdf, capsys):
    pdf = make_pdf([PAGE], name="county.pdf")
    code = cli.main(["ask", str(pdf), "--question", QUESTION, "--backend", "openai"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "OPENAI_API_KEY" in err and "OPENAI_BASE_URL" in err


def test_an_unreachable_endpoint_is_a_visible_failure_not_a_finding_about_the_documents(env, make_pdf, tmp_path,
                                                                                         capsys):
    import socket

    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    pdf = make_pdf([PAGE], name="county.pdf")
    out = tmp_path / "trail.json"
    code = cli.main(["ask", str(pdf), "--question", QUESTION, "--backend", "openai", "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "backend stage" in err and "no answer was composed" in err
    trail = json.loads(out.read_text())  # the audit trail is still written, with the failure in it
    assert trail["evidence_audit_trail"]["failures"][0]["stage"] == "extract"
    assert trail["verified_requirements"] == [] and trail["final_answer"] == ""
    assert "backend failed in the extract stage" in trail["message"]
    assert "not a finding about the documents" in trail["message"]
    assert not any("Specific statute or policy" in m for m in trail["missing_evidence"])
