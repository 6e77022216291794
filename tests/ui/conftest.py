"""UI fixtures: a workspace holding a PDF the tests made and a run whose evidence is anchored
in it through workbench.pdf (so the viewer has real rects), stored through the real store."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from workbench.config import get_settings

ROOT = Path(__file__).resolve().parents[2]

PAGE1 = ("Access control policy. The organization shall limit system access to authorized users and "
         "processes acting on behalf of authorized users. Accounts are reviewed every quarter.")
PAGE2 = ("Audit and accountability. The organization shall review and analyze system audit records "
         "weekly for indications of inappropriate or unusual activity. Audit logs are retained for one year.")
QUOTES = [
    ("limit system access to authorized users and processes acting on behalf of authorized users", True),
    ("review and analyze system audit records weekly for indications of inappropriate or unusual activity", True),
    ("Audit logs are retained for one year", False),
]
QUESTION = "What must the organization do about access and audit records?"


def shown(markdown: str) -> str:
    """The characters a reader sees for Markdown source the app wrote through workbench.ui.safe:
    backslash escapes resolved, the invisible word joiners gone."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", str(markdown)).replace("\u2060", "")


def seed_run(wb, doc_id: str, run_id: str = "run-ui-test", question: str = QUESTION):
    """Store a run over `doc_id` with two verified items and one rejected, and a two-sentence
    answer citing the verified ones."""
    from workbench.models import Answer, Evidence, RequirementReference, Run, SentenceSupport, Verification

    parsed = wb.parsed(doc_id)
    evidence, verifications = [], []
    for i, (quote, ok) in enumerate(QUOTES):
        span = parsed.locate(quote)
        assert span is not None, quote
        rid = wb.store.assign_evidence_id(doc_id, span.start, span.end, "policy")
        evidence.append(Evidence(requirement_id=rid, source_type="policy", document_id=doc_id, exact_quote=quote,
                                 chunk_id=f"c{i}", span=span))
        verifications.append(Verification(
            requirement_id=rid, verified=ok, score=0.9 if ok else 0.2,
            rejection_reason=None if ok else "does_not_address_question",
            verification_rationale="addresses the question" if ok else "about retention, not review"))
    a, b = evidence[0].requirement_id, evidence[1].requirement_id
    sentences = [
        SentenceSupport(text=f"The organization must limit system access to authorized users [{a}].",
                        citations=[a], supported=True),
        SentenceSupport(text=f"It must review audit records weekly [{b}].", citations=[b], supported=True),
    ]
    answer = Answer(final_answer=" ".join(s.text for s in sentences), sentences=sentences, support_ratio=1.0,
                    citation_coverage=1.0, grounding_confidence="medium",
                    requirement_references=[RequirementReference(requirement_id=x, used_in_answer=True, statement="")
                                            for x in (a, b)])
    run = Run(run_id=run_id, question=question, document_ids=[doc_id], evidence=evidence,
              verifications=verifications, answer=answer, stage_timings={"retrieval": 0.1})
    wb.store.save_run(run)
    return run


VENDOR = [
    "Vendor terms. The supplier delivers the goods within thirty days of each purchase order.",
    "Payment. Invoices are payable within forty five days of receipt by the customer.",
    "Confidentiality. The supplier shall keep the customer's data confidential for five years after the term.",
]
TWO_DOC_QUOTES = {  # document file name -> its quotes (page 2 of the policy, page 3 of the vendor terms)
    "policy.pdf": ["limit system access to authorized users and processes acting on behalf of authorized users",
                   "review and analyze system audit records weekly for indications of inappropriate or unusual activity"],
    "vendor.pdf": ["keep the customer's data confidential for five years after the term",
                   "Invoices are payable within forty five days of receipt by the customer"],
}


def two_document_run(tmp_path, monkeypatch, make_pdf, **env: str):
    """A workspace holding policy.pdf and vendor.pdf and one run with two verified items in each,
    its answer citing one item of each document."""
    from workbench.config import get_settings
    from workbench.models import Answer, Evidence, RequirementReference, Run, SentenceSupport, Verification
    from workbench.service import Workbench

    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "workspace"))
    for k, v in env.items():
        monkeypatch.setenv(f"WORKBENCH_{k.upper()}", v)
    get_settings.cache_clear()
    wb = Workbench(get_settings())
    docs = {"policy.pdf": wb.ingest(make_pdf([PAGE1, PAGE2], name="policy.pdf", fontsize=10), "policy.pdf",
                                    source_type="policy"),
            "vendor.pdf": wb.ingest(make_pdf(VENDOR, name="vendor.pdf", fontsize=10), "vendor.pdf",
                                    source_type="contract")}
    evidence, where = [], {}
    for name, quotes in TWO_DOC_QUOTES.items():
        parsed = wb.parsed(docs[name].id)
        for i, quote in enumerate(quotes):
            span = parsed.locate(quote)
            assert span is not None, quote
            rid = wb.store.assign_evidence_id(docs[name].id, span.start, span.end, "policy")
            evidence.append(Evidence(requirement_id=rid, source_type="policy", document_id=docs[name].id,
                                     exact_quote=quote, chunk_id=f"{name}-{i}", span=span))
            where[rid] = (name, docs[name].id, span.page)
    cited = [evidence[0].requirement_id, evidence[2].requirement_id]  # the policy's first, the vendor's first
    sentences = [SentenceSupport(text=f"Access is limited to authorized users [{cited[0]}].", citations=[cited[0]],
                                 supported=True),
                 SentenceSupport(text=f"Customer data stays confidential for five years [{cited[1]}].",
                                 citations=[cited[1]], supported=True)]
    answer = Answer(final_answer=" ".join(s.text for s in sentences), sentences=sentences, support_ratio=1.0,
                    citation_coverage=1.0, grounding_confidence="medium",
                    requirement_references=[RequirementReference(requirement_id=x, used_in_answer=True, statement="")
                                            for x in cited])
    run = Run(run_id="run-two-docs", question="What do the policy and the vendor terms require?",
              document_ids=[d.id for d in docs.values()], evidence=evidence,
              verifications=[Verification(requirement_id=e.requirement_id, verified=True, score=0.9)
                             for e in evidence], answer=answer, stage_timings={"retrieval": 0.1})
    wb.store.save_run(run)
    order = [s.evidence.requirement_id for s in wb.review_queue(run.run_id, "document")]
    return wb, run, where, order, cited


@pytest.fixture
def policy_pdf(make_pdf) -> Path:
    return make_pdf([PAGE1, PAGE2], name="policy.pdf")


@pytest.fixture
def workspace(data_dir, policy_pdf):
    """(Workbench, document, run) in a fresh data dir."""
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    doc = wb.ingest(policy_pdf, "policy.pdf", source_type="policy")
    return wb, doc, seed_run(wb, doc.id)
