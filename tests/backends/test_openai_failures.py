"""How the openai backend fails: malformed replies get one bounded retry then a visible
BackendError carrying the raw reply; HTTP errors and timeouts retry as the client's bounded
back-off allows (Retry-After honoured) and end in a BackendError that says what to do."""

from __future__ import annotations

import re

import pytest

from tests.backends.fake_openai import FakeOpenAI, backend_settings, completion, error, evidence, verdict
from workbench.backends.openai import OpenAIBackend
from workbench.errors import BackendError

QUESTION = "What services must counties provide to adults with severe mental illness?"
GOOD = "Counties shall provide community-based services to adults with severe mental illness."


@pytest.fixture
def srv():
    with FakeOpenAI() as s:
        yield s


@pytest.fixture
def waits(monkeypatch):
    """Record the client's retry delays instead of sleeping them (no timing in tests)."""
    recorded: list[float] = []
    from openai import OpenAI

    original = OpenAI._calculate_retry_timeout

    def record(self, *args, **kwargs):
        recorded.append(original(self, *args, **kwargs))
        return 0.0

    monkeypatch.setattr(OpenAI, "_calculate_retry_timeout", record)
    return recorded


# --- malformed output -------------------------------------------------------------------------------
MALFORMED = {
    "invalid JSON": completion('{"verified": true, "verification_rationale": "ok"'),
    "wrong schema": completion({"answer": "yes", "confidence": 0.9}),
    "empty": completion(""),
    "truncated": completion('{"verified": true, "verification_rationale": "the quote', finish_reason="length"),
    "filtered": completion('{"verified": true, "verification_rationale": "ok"}', finish_reason="content_filter"),
}


@pytest.mark.parametrize("kind", list(MALFORMED))
def test_malformed_reply_is_retried_once_and_a_good_second_reply_is_used(srv, kind):
    backend = OpenAIBackend(backend_settings(srv))
    srv.script(MALFORMED[kind], verdict(True))
    [v] = backend.verify(QUESTION, [evidence("REQ-S001", GOOD)])
    assert v.verified and len(srv.requests) == 2
    retry_msgs = srv.requests[1]["messages"]
    assert retry_msgs[-1]["role"] == "user" and "not usable" in retry_msgs[-1]["content"]
    assert len(backend.usage()["verify"].raw_failures) == 1


@pytest.mark.parametrize("kind", list(MALFORMED))
def test_malformed_twice_fails_the_stage_visibly_with_the_raw_reply(srv, kind):
    backend = OpenAIBackend(backend_settings(srv))
    srv.script(MALFORMED[kind], MALFORMED[kind])
    with pytest.raises(BackendError, match="unusable after one retry") as info:
        backend.compose(QUESTION, [evidence("REQ-S001", GOOD)])
    assert info.value.raw == MALFORMED[kind].body["choices"][0]["message"]["content"]
    assert len(srv.requests) == 2  # bounded: exactly one retry
    assert len(backend.usage()["compose"].raw_failures) == 2


def test_an_extract_reply_cut_off_mid_list_keeps_its_complete_quotes(srv):
    """A small model that runs out of tokens while listing quotes: the complete ones are used (and
    still anchored and verified downstream), the cut is recorded, and no retry repeats the work."""
    from workbench.models import Chunk

    chunk = Chunk(chunk_id="c1", document_id="doc-1", start=0, end=len(GOOD), page=1, text=GOOD)
    cut = '{"requirements": [{"chunk_id": "c1", "exact_quote": "' + GOOD + '"}, {"chunk_id": "c1", "exact_quo'
    srv.script(completion(cut, finish_reason="length"))
    backend = OpenAIBackend(backend_settings(srv))
    [cand] = backend.extract(QUESTION, [chunk])
    assert cand.exact_quote == GOOD and len(srv.requests) == 1
    [note] = backend.usage()["extract"].raw_failures
    assert "finish_reason=length" in note and "kept the 1 complete item(s)" in note


def test_a_cut_off_reply_with_no_complete_item_is_retried(srv):
    from workbench.models import Chunk

    chunk = Chunk(chunk_id="c1", document_id="doc-1", start=0, end=len(GOOD), page=1, text=GOOD)
    srv.script(completion('{"requirements": [{"chunk_id": "c1", "exact_quote": "Counties sh', finish_reason="length"),
               completion({"requirements": [{"chunk_id": "c1", "exact_quote": GOOD}]}))
    backend = OpenAIBackend(backend_settings(srv))
    [cand] = backend.extract(QUESTION, [chunk])
    assert cand.exact_quote == GOOD and len(srv.requests) == 2


def test_malformed_verdicts_for_every_item_fail_the_verify_stage(srv):
    backend = OpenAIBackend(backend_settings(srv))
    srv.responder = lambda body: completion("I think it is verified!")
    with pytest.raises(BackendError, match="verify failed for all 2") as info:
        backend.verify(QUESTION, [evidence("REQ-S001", GOOD), evidence("REQ-S002", GOOD)])
    assert info.value.raw == "I think it is verified!"
    assert len(srv.requests) == 4


