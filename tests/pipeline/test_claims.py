"""Claim checking end to end: a PDF, the real index and embedder, the shipped verdict weights."""

from __future__ import annotations

import json

import pytest

from workbench.cli import main
from workbench.config import get_settings
from workbench.errors import WorkbenchError

NDA = (
    "MUTUAL NON-DISCLOSURE AGREEMENT\n\n"
    "1. Definitions. Confidential Information means all technical and business information disclosed by "
    "one party to the other, whether in writing or orally.\n\n"
    "2. Obligations. The Receiving Party shall hold the Confidential Information in strict confidence and "
    "shall use it only to evaluate the proposed business relationship.\n\n"
    "3. Return of Materials. Upon termination of this Agreement, the Receiving Party shall promptly return "
    "or destroy all Confidential Information and any copies thereof.\n\n"
    "4. Term. This Agreement remains in force for three years from the Effective Date.\n\n"
    "5. Governing Law. This Agreement is governed by the laws of the State of New York."
)
ON_TOPIC = "The Receiving Party shall return or destroy Confidential Information upon termination of the Agreement."
OFF_TOPIC = "The supplier must deliver five hundred tons of structural steel to the harbour every month."


@pytest.fixture
def nda(make_pdf, data_dir):
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    doc_id = wb.ingest(make_pdf([NDA], name="nda.pdf")).id
    return wb, doc_id


def test_claim_stated_in_the_document_is_supported_with_its_clause_first(nda):
    wb, doc_id = nda
    [check] = wb.check_claims([ON_TOPIC], [doc_id])
    assert check.supported, check.reason
    assert 0.5 <= check.score <= 1.0
    assert "return or destroy" in " ".join(check.evidence[0].text.split())
    assert check.reason.startswith("Supported")


def test_off_topic_claim_is_not_stated(nda):
    wb, doc_id = nda
    [check] = wb.check_claims([OFF_TOPIC], [doc_id])
    assert not check.supported and check.verdict == "not_stated"
    assert check.score < 0.5
    assert check.reason.startswith("Not stated")


def test_a_claim_the_document_says_otherwise_is_contradicted_with_the_clause_that_does(nda):
    wb, doc_id = nda
    [check] = wb.check_claims(["This Agreement is governed by the laws of the State of California."], [doc_id])
    assert check.verdict == "contradicted" and not check.supported, check.reason
    assert "New York" in check.evidence[0].text  # the deciding span first: the clause that says otherwise
    assert check.reason.startswith("Contradicted")


def test_verdicts_in_verify_json(nda, make_pdf, capsys):
    pdf = make_pdf([NDA], name="nda2.pdf")
    assert main(["verify", str(pdf), "--claim", ON_TOPIC, "--claim", "This Agreement remains in force for ten years.",
                 "--claim", OFF_TOPIC, "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert [r["verdict"] for r in rows] == ["supported", "contradicted", "not_stated"], rows
    assert [r["supported"] for r in rows] == [True, False, False]


def test_evidence_is_at_most_five_non_overlapping_spans_that_read_back_from_the_pdf(nda):
    wb, doc_id = nda
    [check] = wb.check_claims([ON_TOPIC], [doc_id])
    doc = wb.parsed(doc_id)
    assert 1 <= len(check.evidence) <= 5
    for e in check.evidence:
        assert doc.text[e.start:e.end] == e.text
        assert e.rects and all(r[0] == e.page for r in e.rects[:1])
    spans = sorted((e.start, e.end) for e in check.evidence)
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:], strict=False))


def test_claims_come_back_in_order_and_a_blank_claim_is_unsupported(nda):
    wb, doc_id = nda
    checks = wb.check_claims([OFF_TOPIC, "   ", ON_TOPIC], [doc_id])
    assert [c.claim for c in checks] == [OFF_TOPIC, "   ", ON_TOPIC]
    assert not checks[1].supported and checks[1].evidence == []


def test_claim_checking_needs_documents_and_a_known_backend(nda):
    wb, doc_id = nda
    with pytest.raises(WorkbenchError, match="No documents"):
        wb.check_claims([ON_TOPIC], [])
    with pytest.raises(WorkbenchError, match="Unknown backend"):
        wb.check_claims([ON_TOPIC], [doc_id], backend="oracle")


