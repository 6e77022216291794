"""Structured output is negotiated per endpoint, through the real `openai` client, against the
scripted server speaking each server's dialect: the status codes and error bodies those servers
send when they do not know a way of asking for JSON. The strongest form the server accepts is
used, remembered for the endpoint (base URL + model), and named in the audit trail."""

from __future__ import annotations

import json

import pytest

from tests.backends.fake_openai import FakeOpenAI, Reply, backend_settings, body_error, completion, error, evidence
from workbench.backends.openai import OpenAIBackend
from workbench.errors import BackendError
from workbench.models import Chunk

QUESTION = "What must organizations do to limit system access?"
QUOTE = "Limit system access to authorized users, processes acting on behalf of authorized users, and devices."
VERDICT = {"verified": True, "rejection_reason": None, "verification_rationale": "It says so.", "score": 0.9}


def form_of(body: dict) -> str:
    """Which structured-output form a request used, as a server would see it."""
    rf = body.get("response_format") or {}
    if rf.get("type") == "json_schema":
        return "json_schema"
    if rf.get("type") == "json_object":
        return "json_object+schema" if "schema" in rf else "json_object"
    for key, form in (("json_schema", "json_schema_field"), ("structured_outputs", "structured_outputs"),
                      ("guided_json", "guided_json"), ("format", "format")):
        if key in body:
            return form
    return "prompt"


def schema_sent(body: dict) -> dict | None:
    form = form_of(body)
    return {"json_schema": lambda: body["response_format"]["json_schema"]["schema"],
            "json_object+schema": lambda: body["response_format"]["schema"],
            "json_schema_field": lambda: body["json_schema"],
            "structured_outputs": lambda: body["structured_outputs"]["json"],
            "guided_json": lambda: body["guided_json"],
            "format": lambda: body["format"]}.get(form, lambda: None)()


def dialect(refuse) -> callable:
    """A responder: `refuse(body)` returns the server's refusal Reply or None (then a verdict)."""
    def respond(body: dict) -> Reply:
        return refuse(body) or completion(VERDICT)
    return respond


def verify_once(backend: OpenAIBackend):
    [v] = backend.verify(QUESTION, [evidence("REQ-S001", QUOTE)])
    return v


def pydantic_error(loc: tuple, kind: str, msg: str, value) -> str:
    return str([{"type": kind, "loc": loc, "msg": msg, "input": value}])


# --- OpenAI ---------------------------------------------------------------------------------------
def test_openai_accepts_json_schema_and_it_is_used_first():
    with FakeOpenAI(responder=dialect(lambda body: None)) as srv:
        backend = OpenAIBackend(backend_settings(srv))
        assert verify_once(backend).verified
    [sent] = srv.requests
    assert form_of(sent) == "json_schema"
    assert set(schema_sent(sent)["properties"]) >= {"verified", "rejection_reason", "verification_rationale"}
    assert "title" not in json.dumps(schema_sent(sent))  # compact: no titles for a small model's context
    assert backend.usage()["verify"].structured_output == "json_schema"


# --- llama-cpp-python's server (`python -m llama_cpp.server`) ------------------------------------------
# Measured on llama-cpp-python 0.3.36: json_schema is a FastAPI validation error that its route
# handler turns into HTTP 500; {"type": "json_object", "schema": ...} constrains decoding.
def llama_cpp_python(body: dict) -> Reply | None:
    rf = body.get("response_format") or {}
    if rf and rf.get("type") not in ("text", "json_object"):
        detail = pydantic_error(("body", "response_format", "type"), "literal_error",
                                "Input should be 'text' or 'json_object'", rf.get("type"))
        return body_error(500, {"error": {"message": detail, "type": "internal_server_error", "param": None,
                                          "code": None}})
    return None