# --- HTTP errors and timeouts --------------------------------------------------------------------------
def test_slow_reply_past_the_timeout_fails_and_retries_do_not_extend_the_deadline(srv, waits):
    backend = OpenAIBackend(backend_settings(srv, llm_timeout=0.3, llm_max_retries=3))
    slow = completion({"final_answer": "Too late [REQ-S001]."})
    slow.delay = 2.0
    srv.responder = lambda body: slow
    with pytest.raises(BackendError, match=r"did not answer within 0.3 s.*WORKBENCH_LLM_TIMEOUT"):
        backend.compose(QUESTION, [evidence("REQ-S001", GOOD)])
    assert backend.usage()["compose"].calls == 1


def test_a_server_trickling_bytes_cannot_hold_a_call_past_its_one_deadline(srv):
    """WORKBENCH_LLM_TIMEOUT is the whole call's: a reply sent one byte a second never trips a
    per-read timeout (and would take minutes to finish), yet the call ends at its deadline."""
    backend = OpenAIBackend(backend_settings(srv, llm_timeout=3.0, llm_max_retries=0))
    trickle = verdict(True)
    trickle.trickle = 1.0
    srv.responder = lambda body: trickle
    with pytest.raises(BackendError, match=r"did not answer within 3 s"):
        backend.compose(QUESTION, [evidence("REQ-S001", GOOD)])
    assert len(srv.requests) == 1


def test_rate_limit_then_success_honours_retry_after(srv, waits):
    backend = OpenAIBackend(backend_settings(srv, llm_max_retries=2))
    srv.script(error(429, "Rate limit reached", headers={"Retry-After": "7"}), verdict(True))
    [v] = backend.verify(QUESTION, [evidence("REQ-S001", GOOD)])
    assert v.verified and len(srv.requests) == 2
    assert waits == [7.0]  # the server's Retry-After, not the default back-off


def test_rate_limit_without_retry_after_backs_off_exponentially_then_fails(srv, waits):
    backend = OpenAIBackend(backend_settings(srv, llm_max_retries=3))
    srv.responder = lambda body: error(429, "Rate limit reached")
    with pytest.raises(BackendError, match=r"rate-limiting \(429\) after 3 retries"):
        backend.compose(QUESTION, [evidence("REQ-S001", GOOD)])
    assert len(srv.requests) == 4 and len(waits) == 3
    assert waits[0] < waits[1] < waits[2]


def test_server_error_is_retried_a_bounded_number_of_times_then_fails(srv, waits):
    backend = OpenAIBackend(backend_settings(srv, llm_max_retries=2))
    srv.responder = lambda body: error(500, "The server had an error while processing your request.")
    with pytest.raises(BackendError, match=r"HTTP 500 after 2 retries") as info:
        backend.compose(QUESTION, [evidence("REQ-S001", GOOD)])
    assert len(srv.requests) == 3
    assert "server had an error" in (info.value.raw or "")


def test_server_error_then_success_recovers(srv, waits):
    backend = OpenAIBackend(backend_settings(srv, llm_max_retries=2))
    srv.script(error(500, "transient"), verdict(True))
    [v] = backend.verify(QUESTION, [evidence("REQ-S001", GOOD)])
    assert v.verified and len(srv.requests) == 2


def test_bad_api_key_fails_at_once_with_a_clear_message(srv, waits):
    backend = OpenAIBackend(backend_settings(srv, llm_max_retries=3))
    srv.responder = lambda body: error(401, "Incorrect API key provided", code="invalid_api_key")
    with pytest.raises(BackendError, match=r"refused the API key \(401\): set a valid OPENAI_API_KEY"):
        backend.compose(QUESTION, [evidence("REQ-S001", GOOD)])
    assert len(srv.requests) == 1 and waits == []


def test_unknown_model_says_to_check_the_model_name(srv):
    backend = OpenAIBackend(backend_settings(srv))
    srv.script(error(404, "model 'fake-model' not found"))
    with pytest.raises(BackendError, match="WORKBENCH_MODEL"):
        backend.compose(QUESTION, [evidence("REQ-S001", GOOD)])


def test_nothing_listening_is_a_connection_error_naming_the_base_url(waits):
    with FakeOpenAI() as s:
        settings = backend_settings(s, llm_max_retries=1)
    backend = OpenAIBackend(settings)  # the server is gone: its port refuses connections
    with pytest.raises(BackendError, match=re.escape("Cannot connect to http://127.0.0.1:") + r"\d+/v1"):
        backend.compose(QUESTION, [evidence("REQ-S001", GOOD)])


def test_a_refusal_is_retried_once_then_fails_with_the_refusal_as_raw(srv):
    backend = OpenAIBackend(backend_settings(srv))
    refusal = completion("")
    refusal.body["choices"][0]["message"] = {"role": "assistant", "content": None, "refusal": "I can't help with that."}
    srv.script(refusal, refusal)
    with pytest.raises(BackendError, match="refused") as info:
        backend.compose(QUESTION, [evidence("REQ-S001", GOOD)])
    assert info.value.raw == "[refusal] I can't help with that." and len(srv.requests) == 2