def test_an_llm_backend_can_only_reject_more(nda, monkeypatch):
    """With another backend, its claim_support verdict is ANDed with the rules verdict."""
    import workbench.backends as backends

    class Refuses:
        def claim_support(self, claim, texts):
            assert texts, "the LLM sees the same evidence spans"
            return False, 0.0, "LLM: the evidence does not say this"

    class Accepts:
        def claim_support(self, claim, texts):
            return True, 1.0, "LLM: supported"

    wb, doc_id = nda
    monkeypatch.setattr(backends, "get_backend", lambda name, settings: Refuses())
    [on, off] = wb.check_claims([ON_TOPIC, OFF_TOPIC], [doc_id], backend="openai")
    assert not on.supported and on.reason.startswith("LLM: the evidence does not say this; rules: Supported")
    assert not off.supported
    monkeypatch.setattr(backends, "get_backend", lambda name, settings: Accepts())
    [on, off] = wb.check_claims([ON_TOPIC, OFF_TOPIC], [doc_id], backend="openai")
    assert on.supported and not off.supported


def test_cli_verify_prints_one_json_object_per_claim(make_pdf, data_dir, tmp_path, capsys):
    pdf = make_pdf([NDA], name="nda.pdf")
    claims = tmp_path / "claims.txt"
    claims.write_text(f"{ON_TOPIC}\n\n{OFF_TOPIC}\n", encoding="utf-8")
    assert main(["verify", str(pdf), "--claims", str(claims), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["claim"] for r in rows] == [ON_TOPIC, OFF_TOPIC]
    assert [r["supported"] for r in rows] == [True, False]
    ev = rows[0]["evidence"][0]
    assert set(ev) == {"page", "page_label", "start", "end", "text", "rects"}
    assert ev["page"] == 1 and ev["page_label"] is None  # a generated page prints no folio and len(ev["rects"][0]) == 5


def test_cli_verify_with_a_missing_claims_file_exits_2_with_one_line(make_pdf, data_dir, tmp_path, capsys):
    pdf = make_pdf([NDA], name="nda.pdf")
    assert main(["verify", str(pdf), "--claims", str(tmp_path / "nope.txt"), "--json"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no such file" in err[0]


# ContractNLI train NDA 105 (CC BY 4.0): its gold evidence that oral disclosures are covered says so
# in other words than the claim, and ranked sixth by support alone
NDA_105 = [
 "11. Except as specifically provided herein, neither Party makes any warranty, express or implied, oral or written, with respect to products, services, or information supplied hereunder, including any warranties related to patent, trademark, or copyright infringements.",
 "WHEREAS, the Parties represent that they control or may in the future control and have in their possession or may in the future possess valuable proprietary, confidential information as described in Paragraph 1 of this Agreement;",
 "In no event shall either Party be liable to the other for indirect, special, consequential, punitive, exemplary, or incidental damages including, but not limited to damages for loss of use of facilities or equipment, loss of revenue, loss of profits or loss of goodwill.",
 "The Parties shall utilize no less than reasonable care in protecting Proprietary Information received from the disclosing party; such care shall be the same degree of care as though it were to protect its own confidential or proprietary information.",
 "4. Except as provided in Paragraphs 6 and 7 hereof, Proprietary Information disclosed to a receiving Party shall for a period of three (3) years from the effective date of this Agreement be held in confidence by the receiving Party and not be disclosed to others or used except for the purposes set forth above, without the prior written approval of the disclosing Party.",
 "5. Disclosure of Proprietary Information to a receiving Party may be either oral or in writing.",
 "c. Is generally disclosed by the disclosing Party to third parties without obligation of secrecy.",
 "Each Party's Proprietary Information may include, but is not limited to, patents, copyrights, design methods, ideas, concepts, data, formulas, manufacturing techniques, know-how, business plans, customer lists, software, methodologies, technologies, processes, financial information, and sales and marketing information.",
 "12. Each Party acknowledges that the Proprietary Information disclosed hereunder may be subject to export control, and that compliance with all appropriate Government regulations is the responsibility of the receiving Party.",
]


def test_a_passage_that_says_the_claim_in_other_words_comes_early_in_the_evidence(make_pdf, data_dir):
    """Support reads words; "Confidential Information may include verbally conveyed information"
    shares few with "Disclosure of Proprietary Information to a receiving Party may be either oral or
    in writing", and a warranty clause that says "oral or written" ranked above it. After the deciding
    passage, evidence is ordered by support and closeness in meaning together (EVIDENCE_CLOSENESS)."""
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    doc_id = wb.ingest(make_pdf(["\n\n".join(NDA_105)], name="nda105.pdf"), source_type="contract").id
    [check] = wb.check_claims(["Confidential Information may include verbally conveyed information."], [doc_id])
    said = [" ".join(e.text.split()) for e in check.evidence]
    assert any("may be either oral or in writing" in s for s in said[:2]), said