def test_llama_cpp_python_refuses_json_schema_with_500_then_json_object_with_schema_is_remembered():
    with FakeOpenAI(responder=dialect(llama_cpp_python)) as srv:
        backend = OpenAIBackend(backend_settings(srv, llm_max_retries=1))
        assert verify_once(backend).verified
        assert verify_once(backend).verified
        again = OpenAIBackend(backend_settings(srv))  # a new backend for the same endpoint
        assert verify_once(again).verified
    forms = [form_of(b) for b in srv.requests]
    # the 500 is retried by the client once (llm_max_retries=1), then the next form sticks
    assert forms == ["json_schema", "json_schema", "json_object+schema", "json_object+schema", "json_object+schema"]
    assert schema_sent(srv.requests[-1])["required"] == ["verified"]
    u = backend.usage()["verify"]
    assert u.structured_output == "json_object+schema"
    assert any("json_schema refused" in f and "Input should be 'text' or 'json_object'" in f for f in u.raw_failures)


# --- llama.cpp's native server (`llama-server`), builds before json_schema support --------------------
def llama_server_old(body: dict) -> Reply | None:
    rf = body.get("response_format") or {}
    if rf and rf.get("type") not in ("text", "json_object"):
        return body_error(500, {"error": {"code": 500, "type": "server_error", "message":
                                          'response_format type must be one of "text" or "json_object", '
                                          f'but got: {rf.get("type")}'}})
    return None


def test_llama_server_refusing_json_schema_moves_to_json_object_with_schema():
    with FakeOpenAI(responder=dialect(llama_server_old)) as srv:
        backend = OpenAIBackend(backend_settings(srv, llm_max_retries=0))
        assert verify_once(backend).verified
    assert [form_of(b) for b in srv.requests] == ["json_schema", "json_object+schema"]
    assert backend.usage()["verify"].structured_output == "json_object+schema"


# --- vLLM 0.4-0.5 (requests validated with extra="forbid"; guided_json in the body) -------------------
def vllm_old(body: dict) -> Reply | None:
    def refuse(loc: tuple, kind: str, msg: str, value) -> Reply:
        return body_error(400, {"object": "error", "message": pydantic_error(loc, kind, msg, value),
                                "type": "BadRequestError", "param": None, "code": 400})
    rf = body.get("response_format") or {}
    if rf and rf.get("type") not in ("text", "json_object"):
        return refuse(("body", "response_format", "type"), "literal_error",
                      "Input should be 'text' or 'json_object'", rf.get("type"))
    if "schema" in rf:
        return refuse(("body", "response_format", "schema"), "extra_forbidden", "Extra inputs are not permitted",
                      rf["schema"])
    for extra in ("json_schema", "structured_outputs", "format"):
        if extra in body:
            return refuse(("body", extra), "extra_forbidden", "Extra inputs are not permitted", body[extra])
    return None


def test_vllm_without_response_format_schemas_ends_on_guided_json():
    with FakeOpenAI(responder=dialect(vllm_old)) as srv:
        backend = OpenAIBackend(backend_settings(srv, llm_max_retries=0))
        assert verify_once(backend).verified
        assert verify_once(backend).verified
    forms = [form_of(b) for b in srv.requests]
    assert forms == ["json_schema", "json_object+schema", "json_schema_field", "structured_outputs",
                     "guided_json", "guided_json"]
    assert schema_sent(srv.requests[-1])["required"] == ["verified"]
    assert backend.usage()["verify"].structured_output == "guided_json"


# --- Ollama (>= 0.5: response_format json_schema on /v1) ------------------------------------------
def test_ollama_accepts_json_schema_on_its_openai_endpoint():
    def ollama(body: dict) -> Reply | None:
        rf = body.get("response_format") or {}
        if rf.get("type") == "json_schema" and not isinstance(rf.get("json_schema", {}).get("schema"), dict):
            return body_error(400, {"error": {"message": "invalid JSON schema in format", "type":
                                              "invalid_request_error", "param": None, "code": None}})
        return None

    with FakeOpenAI(responder=dialect(ollama)) as srv:
        backend = OpenAIBackend(backend_settings(srv, model="smollm2:135m"))
        assert verify_once(backend).verified
    assert [form_of(b) for b in srv.requests] == ["json_schema"]


