"""Issue 39, as an analyst reads the answer on two CUAD contracts with its shape: termination
triggers enumerated (i)/(ii)/(iii) after a lead-in, each with its cure period, lettered headings
("a) TERMINATION FOR BREACH."), and a governing-law clause. Every verified quote is a structure
node: an item whole with its marker, never ending on the next item's marker; never a heading glued
to a sentence; a clause kept with its condition; a sentence never cut mid-way."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from workbench.config import Settings
from workbench.pdf.structure import lettered_heading
from workbench.service import Workbench
from workbench.text.sentences import sentence_spans

RESELLER = "BravatekSolutionsInc_20170418_8-K_EX-10.1_10205739_EX-10.1_Reseller Agreement.pdf"
ENDORSEMENT = "BerkshireHillsBancorpInc_20120809_10-Q_EX-10.16_7708169_EX-10.16_Endorsement Agreement.pdf"
TERMINATE = "How can either party terminate this agreement?"
LAW = "What law governs this agreement?"
# an item's end followed by the next item's marker: "… material breach; or (ii", "…; ii."
STRAY_MARKER = re.compile(r"(?:[;,\u037e]|\b(?:and|or))\s*\(?(?:[ivxlc]{1,6}|[a-zA-Z]|\d{1,2})[.)]?\s*$")


@pytest.fixture(scope="module")
def answers(tmp_path_factory):
    if not (CORPUS / "cuad" / "pdf" / RESELLER).is_file():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    wb = Workbench(Settings(data_dir=tmp_path_factory.mktemp("clause-units") / "data"))
    out = {}
    for name in (RESELLER, ENDORSEMENT):
        doc = wb.ingest(Path(CORPUS) / "cuad" / "pdf" / name, source_type="contract")
        out[name] = dict(zip((TERMINATE, LAW), wb.ask([TERMINATE, LAW], [doc.id]), strict=True)), doc
    yield wb, out
    wb.store.dispose()


def _verified(run) -> list:
    ok = {v.requirement_id for v in run.verifications if v.verified}
    return [e for e in run.evidence if e.requirement_id in ok]


def _flat(text: str) -> str:
    return " ".join(text.split()).replace("\u037e", ";")  # the reseller agreement's ";" is U+037E


@pytest.mark.parametrize("name", [RESELLER, ENDORSEMENT])
@pytest.mark.parametrize("question", [TERMINATE, LAW])
def test_no_verified_quote_ends_on_the_next_items_marker_or_glues_a_heading(answers, name, question):
    _, out = answers
    runs, _doc = out[name]
    quotes = [_flat(e.exact_quote) for e in _verified(runs[question])]
    assert quotes
    for q in quotes:
        assert not STRAY_MARKER.search(q), f"ends on the next item's marker: {q!r}"
        sentences = [q[a:b] for a, b in sentence_spans(q)]
        assert not any(lettered_heading(s) for s in sentences), f"a heading glued to a sentence: {q!r}"
        assert "TERMINATION FOR BREACH" not in q and "EFFECT OF TERMINATION" not in q, q


def test_each_termination_trigger_is_quoted_whole_with_its_marker_and_its_cure_period(answers):
    _, out = answers
    runs, _doc = out[RESELLER]
    verified = _verified(runs[TERMINATE])
    quotes = [_flat(e.exact_quote) for e in verified]
    # the Reseller's three triggers, each an item of its lead-in, whole from its marker to its end
    assert "(i) if the use or sale of Company Products are enjoined due to any claim of infringement of any U.S. " \
           "patent or copyright or of any misappropriation of trade secrets;" in quotes
    assert any(q.startswith("(ii) if Company ceases to do business") for q in quotes), quotes
    [cure] = [e for e in verified if _flat(e.exact_quote).startswith("(iii) if Company breaches")]
    assert _flat(cure.exact_quote).endswith("fails to fully cure such breach within fifteen (15) business days of "
                                            "written notice from Reseller describing the breach.")
    assert cure.unit is not None and "may be terminated by Reseller" in cure.unit.lead_in
    assert not cure.unit.trimmed_from  # the item whole, its cure period with it
    # the lead-in is quoted as itself, not cut before its items nor run into the first of them
    assert "b. This Agreement may be terminated by Reseller for cause immediately upon the occurrence of any of the " \
           "following events:" in quotes
    assert cure.section_heading == "10. Termination."


def test_a_clause_is_kept_with_its_condition_and_no_sentence_is_cut_mid_way(answers):
    _, out = answers
    runs, _doc = out[ENDORSEMENT]
    quotes = [_flat(e.exact_quote) for e in _verified(runs[TERMINATE])]
    # the breach remedy's item (B): the cure period stays with the right it conditions
    assert any(q.startswith("(B) as to a default under clause (ii) above, if such default is not cured within "
                            "thirty (30) days") for q in quotes), quotes
    # the force-majeure termination whole, to its last word
    majeure = [q for q in quotes if q.startswith("If the delay referred to above exceeds sixty (60) days")]
    assert majeure and majeure[0].endswith("shall cease."), majeure


@pytest.mark.parametrize(("name", "clause"), [
    (RESELLER, "This Agreement shall be governed by and construed under the laws of the Commonwealth of Virginia "
               "without regard to the conflicts of law provisions thereof."),
    (ENDORSEMENT, "This Agreement shall be governed by and construed in accordance with the laws of the State of "
                  "Connecticut."),
])
def test_the_governing_law_is_its_clause_whole(answers, name, clause):
    _, out = answers
    runs, _doc = out[name]
    assert clause in [_flat(e.exact_quote) for e in _verified(runs[LAW])]


def test_lettered_headings_are_headings_of_the_parse(answers):
    wb, out = answers
    _runs, doc = out[ENDORSEMENT]
    parsed = wb.parsed(doc.id) if hasattr(wb, "parsed") else None
    if parsed is None:
        from workbench.pdf import open_pdf

        parsed = open_pdf(Path(CORPUS) / "cuad" / "pdf" / ENDORSEMENT)
    headings = {_flat(h.text) for h in parsed.headings()}
    assert {"a) TERMINATION FOR BREACH.", "b) TERMINATION DUE TO INSOLVENCY.", "c) EFFECT OF TERMINATION."} <= headings
    # … and they title items of section 10: the quote under them is labelled with its numbered section
    assert parsed.heading_at(parsed.text.index("Either Party shall have the right, without prejudice")) \
        == "10. TERMINATION AND DEFAULT."
