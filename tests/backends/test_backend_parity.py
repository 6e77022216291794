"""Issue 38: both backends judge a quote from the same inputs — the quote and its unit facts
(lead-in, trimmed, at-clause), carried on the evidence item and read from the document — so
they cannot disagree. The openai backend, against a scripted server that proposes exactly the
quotes the rules backend extracted and accepts every one, gets the rules backend's verdicts.
Before, WHO's list item "peer and lay health worker support …" was verified through `rules`
(its lead-in remembered from Extract in a process-wide dictionary) and rejected as
`incomplete_quote` through `openai`, which judged it without its lead-in."""

from __future__ import annotations

import json
import re

import pytest

from tests.backends.fake_openai import FakeOpenAI, backend_settings, completion
from workbench.backends.openai import OpenAIBackend
from workbench.backends.rules import RulesBackend
from workbench.config import Settings
from workbench.models import Chunk

pipeline = pytest.importorskip("workbench.pipeline")

WHO = "pdfs/regulatory/WHO-HCV-guidelines-2022.pdf"
QUESTION = "Which interventions promote uptake of hepatitis testing?"
PEER = "peer and lay health worker support in community-based settings"


class PagesRetriever:
    """Retrieval is not under test: the pages around the list, each one chunk."""

    def __init__(self, pages: set[int]):
        self.pages = pages

    def retrieve(self, question, docs, top_k=None):
        return [Chunk(chunk_id=f"c{p.number}", document_id=d.document.id, start=p.start, end=p.end,
                      text=d.text[p.start:p.end], page=p.number) for d in docs for p in d.pages if p.number in self.pages]


def squash(text: str) -> str:
    """A quote's words: the locator anchors an LLM's quote without its edge punctuation ("…)." )."""
    return " ".join(text.split()).rstrip(" .,;:)")


@pytest.fixture(scope="module")
def who(request):
    from tests.conftest import CORPUS
    from workbench.pdf import open_pdf

    if not (CORPUS / WHO).exists():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    return open_pdf(CORPUS / WHO)


def test_the_same_quotes_get_the_same_verdicts_through_both_backends(who):
    at = who.text.index(PEER) if PEER in who.text else squash(who.text).index(PEER)
    page = next(p.number for p in who.pages if p.start <= at < p.end)
    retriever = PagesRetriever({page - 1, page, page + 1})
    rules = pipeline.run_question(QUESTION, [who], retriever=retriever, backend=RulesBackend(Settings()),
                                  ids=pipeline.MemoryIds(), settings=Settings(), source_type="policy")
    by_rules = {squash(e.exact_quote): v for e, v in zip(rules.evidence, rules.verifications, strict=True)
                if e.span is not None}
    peer = next(q for q in by_rules if q.startswith(PEER))
    assert by_rules[peer].verified, by_rules[peer].verification_rationale
    quotes = list(by_rules)
    proposed = [e.exact_quote for e in rules.evidence if e.span is not None]  # exactly as the rules backend quoted

    def model(body):
        system = body["messages"][0]["content"]
        if "extraction specialist" in system:
            chunk = re.search(r'"chunk_id":\s*"(c\d+)"', body["messages"][-1]["content"])
            return completion({"requirements": [{"chunk_id": chunk.group(1) if chunk else f"c{page}",
                                                 "exact_quote": q} for q in proposed]})
        if "verification specialist" in system:
            return completion({"verified": True, "verification_rationale": "accepted", "score": 1.0})
        if "summary writer" in system:
            ids = sorted(set(re.findall(r"REQ-[A-Z]+\d+", body["messages"][-1]["content"])))
            return completion({"final_answer": " ".join(f"It is listed [{i}]." for i in ids[:1])})
        n = len(json.loads(body["messages"][-1]["content"].split("Draft sentences to check (untrusted data):\n")[1]
                           .split("\n", 1)[1].rsplit("\n", 1)[0]))
        return completion({"sentences": [{"index": i, "supported": True} for i in range(n)]})

    with FakeOpenAI(responder=model) as srv:
        s = backend_settings(srv, llm_timeout=30.0)
        llm = pipeline.run_question(QUESTION, [who], retriever=retriever, backend=OpenAIBackend(s),
                                    ids=pipeline.MemoryIds(), settings=s, source_type="policy")
    by_llm = {squash(e.exact_quote): v for e, v in zip(llm.evidence, llm.verifications, strict=True)
              if e.span is not None}
    shared = [q for q in quotes if q in by_llm]
    assert peer in shared and len(shared) >= len(quotes) - 1  # every quote found again (one may repeat in the text)
    disagree = {q[:60]: ((by_rules[q].verified, by_rules[q].rejection_reason), (by_llm[q].verified, by_llm[q].rejection_reason))
                for q in shared if (by_rules[q].verified, by_rules[q].rejection_reason)
                != (by_llm[q].verified, by_llm[q].rejection_reason)}
    assert not disagree
    assert by_llm[peer].verified
