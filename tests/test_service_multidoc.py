"""Issue 39: asked over two contracts, the answer says which contract each sentence comes from.
Both CUAD contracts call themselves "this Agreement"; every statement names its document by a
short title, one document's statements stand together, stored IDs are the store's as ever, and an
answer recomposed after review keeps the naming. With one document nothing is named."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from workbench.config import Settings
from workbench.service import Workbench
from workbench.ui.citations import chip_sources

ADAMS = "ADAMSGOLFINC_03_21_2005-EX-10.17-ENDORSEMENT AGREEMENT.PDF"
CANO = "CANOPETROLEUM,INC_12_13_2007-EX-10.1-Sponsorship Agreement.PDF"
QUESTION = "Which state's law governs this agreement?"
TITLES = {"Adams Golf Endorsement Agreement", "Cano Petroleum Sponsorship Agreement"}
NAMED = re.compile(r"^In the (.+?): ")


@pytest.fixture(scope="module")
def asked(tmp_path_factory):
    if not (CORPUS / "cuad" / "pdf" / ADAMS).is_file():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    wb = Workbench(Settings(data_dir=tmp_path_factory.mktemp("multidoc") / "data"))
    adams, cano = (wb.ingest(Path(CORPUS) / "cuad" / "pdf" / f, source_type="contract") for f in (ADAMS, CANO))
    [run] = wb.ask([QUESTION], [adams.id, cano.id])
    yield wb, run, adams, cano
    wb.store.dispose()


def _named(text: str) -> str:
    m = NAMED.match(text)
    assert m, f"the sentence names no document: {text!r}"
    return m.group(1)


def test_every_sentence_names_its_contract_and_the_kansas_clause_is_adams_golfs(asked):
    _, run, adams, cano = asked
    assert run.document_titles == {adams.id: "Adams Golf Endorsement Agreement",
                                   cano.id: "Cano Petroleum Sponsorship Agreement"}
    sentences = run.answer.sentences
    assert sentences and all(s.supported for s in sentences)  # the name does not make a sentence unsupported
    by_id = {e.requirement_id: e for e in run.evidence}
    for s in sentences:
        title = _named(s.text)
        assert {run.document_titles[by_id[c].document_id] for c in s.citations} == {title}
    [kansas] = [s for s in sentences if "Kansas" in s.text]
    assert _named(kansas.text) == "Adams Golf Endorsement Agreement"
    assert any(_named(s.text) == "Cano Petroleum Sponsorship Agreement" and "Texas" in s.text for s in sentences)
    assert {q.check for q in run.answer.quality if not q.passed} == set()


def test_one_contracts_sentences_stand_together(asked):
    _, run, _, _ = asked
    order = [_named(s.text) for s in run.answer.sentences]
    assert set(order) == TITLES
    blocks = [t for i, t in enumerate(order) if i == 0 or order[i - 1] != t]
    assert len(blocks) == len(set(blocks)), f"statements interleave documents: {order}"


def test_ids_are_the_stores_and_chips_name_their_document(asked):
    wb, run, _, _ = asked
    ids = [e.requirement_id for e in run.evidence]
    assert ids == sorted(ids) and all(i.startswith("REQ-C") for i in ids)
    sources = chip_sources(wb.reviewed(run.run_id))
    by_id = {e.requirement_id: e for e in run.evidence}
    assert sources and all(sources[i] == run.document_titles[by_id[i].document_id] for i in ids)


def test_a_reviewed_answer_keeps_the_naming(asked):
    wb, run, adams, _ = asked
    cited = [c for s in run.answer.sentences for c in s.citations]
    by_id = {e.requirement_id: e for e in run.evidence}
    dropped = next(c for c in cited if "Kansas" not in by_id[c].exact_quote)
    wb.review(run.run_id, dropped, "unsupported", "ann", "not the governing law")
    rejected = next(v.requirement_id for v in run.verifications if not v.verified
                    and by_id[v.requirement_id].document_id == adams.id)
    wb.review(run.run_id, rejected, "supported", "ann")  # composed anew from the quote
    answer = wb.reviewed(run.run_id).answer
    assert dropped not in answer.final_answer and f"[{rejected}]" in answer.final_answer
    order = [_named(s.text) for s in answer.sentences]
    assert any(rejected in s.citations and _named(s.text) == "Adams Golf Endorsement Agreement"
               for s in answer.sentences)
    blocks = [t for i, t in enumerate(order) if i == 0 or order[i - 1] != t]
    assert len(blocks) == len(set(blocks)), f"statements interleave documents: {order}"
    assert wb.run(run.run_id).answer == run.answer  # the stored run is not rewritten


def test_one_document_names_nothing(asked):
    wb, _, adams, _ = asked
    [run] = wb.ask([QUESTION], [adams.id])
    assert run.document_titles == {}
    assert run.answer.sentences and not any(NAMED.match(s.text) for s in run.answer.sentences)
    assert "Kansas" in run.answer.final_answer
