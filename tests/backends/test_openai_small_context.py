"""A small model's context, as a real server enforces it: the reply schemas are bounded so a
server that constrains decoding (llama.cpp's grammars, vLLM, Ollama) ends the reply within its
token budget; a reply cut at the limit is never sent back (the retry asks for less); a server
that says the prompt does not fit teaches the backend its context, and the request shrinks."""

from __future__ import annotations

import pytest

from tests.backends.fake_openai import FakeOpenAI, backend_settings, completion, error, evidence
from tests.backends.test_structured_output import schema_sent
from workbench.backends.openai import OpenAIBackend, estimate_tokens
from workbench.errors import BackendError
from workbench.models import Chunk

QUESTION = "What must organizations do to limit system access?"
QUOTE = "Organizations shall limit system access to authorized users."
TEXT = ("Organizations shall limit system access to authorized users and shall review the access "
        "records of every privileged account at least once a quarter. ") * 8  # ~1,500 characters
# llama-cpp-python 0.3.36's answer to a prompt longer than its n_ctx (server/errors.py), HTTP 400
LLAMA_CPP_TOO_LONG = ("This model's maximum context length is {n} tokens. However, you requested {t} tokens "
                      "({p} in the messages, {c} in the completion). Please reduce the length of the messages "
                      "or completion.")


def chunks(n: int, text: str = TEXT) -> list[Chunk]:
    return [Chunk(chunk_id=f"doc00001-c{i:04d}", document_id="doc", start=0, end=len(text), text=text, page=i + 1)
            for i in range(n)]


def prompt_tokens(body: dict) -> int:
    return sum(estimate_tokens(m["content"]) + 8 for m in body["messages"])


def props(schema: dict, *path: str) -> dict:
    for key in path:
        schema = schema["items"] if key == "[]" else schema["properties"][key]
    return schema


def test_the_extract_schema_bounds_the_reply_to_its_budget():
    with FakeOpenAI(responder=lambda body: completion({"requirements": []})) as srv:
        backend = OpenAIBackend(backend_settings(srv, llm_context_tokens=2048))
        backend.extract(QUESTION, chunks(2))
    body = srv.requests[0]
    schema, budget = schema_sent(body), body["max_tokens"]
    assert budget == 512  # a quarter of the context
    item = props(schema, "requirements", "[]")
    assert props(schema, "requirements")["maxItems"] >= 1
    assert item["properties"]["chunk_id"]["enum"] == ["doc00001-c0000", "doc00001-c0001"]
    assert set(item["properties"]) == {"chunk_id", "exact_quote", "extraction_confidence"}
    assert schema["additionalProperties"] is False and item["additionalProperties"] is False
    # one whole item fits the budget even at one character per token: a grammar cannot cut every quote
    assert item["properties"]["exact_quote"]["maxLength"] + len('{"chunk_id":"doc00001-c0000","exact_quote":"",'
                                                                '"extraction_confidence":"medium"}') < budget


def test_verify_and_compose_schemas_are_bounded_too():
    with FakeOpenAI() as srv:
        backend = OpenAIBackend(backend_settings(srv, llm_context_tokens=2048))
        srv.script(completion({"verified": False, "rejection_reason": "requires_inference",
                               "verification_rationale": "no"}),
                   completion({"final_answer": "Organizations shall limit access [REQ-S001]."}))
        backend.verify(QUESTION, [evidence("REQ-S001", QUOTE)])
        backend.compose(QUESTION, [evidence("REQ-S001", QUOTE)])
    verify, compose = (schema_sent(b) for b in srv.requests)
    assert set(verify["properties"]["rejection_reason"]["enum"]) == {
        "does_not_address_question", "requires_inference", "incomplete_quote", "not_a_requirement", None}
    assert verify["properties"]["verification_rationale"]["maxLength"] < srv.requests[0]["max_tokens"]
    assert set(compose["properties"]) == {"final_answer"}  # the references come from the answer's citations
    assert compose["properties"]["final_answer"]["maxLength"] <= 2 * srv.requests[1]["max_tokens"]


def test_no_string_in_a_reply_schema_is_longer_than_a_grammar_parser_takes():
    """llama-cpp-python's grammar parser fails past ~1,000 characters of maxLength, taking the server
    down: however large the context, every bounded string stays within MAX_STRING_CHARS."""
    import json
    import re

    from workbench.backends.openai import MAX_STRING_CHARS

    with FakeOpenAI() as srv:
        backend = OpenAIBackend(backend_settings(srv, llm_context_tokens=131072, quote_max_words=400))
        srv.script(completion({"requirements": []}),
                   completion({"final_answer": "Organizations shall limit access [REQ-S001]."}),
                   completion({"sentences": [{"index": 0, "supported": True, "reason": "ok"}]}))
        backend.extract(QUESTION, chunks(1))
        backend.compose(QUESTION, [evidence("REQ-S001", QUOTE)])
        backend.support(["Organizations shall limit access [REQ-S001]."], [evidence("REQ-S001", QUOTE)])
    lengths = [int(n) for b in srv.requests for n in re.findall(r'"maxLength": (\d+)', json.dumps(schema_sent(b)))]
    assert len(lengths) == 3 and max(lengths) <= MAX_STRING_CHARS