# --- Ollama's schema check: a schema with `$ref`/`$defs` is refused with HTTP 500 and a bare string ----
# (ollama/ollama and datalab-to/marker#984: `{"error":"invalid JSON schema in format"}`). The reply
# schemas are sent with their $defs inlined, so Ollama takes json_schema for nested replies too.
def test_ollama_gets_nested_reply_schemas_without_refs():
    reply = {"requirements": [{"chunk_id": "c1", "exact_quote": QUOTE}]}

    def ollama(body: dict) -> Reply:
        rf = body.get("response_format") or {}
        schema = (rf.get("json_schema") or {}).get("schema")
        if rf.get("type") == "json_schema" and ("$ref" in json.dumps(schema) or "$defs" in json.dumps(schema)):
            return body_error(500, {"error": "invalid JSON schema in format"})
        return completion(reply)

    chunk = Chunk(chunk_id="c1", document_id="doc-1", start=0, end=len(QUOTE), page=1, text=QUOTE)
    with FakeOpenAI(responder=ollama) as srv:
        backend = OpenAIBackend(backend_settings(srv, model="smollm2:135m", llm_max_retries=0))
        [cand] = backend.extract(QUESTION, [chunk])
    assert cand.exact_quote == QUOTE
    [sent] = srv.requests
    assert form_of(sent) == "json_schema"
    items = schema_sent(sent)["properties"]["requirements"]["items"]
    assert items["required"] == ["chunk_id", "exact_quote"]  # the quote's shape itself, not a reference


# --- LM Studio: json_schema only; its errors are a bare string under "error" ---------------------------
def test_lm_studio_takes_json_schema_and_its_string_error_bodies_are_read():
    def lm_studio(body: dict) -> Reply | None:
        rf = body.get("response_format") or {}
        if rf.get("type") not in (None, "json_schema", "text"):
            return body_error(400, {"error": "'response_format.type' must be 'json_schema' or 'text'"})
        if rf.get("type") == "json_schema" and not rf.get("json_schema", {}).get("name"):
            return body_error(400, {"error": "'response_format.json_schema.name' is required"})
        return None

    with FakeOpenAI(responder=dialect(lm_studio)) as srv:
        backend = OpenAIBackend(backend_settings(srv, model="qwen2.5-7b-instruct", llm_max_retries=0))
        assert verify_once(backend).verified
    assert [form_of(b) for b in srv.requests] == ["json_schema"]
    assert srv.requests[0]["response_format"]["json_schema"]["name"] == "VerifyReply"


# --- a strict proxy: FastAPI 422 for every field it does not know ---------------------------------------
def test_server_refusing_every_structured_form_with_422_is_prompted_and_validated():
    known = {"model", "messages", "temperature", "max_tokens", "stream"}

    def strict(body: dict) -> Reply | None:
        extra = sorted(set(body) - known)
        if extra:
            return body_error(422, {"detail": [{"type": "extra_forbidden", "loc": ["body", extra[0]],
                                                "msg": "Extra inputs are not permitted", "input": body[extra[0]]}]})
        return completion("```json\n" + json.dumps(VERDICT) + "\n```")

    with FakeOpenAI(responder=strict) as srv:
        backend = OpenAIBackend(backend_settings(srv, llm_max_retries=0))
        assert verify_once(backend).verified
    assert [form_of(b) for b in srv.requests] == ["json_schema", "json_object+schema", "json_schema_field",
                                                 "structured_outputs", "guided_json", "format", "json_object",
                                                 "prompt"]
    assert "JSON schema" in srv.prompts()[-1]  # prompt-only still tells the model the shape
    assert backend.usage()["verify"].structured_output == "prompt"


# --- what is not a refusal ---------------------------------------------------------------------------
@pytest.mark.parametrize("reply", [
    error(500, "CUDA error: out of memory"),
    body_error(400, {"error": {"message": "Requested tokens (9100) exceed context window of 8192",
                               "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}),
], ids=["server-error", "context-overflow"])
def test_an_error_that_does_not_name_the_form_is_a_failure_not_a_refusal(reply):
    with FakeOpenAI(responder=lambda body: reply) as srv:
        backend = OpenAIBackend(backend_settings(srv, llm_max_retries=0))
        with pytest.raises(BackendError):
            backend.compose(QUESTION, [evidence("REQ-S001", QUOTE)])
    assert {form_of(b) for b in srv.requests} == {"json_schema"}
    assert backend.structured_output == "json_schema"
