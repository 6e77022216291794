"""Issue 39, a question asking two things, as an analyst reads the answer on two CUAD contracts:
each part is searched and judged on its own, so the forum clause is not rejected for covering few
of the whole question's words; a part nothing answers is named as missing, and the confidence says
the question is half answered — it is not "high" because the other half cites well."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CORPUS
from workbench.config import Settings
from workbench.service import Workbench

ADAMS = "ADAMSGOLFINC_03_21_2005-EX-10.17-ENDORSEMENT AGREEMENT.PDF"  # Kansas law; disputes go to arbitration
ADIA = "ADIANUTRITION,INC_04_01_2005-EX-10.D2-RESELLER AGREEMENT.PDF"  # California law; no revenue figures
LAW_AND_FORUM = "What law governs this agreement and where must disputes be resolved?"
LAW_AND_REVENUE = "What law governs this agreement and what was the reseller's revenue in 2019?"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    if not (CORPUS / "cuad" / "pdf" / ADAMS).is_file():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    wb = Workbench(Settings(data_dir=tmp_path_factory.mktemp("question-parts") / "data"))
    adams = wb.ingest(Path(CORPUS) / "cuad" / "pdf" / ADAMS, source_type="contract")
    adia = wb.ingest(Path(CORPUS) / "cuad" / "pdf" / ADIA, source_type="contract")
    [forum] = wb.ask([LAW_AND_FORUM], [adams.id])
    [revenue] = wb.ask([LAW_AND_REVENUE], [adia.id])
    yield forum, revenue
    wb.store.dispose()


def _verified_quotes(run) -> list[str]:
    ok = {v.requirement_id for v in run.verifications if v.verified}
    return [" ".join(e.exact_quote.split()) for e in run.evidence if e.requirement_id in ok]


def _cited(run) -> str:
    return " ".join(run.answer.final_answer.split())


def test_both_parts_are_answered_each_by_its_own_clause(runs):
    forum, _ = runs
    quotes = _verified_quotes(forum)
    assert any("laws of the State of Kansas" in q for q in quotes)
    assert any("submitted to arbitration" in q for q in quotes)
    assert "Kansas" in _cited(forum) and "arbitration" in _cited(forum)
    assert forum.answer.missing_evidence == []
    [finding] = [f for f in forum.answer.quality if f.check == "answers_question"]
    assert finding.passed


def test_a_part_nothing_answers_is_named_missing_and_the_confidence_says_so(runs):
    _, revenue = runs
    assert any("laws of the State of California" in q for q in _verified_quotes(revenue))
    assert revenue.answer.missing_evidence == ["A passage that answers: what was the reseller's revenue in 2019"]
    assert revenue.answer.grounding_confidence == "low"
    [finding] = [f for f in revenue.answer.quality if f.check == "answers_question"]
    assert not finding.passed and "revenue in 2019" in finding.detail