def test_a_reply_cut_at_the_limit_is_not_sent_back_and_the_retry_asks_for_less():
    cut = completion('{"requirements": [{"chunk_id": "doc00001-c0000", "exact_quote": "Organizations sh',
                     finish_reason="length")
    with FakeOpenAI() as srv:
        srv.script(cut, completion({"requirements": [{"chunk_id": "doc00001-c0000", "exact_quote": QUOTE}]}))
        backend = OpenAIBackend(backend_settings(srv, llm_context_tokens=2048))
        [cand] = backend.extract(QUESTION, chunks(1))
    first, retry = srv.requests
    assert cand.exact_quote == QUOTE
    assert [m["role"] for m in retry["messages"]] == ["system", "user", "user"]  # no assistant turn carried back
    assert "Organizations sh" not in "".join(m["content"] for m in retry["messages"][2:])
    assert prompt_tokens(retry) + retry["max_tokens"] <= 2048
    a, b = (props(schema_sent(x), "requirements") for x in (first, retry))
    assert b["maxItems"] <= a["maxItems"] and b["items"]["properties"]["exact_quote"]["maxLength"] < \
        a["items"]["properties"]["exact_quote"]["maxLength"]


def llama_cpp(n_ctx: int):
    """A responder that enforces a context as llama-cpp-python does: HTTP 400 and its message when
    the prompt (as estimated here) and the completion do not fit, else an empty extract reply."""
    def respond(body: dict):
        p = prompt_tokens(body)
        if p + body.get("max_tokens", 0) > n_ctx:
            return error(400, LLAMA_CPP_TOO_LONG.format(n=n_ctx, t=p + body["max_tokens"], p=p, c=body["max_tokens"]),
                         code="context_length_exceeded")
        return completion({"requirements": []})
    return respond


def test_a_server_that_says_its_context_is_smaller_teaches_the_backend_and_the_request_is_split():
    """The setting says 8192 (the default), the server has 2048: the first extract call is
    refused, the backend learns 2048 from what the server says, and the chunks go in calls that fit."""
    with FakeOpenAI(responder=llama_cpp(2048)) as srv:
        backend = OpenAIBackend(backend_settings(srv))  # llm_context_tokens: the default
        assert backend.context_tokens() == 8192
        many = chunks(8)
        [batch] = backend.extract_batches(QUESTION, many)
        assert backend.extract(QUESTION, batch) == []
        assert backend.context_tokens() == 2048
        assert len(backend.extract_batches(QUESTION, many)) > 1  # later questions are sized right at once
    refused, *rest = srv.requests
    assert prompt_tokens(refused) + refused["max_tokens"] > 2048
    assert rest and all(prompt_tokens(b) + b["max_tokens"] <= 2048 for b in rest)
    asked = {c.chunk_id for b in rest for c in many if c.chunk_id in b["messages"][1]["content"]}
    assert asked == {c.chunk_id for c in many}  # every chunk still read
    notes = backend.usage()["extract"].raw_failures
    assert any("maximum context length is 2048" in n and "shrinking" in n for n in notes)


def test_one_chunk_longer_than_the_context_is_cut_to_what_fits():
    long = chunks(1, TEXT * 6)  # ~9,000 characters: more than a 2048-token context holds with its reply
    with FakeOpenAI(responder=llama_cpp(2048)) as srv:
        backend = OpenAIBackend(backend_settings(srv, llm_context_tokens=2048))
        assert backend.extract(QUESTION, long) == []
    [body] = srv.requests  # the estimate said it would not fit: the cut chunk is the only request
    assert prompt_tokens(body) + body["max_tokens"] <= 2048
    assert TEXT[:200] in body["messages"][1]["content"]


def test_a_verify_prompt_that_cannot_fit_fails_that_item_visibly():
    with FakeOpenAI(responder=llama_cpp(2048)) as srv:
        backend = OpenAIBackend(backend_settings(srv, llm_context_tokens=300))
        with pytest.raises(BackendError, match="context"):
            backend.verify(QUESTION, [evidence("REQ-S001", QUOTE * 20)])
    assert srv.requests == []


def test_a_raw_line_break_inside_a_quote_is_read_not_retried():
    """llama.cpp's grammar for a JSON string lets a model copy a line break raw (a control
    character strict JSON refuses): the reply is read as the model meant it, in one call."""
    raw = '{"requirements": [{"chunk_id": "doc00001-c0000", "exact_quote": "Organizations shall limit\nsystem access"}]}'
    with FakeOpenAI() as srv:
        srv.script(completion(raw))
        backend = OpenAIBackend(backend_settings(srv, llm_context_tokens=2048))
        [cand] = backend.extract(QUESTION, chunks(1))
    assert cand.exact_quote == "Organizations shall limit system access" and len(srv.requests) == 1
