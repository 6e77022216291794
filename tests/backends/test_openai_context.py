"""Small models: extract calls are sized to the model's context, read from the server where it
says (llama.cpp's /props, vLLM's max_model_len in /v1/models), else the setting; the completion
budget leaves room in that context; the pipeline reports progress between extract calls."""

from __future__ import annotations

from tests.backends.fake_openai import FakeOpenAI, Reply, backend_settings, completion
from workbench.backends.openai import OpenAIBackend, estimate_tokens
from workbench.models import Chunk

QUESTION = "What must organizations do to limit system access?"
WORDS = ("Organizations shall limit system access to authorized users and shall review the access "
         "records of every privileged account at least once a quarter. ") * 8  # ~170 words


def chunks(n: int) -> list[Chunk]:
    return [Chunk(chunk_id=f"c{i}", document_id="doc", start=0, end=len(WORDS), text=WORDS, page=i + 1)
            for i in range(n)]


def test_llama_cpp_props_context_sizes_the_extract_calls():
    with FakeOpenAI(responder=lambda body: completion({"requirements": []})) as srv:
        srv.routes["/props"] = Reply(body={"default_generation_settings": {"n_ctx": 2048}, "total_slots": 1})
        backend = OpenAIBackend(backend_settings(srv))
        assert backend.context_tokens() == 2048
        batches = backend.extract_batches(QUESTION, chunks(8))
        assert len(batches) > 1 and sorted(c.chunk_id for b in batches for c in b) == sorted(f"c{i}" for i in range(8))
        for b in batches:
            backend.extract(QUESTION, b, None)
    for body in srv.requests:
        prompt_tokens = sum(estimate_tokens(m["content"]) for m in body["messages"])
        assert prompt_tokens + body["max_tokens"] <= 2048  # the reply has room in the context
        assert body["max_tokens"] <= 2048 // 4


def test_vllm_max_model_len_is_read_from_the_models_list():
    with FakeOpenAI() as srv:
        srv.routes["/v1/models"] = Reply(body={"object": "list", "data": [
            {"id": "other", "object": "model", "max_model_len": 1024},
            {"id": "fake-model", "object": "model", "max_model_len": 32768}]})
        backend = OpenAIBackend(backend_settings(srv))
        assert backend.context_tokens() == 32768
        assert len(backend.extract_batches(QUESTION, chunks(8))) == 1


def test_without_a_reported_context_the_setting_decides():
    with FakeOpenAI() as srv:  # GET routes answer 404
        backend = OpenAIBackend(backend_settings(srv, llm_context_tokens=1500))
        assert backend.context_tokens() == 1500
        assert len(backend.extract_batches(QUESTION, chunks(8))) >= 4


def test_the_pipeline_reports_progress_between_extract_calls(make_pdf):
    from workbench import pipeline
    from workbench.pdf import open_pdf

    doc = open_pdf(make_pdf([WORDS] * 6, name="access.pdf"))

    class PageRetriever:
        def retrieve(self, question, docs, top_k=None):
            return [Chunk(chunk_id=f"c{p.number}", document_id=d.document.id, start=p.start, end=p.end,
                          text=d.text[p.start:p.end], page=p.number) for d in docs for p in d.pages]

    events = []
    with FakeOpenAI(responder=lambda body: completion({"requirements": []})) as srv:
        s = backend_settings(srv, llm_context_tokens=1500)
        r = pipeline.run_question(QUESTION, [doc], retriever=PageRetriever(), backend=OpenAIBackend(s),
                                  ids=pipeline.MemoryIds(), settings=s, on_event=events.append)
    progress = [e for e in events if e.stage == "extract" and e.status == "progress" and "chunks" in e.counts]
    assert len(progress) == len(srv.requests) > 1
    assert progress[-1].message == "6 of 6 chunks" and progress[-1].counts["chunks_done"] == 6
    assert [e.counts["chunks_done"] for e in progress] == sorted(e.counts["chunks_done"] for e in progress)
    assert not r.failures and r.usage["extract"].calls == len(srv.requests)
