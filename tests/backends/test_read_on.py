"""A sentence that reads on from the one before it ("This is called …", "Such notice …",
"Consequently, …") is evidence together with that sentence, quoted as one unit."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.backends.test_rules import ev
from workbench.backends import engine
from workbench.config import Settings
from workbench.pipeline.compose import compose_from_quotes
from workbench.text.sentences import split_sentences

DEFINED = "This is called a type-stable loop iteration."
BEFORE = "Ideally, the trace reaches the loop header where it started with the same type map as on entry."


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def tracemonkey(tmp_path_factory, corpus: Path):
    from workbench.service import Workbench

    wb = Workbench(Settings(data_dir=tmp_path_factory.mktemp("readon")))
    doc = wb.ingest(str(corpus / "pdfs" / "science" / "tracemonkey_PLDI09.pdf"), source_type="paper")
    return wb, doc.id


def test_a_sentence_that_points_back_is_a_candidate_with_the_sentence_before_it(tracemonkey):
    from workbench.pipeline.context import DocsContext

    wb, doc_id = tracemonkey
    units = engine.units_for("What is a type-stable loop iteration?", DocsContext([wb.parsed(doc_id)], wb.retriever),
                             {}, min_words=10, max_words=40)
    texts = [_flat(u.text) for u in units]
    assert f"{BEFORE} {DEFINED}" in texts and DEFINED not in texts  # never alone: it would be rejected
    assert engine.dangling_reference(DEFINED) == "This is" and engine.dangling_reference(f"{BEFORE} {DEFINED}") is None


def test_a_lead_in_that_points_back_is_read_with_its_items_not_with_the_sentence_before(tracemonkey):
    """"This paper makes the following contributions:" announces a list; joined to the sentence
    before, the answer ended a quote on the announcement with none of the items."""
    from workbench.pipeline.context import DocsContext

    wb, doc_id = tracemonkey
    units = engine.units_for("What speedup does TraceMonkey achieve?", DocsContext([wb.parsed(doc_id)], wb.retriever),
                             {}, min_words=10, max_words=40)
    assert not [u for u in units if "contributions:" in u.text and "speedup" in u.text]


def test_the_answer_quotes_the_definition_with_what_this_points_at(tracemonkey):
    """Before, "This is called a type-stable loop iteration." was the most relevant unit and was
    rejected as not self-contained; the answer never said what the term means."""
    wb, doc_id = tracemonkey
    [run] = wb.ask(["What is a type-stable loop iteration?"], [doc_id])
    verified = {v.requirement_id for v in run.verifications if v.verified}
    [pair] = [e for e in run.evidence if _flat(e.exact_quote) == f"{BEFORE} {DEFINED}"]
    assert pair.requirement_id in verified
    spans = sorted((e.span.start, e.span.end) for e in run.evidence if e.span)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))  # no two pieces of evidence overlap
    said = [s for s in split_sentences(run.answer.final_answer) if pair.requirement_id in s]
    assert [s.split(" [")[0] for s in said] == [BEFORE.rstrip("."), DEFINED.rstrip(".")]


def test_each_sentence_of_a_joined_quote_cites_it_and_a_stray_two_sentence_quote_waits():
    joined = ev("REQ-S001", "Each Party may terminate this Agreement on notice. Such notice shall be given in writing.", 0)
    stray = ev("REQ-S002", "Employees must use the approved network. Discussion Access is logged daily.", 100)
    draft = compose_from_quotes([joined, stray], joined={"REQ-S001"})
    assert draft.final_answer == ("Each Party may terminate this Agreement on notice [REQ-S001]. "
                                  "Such notice shall be given in writing [REQ-S001].")
    assert draft.unused_requirements == ["REQ-S002"]


def test_a_cut_between_two_names_joined_by_and_is_no_clause_end():
    """"… shall be assigned jointly to CERES" | "and IGER as soon as practicable" (CERES's 4.6)
    leaves a party out; a cut before ", and Licensor shall …" still ends a clause."""
    t = ("Consequently, any and all patent applications that cover JOINT INTELLECTUAL PROPERTY shall be assigned "
         "jointly to CERES and IGER as soon as practicable.")
    assert not engine.cut_at_clause(t, t.index(" and IGER"))
    t = "Licensee shall pay the fee to Licensor within thirty days, and Licensor shall deliver the goods."
    assert engine.cut_at_clause(t, t.index(", and Licensor"))


def test_claim_checking_judges_sentences_as_they_stand(tracemonkey):
    """A longer unit covers more of any claim's words: joined with the sentence before it, a
    tournament interview clause "supported" "The consultant must wear a helmet at every
    tournament" (p = 0.52) in the checked-draft test. `verify` reads no joined units."""
    wb, doc_id = tracemonkey
    [check] = wb.check_claims(["A type-stable loop iteration reaches the loop header with the same type map as on entry."],
                              [doc_id])
    texts = [_flat(e.text) for e in check.evidence]
    assert BEFORE in texts and f"{BEFORE} {DEFINED}" not in texts
