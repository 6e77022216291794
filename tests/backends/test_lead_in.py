"""A list item is read after its list's lead-in: "iii. is lawfully obtained by the Receiving Party
from a third party" is an exception to confidentiality only after "Confidential Information shall
not include information that:". The quote stays the item; the judge reads both."""

from __future__ import annotations

import json
import re

import pytest

from workbench.backends import engine
from workbench.config import Settings
from workbench.models import UnitInfo


class Lines:
    """A context whose segments are the given lines, one after the other."""

    def __init__(self, *lines: str):
        self.text = "\n".join(lines)
        self.segs, at = [], 0
        for line in lines:
            self.segs.append((at, at + len(line), line))
            at += len(line) + 1

    def sentences(self, document_id: str, start: int, end: int) -> list[tuple[int, int, str]]:
        return [t for t in self.segs if t[1] > start and t[0] < end]

    def lead(self, line: str) -> str:
        return engine.lead_in(self, "d", self.text.index(line))


def test_an_item_is_read_after_the_sentence_ending_in_a_colon_over_its_siblings():
    c = Lines("2.2 Confidential Information shall not include information that:",
              "i. is or becomes public through no fault of the Receiving Party;",
              "ii. was known to the Receiving Party before disclosure; or",
              "iii. is lawfully obtained by the Receiving Party from a third party.")
    assert c.lead("iii. is lawfully") == "2.2 Confidential Information shall not include information that:"
    assert c.lead("i. is or becomes") == c.lead("iii. is lawfully")


def test_a_sibling_a_sibling_sublist_or_a_plain_paragraph_is_no_lead_in():
    siblings = Lines("4.1 Each party may disclose the other party's information:",
                     "4.1.1 with the prior written consent of the other party;",
                     "4.2 Each party shall keep the information secure.")
    assert siblings.lead("4.1.1 with") == "4.1 Each party may disclose the other party's information:"
    assert siblings.lead("4.2 Each party") == ""  # 4.1 is its sibling, not its lead-in
    other_parent = Lines("This Agreement does not apply to Confidential Information:",
                         "5.1 which is public;", "5.2 which the Receiving Party already knew.",
                         "6.1 No licence is granted to either party.")
    assert other_parent.lead("5.2 which") == "This Agreement does not apply to Confidential Information:"
    assert other_parent.lead("6.1 No licence") == ""  # clause 6 is not in clause 5's list
    sublist = Lines("The Receiving Party shall:", "(a) keep the information secret, and:",
                    "(i) store it securely;", "(b) return it on request.")
    assert sublist.lead("(i) store") == "(a) keep the information secret, and:"
    assert sublist.lead("(b) return") == ""  # (i) belongs to (a)'s list: the walk stops there
    full_stop = Lines("File Form 1040NR if any of the following four conditions applies to you.",
                      "1. You were a nonresident alien engaged in a trade or business in the United States.",
                      "2. You represent a deceased person who would have had to file Form 1040NR.")
    assert full_stop.lead("2. You represent").startswith("File Form 1040NR if any of the following")
    paragraph = Lines("The parties met on Monday:", "They agreed on the terms.", "(a) The price is fixed.")
    assert paragraph.lead("(a) The price") == ""
    assert Lines("Either party may terminate:", "this Agreement at will.").lead("this Agreement") == ""


def test_an_item_that_says_more_than_one_sentence_is_still_its_lists_item():
    """NIST SP 800-223's four zones: "1. The high-performance computing zone consists of …" then
    "The high-performance computing zone provides key services …" before "2. The data storage
    zone …". Walking back from item 2 over item 1's own further sentence finds the lead-in; only
    the item numbered just before (or a bullet like it) may be reached that way, over at most two
    sentences."""
    c = Lines("An HPC system is divided into four function zones:",
              "1. The compute zone consists of a pool of compute nodes.",
              "The compute zone runs parallel jobs at scale.",
              "2. The data storage zone comprises parallel file systems.",
              "They store very large data sets.", "They are fast.",
              "3. The access zone has nodes connected to external networks.")
    assert c.lead("2. The data storage") == "An HPC system is divided into four function zones:"
    assert c.lead("3. The access zone") == c.lead("2. The data storage")
    items = [t[2] for t in engine.list_items(c, "d", c.segs[0][1])]
    assert [i[:2] for i in items] == ["1.", "2.", "3."]
    gap = Lines("The fees are as follows:", "1. The setup fee is due on signing.", "It is not refundable.",
                "3. The annual fee is due each January.")  # not the next number: another list
    assert gap.lead("3. The annual fee") == ""
    long = Lines("The fees are as follows:", "1. The setup fee is due on signing.", "It is not refundable.",
                 "It covers training.", "It covers the manual.", "2. The annual fee is due each January.")
    assert long.lead("2. The annual fee") == ""  # three sentences of its own: a clause, not an item
    bullets = Lines("The following biometric data shall be collected:", "+ Two fingerprints.",
                    "These shall be taken from the full set.", "+ An electronic facial image.")  # FIPS 201-2
    assert bullets.lead("+ An electronic") == "The following biometric data shall be collected:"
    assert [t[2][:2] for t in engine.list_items(bullets, "d", bullets.segs[0][1])] == ["+ ", "+ "]


def test_a_list_of_items_of_several_sentences_comes_whole_into_the_answer(corpus):
    """"What are the four zones …?" cited the lead-in with the first and third zones only: the
    second and fourth were not candidates (the list stopped at the first item's second sentence)
    and the answer's limit of statements cut what was left."""
    doc, ctx = _docs_context(corpus / "pdfs/regulatory/NIST.SP.800-223_HPC-security.pdf")
    lead = _segment_at(ctx, doc, "An HPC system is divided into four function zones")
    items = [" ".join(t[2].split())[:30] for t in engine.list_items(ctx, doc.document.id, lead.end)]
    assert items == ["1. The high-performance comput", "2. The data storage zone compr",
                     "3. The access zone has one or ", "4. The management zone compris"]


def test_a_label_above_other_lines_does_not_lead_the_numbered_clauses_after_them(corpus):
    """ContractNLI train NDA 103 (CC BY 4.0): "Parties:" leads the parties' names, and the numbered
    clauses after those names are the agreement's own, not items of the parties' list."""
    [doc] = [d for d in json.loads((corpus / "contract-nli" / "train_truncated.json").read_text())["documents"]
             if d["id"] == 103]
    lines = doc["text"][doc["text"].index("Parties:"):].split("\n")[:12]
    c = Lines(*lines)
    assert lines[0] == "Parties:" and lines[1].startswith("[NAME OF") and lines[10].startswith("3. ")
    assert c.lead("3. The Recipient") == ""
    assert c.lead(lines[1]) == ""  # the names are no items either
    assert Lines("Parties:", *lines[8:]).lead("3. The Recipient") == "Parties:"  # directly after it, it would


NDA_20_CLAIM = "Receiving Party may acquire information similar to Confidential Information from a third party."
ITEM = "iii. is lawfully obtained by the Receiving Party from a third party"


@pytest.fixture(scope="module")
def nda_20(tmp_path_factory):
    """ContractNLI dev NDA 20 (CC BY 4.0), rendered to a PDF one paragraph per line (as the bench does)."""
    from bench.common import render_text_pdf
    from tests.conftest import CORPUS
    from workbench.service import Workbench

    src = CORPUS / "contract-nli" / "dev.json"
    if not src.is_file():
        pytest.skip(f"shared corpus not found at {src}")
    [doc] = [d for d in json.loads(src.read_text())["documents"] if d["id"] == 20]
    tmp = tmp_path_factory.mktemp("nda20")
    render_text_pdf(doc["text"], tmp / "nda20.pdf")
    wb = Workbench(Settings(data_dir=tmp / "ws"))
    return wb, wb.ingest(str(tmp / "nda20.pdf"), source_type="contract").id


def _evidence(wb, doc_id) -> list[str]:
    engine.SCORES._d.clear()  # scores are cached by text: read again with (or without) lead-ins
    [check] = wb.check_claims([NDA_20_CLAIM], [doc_id])
    return [" ".join(e.text.split()) for e in check.evidence]


def test_verify_finds_the_exception_a_list_item_states_only_with_its_lead_in(nda_20, monkeypatch):
    wb, doc_id = nda_20
    with_lead = _evidence(wb, doc_id)
    # the item is evidence, read with its lead-in: quoted as the item (enumerator first) or inside
    # the lead-in's whole list, as `verify` judges a claim against a list
    at = next(i for i, e in enumerate(with_lead) if e.startswith(ITEM) or ("shall not include" in e and ITEM in e))
    monkeypatch.setattr(engine, "lead_in", lambda *_a: "")
    alone = _evidence(wb, doc_id)
    # read alone, it ranks no higher
    assert next((i for i, e in enumerate(alone) if ITEM in e), len(alone)) >= at


def test_a_verified_list_item_says_which_list_it_was_read_in():
    v = engine.judge_quote("What information is not confidential?", "iii. is lawfully obtained by the Receiving "
                           "Party from a third party; or", 0.8,
                           lead="2.2 Confidential Information shall not include information that:")
    assert v.verified
    assert 'read as an item of the list introduced by "2.2 Confidential Information shall not include' in v.rationale


def test_verify_reads_the_lead_in_of_an_item_another_process_extracted(nda_20):
    """Extract and Verify may run in different processes (a resumed job, a second worker): Verify
    finds the lead-in from the document itself, not from what Extract happened to remember."""
    from workbench.backends import get_backend
    from workbench.models import Candidate, Run
    from workbench.pipeline.anchor import anchor
    from workbench.pipeline.ids import MemoryIds
    from workbench.pipeline.run import _verify, with_units

    wb, doc_id = nda_20
    parsed = wb.parsed(doc_id)
    m = re.search(r"\s+".join(map(re.escape, ITEM.split())) + ";", parsed.text)  # lines wrap in the PDF
    cand = Candidate(exact_quote=m.group(0), chunk_id="c", document_id=doc_id, start=m.start(), end=m.end())
    [ev], _ = anchor([cand], {doc_id: parsed}, MemoryIds())
    assert ev.unit is None  # an item with no unit facts yet (an LLM's quote, a run stored before them)
    engine.SCORES._d.clear()
    question = "What information is not confidential?"
    [v] = _verify(question, [ev], {doc_id: parsed}, get_backend("rules", Settings()),
                  Run(run_id="r", question=question, document_ids=[doc_id], backend="rules"))
    assert 'read as an item of the list introduced by "' in v.verification_rationale
    [ev] = with_units([ev], {doc_id: parsed})  # the facts come from the document, in any process
    assert ev.unit.lead_in.endswith("shall not include information that:")


def _docs_context(path):
    from workbench.pdf import open_pdf
    from workbench.pipeline.context import DocsContext

    doc = open_pdf(path)
    return doc, DocsContext([doc])


def _segment_at(ctx, doc, words: str):
    segs = ctx._segments(doc.document.id)[2]
    return next(s for s in segs if " ".join(s.text.split()).startswith(words))


def test_a_bulleted_item_is_read_after_its_lead_in(corpus):
    """Segments leave bullets out; the item still knows its list: "• Environmental and physical
    threats: …" after "…, general HPC systems face the following:"."""
    doc, ctx = _docs_context(corpus / "pdfs/regulatory/NIST.SP.800-223_HPC-security.pdf")
    item = _segment_at(ctx, doc, "Environmental and physical threats")
    assert engine.lead_in(ctx, doc.document.id, item.start).endswith("general HPC systems face the following:")
    after = _segment_at(ctx, doc, "Achieving the highest performance possible")  # no bullet: not an item
    assert engine.lead_in(ctx, doc.document.id, after.start) == ""


def test_a_lead_in_brings_its_items_as_candidates(corpus):
    """A lead-in that shares the question's words announces a list whose items need not: the items
    become candidate units, read after the lead-in."""
    doc, ctx = _docs_context(corpus / "pdfs/regulatory/dmca.pdf")
    lead = _segment_at(ctx, doc, "The limitations are based on the following four categories")
    items = [" ".join(t[2].split()) for t in engine.list_items(ctx, doc.document.id, lead.end)]
    assert items == ["1. Transitory communications;", "2. System caching;",
                     "3. Storage of information on systems or networks at direction of users; and",
                     "4. Information location tools."]
    units = engine.units_for("What conditions must a service provider meet under the following categories?", ctx,
                             {doc.document.id: [(lead.start, lead.end)]}, min_words=1, search_k=0)
    assert {" ".join(u.text.split()) for u in units} >= {"The limitations are based on the following four categories "
                                                          "of conduct by a service provider:"}
    item = next(u for u in units if "Storage of information" in u.text)  # (items under 4 words state too little)
    assert item.judged.startswith("The limitations are based on the following four categories")


def test_an_answer_leaves_out_a_lead_in_whose_items_it_does_not_quote():
    from workbench.pipeline.compose import compose_from_quotes

    def ev(rid: str, quote: str, start: int):
        return _quote_item("d", "statute", rid, quote, start)

    lead = ev("REQ-S001", "To qualify, the service provider's activities must meet the following conditions:", 0)
    other = ev("REQ-S002", "A service provider must designate an agent to receive notifications of infringement.", 500)
    draft = compose_from_quotes([lead, other])
    assert "REQ-S001" not in draft.final_answer and "REQ-S001" in draft.unused_requirements
    item = ev("REQ-S003", "The transmission must be initiated by a person other than the provider.", 90)
    item.unit = UnitInfo(lead_in=lead.exact_quote)
    draft = compose_from_quotes([lead, item, other])
    assert draft.final_answer.index("REQ-S001") < draft.final_answer.index("REQ-S003")



def test_an_answer_keeps_a_lead_in_with_its_items_within_its_limit_of_statements():
    """The IRS instructions' "Who must file?" answer cited "File Form 1040NR if any of the following
    four conditions applies to you." and no condition: its item ranked 11th, past the answer's eight
    statements. A lead-in now brings its items up behind it, the list counting as one statement;
    a lead-in past the limit goes, and its items with it."""
    from workbench.pipeline.compose import MAX_STATEMENTS, compose_from_quotes

    def ev(rid: str, quote: str, start: int):
        return _quote_item("i", "statute", rid, quote, start)

    lead = ev("REQ-S001", "File Form 1040NR if any of the following four conditions applies to you.", 0)
    others = [ev(f"REQ-S{k + 2:03d}", f"Statement number {k} must be filed with the return by the due date.",
                 1000 + 100 * k) for k in range(MAX_STATEMENTS)]
    item = ev("REQ-S099", "1. You were a nonresident alien engaged in a trade or business in the United States.", 80)
    item.unit = UnitInfo(lead_in=lead.exact_quote)
    draft = compose_from_quotes([lead, *others, item])
    answer = draft.final_answer
    assert "REQ-S001" in answer and "REQ-S099" in answer and answer.index("REQ-S001") < answer.index("REQ-S099")
    assert len(draft.requirement_references) == MAX_STATEMENTS + 1  # seven others, the lead-in and its item
    assert others[-2].requirement_id in answer and others[-1].requirement_id not in answer
    draft = compose_from_quotes([*others[:-1], lead, item])  # the lead-in last within the limit: its item too
    assert "REQ-S001" in draft.final_answer and "REQ-S099" in draft.final_answer
    draft = compose_from_quotes([*others, lead, item])  # the lead-in past the limit: neither
    assert "REQ-S001" not in draft.final_answer and "REQ-S099" not in draft.final_answer


def test_a_lead_in_ending_in_a_colon_keeps_it_before_its_items():
    """CERES's term answer read "… this Agreement shall remain in full force and effect until
    [REQ-C096]." - a sentence cut off, to a reader - before the two events it lists. A colon
    lead-in followed by its items ends on its citation and the colon, and each is still a
    sentence of its own for the checks that read the answer sentence by sentence."""
    from workbench.pipeline.compose import compose_from_quotes
    from workbench.text import split_sentences

    def ev(rid: str, quote: str, start: int):
        return _quote_item("c", "contract", rid, quote, start)

    lead = ev("REQ-C096", "16.1 Subject to any other rights of termination under this Article, this Agreement shall "
                          "remain in full force and effect until:", 0)
    first = ev("REQ-C098", "(a) the expiration of the INTELLECTUAL PROPERTY RIGHTS in the respective jurisdiction "
                           "covering the LICENSED VARIETY; or", 200)
    second = ev("REQ-C023", "(b) the tenth (10th) anniversary of the date of the first sale of a LICENSED VARIETY in "
                            "such jurisdiction.", 400)
    for e in (first, second):
        e.unit = UnitInfo(lead_in=lead.exact_quote)
    answer = compose_from_quotes([lead, first, second]).final_answer
    assert "effect until [REQ-C096]: " in answer and "until [REQ-C096]." not in answer
    parts = split_sentences(answer)
    assert parts[0].endswith("until [REQ-C096]:") and len(parts) == 3 and parts[1].endswith("[REQ-C098].")
    irs = "You do not need to file Form 1040NR if [REQ-P007]: 1. Your only U.S. trade or business was … [REQ-P010]."
    assert split_sentences(irs)[1].startswith("1. Your only")  # the item keeps its number after the colon
    alone = compose_from_quotes([lead, ev("REQ-C001", "The Licensee shall pay all royalties within thirty days.", 900)])
    assert "REQ-C096" not in alone.final_answer  # without its items a lead-in says only that a list follows


def test_an_answer_leaves_out_an_item_that_says_nothing_without_its_lead_in():
    """Goosehead's non-compete items came into a term answer without their lead-in ("Member will
    not, either directly or indirectly, …:"): "Solicit, divert or attempt to solicit …" read as
    an order, the opposite of what the agreement says. An item with its own modal stays."""
    from workbench.pipeline.compose import compose_from_quotes

    def ev(rid: str, quote: str, start: int):
        return _quote_item("g", "contract", rid, quote, start)

    lead = ("(b) Member covenants and agrees that during the term of the Franchise Agreement, Member will not, either "
            "directly or indirectly, for itself, or through, on behalf of, or in conjunction with any person:")
    term = ev("REQ-C001", "The term of this Agreement starts on the Effective Date and will expire ten (10) years "
                          "from the Effective Date.", 0)
    solicit = ev("REQ-C006", "(i) Solicit, divert or attempt to solicit or divert any business or customer of the "
                             "Franchised Business to a Competitive Business.", 900)
    stands = ev("REQ-C007", "(ii) Member shall keep the terms of this Agreement confidential during its term.", 1100)
    for e in (solicit, stands):
        e.unit = UnitInfo(lead_in=lead)
    draft = compose_from_quotes([term, solicit, stands])
    assert "REQ-C006" not in draft.final_answer and "REQ-C006" in draft.unused_requirements
    assert "REQ-C001" in draft.final_answer and "REQ-C007" in draft.final_answer
    with_lead = ev("REQ-C002", lead, 700)
    draft = compose_from_quotes([term, with_lead, solicit])
    assert draft.final_answer.index("REQ-C002") < draft.final_answer.index("REQ-C006")


def _quote_item(doc: str, source_type: str, rid: str, quote: str, start: int):
    """An extracted, anchored quote as compose_from_quotes receives it."""
    from workbench.models import Evidence, Span

    span = Span(document_id=doc, page=1, pages=[1], start=start, end=start + len(quote), text=quote,
                text_sha256="0" * 64)
    return Evidence(requirement_id=rid, source_type=source_type, document_id=doc, section_heading=None,
                    exact_quote=quote, chunk_id="c", extraction_confidence="high", span=span)


def test_a_bulleted_lead_in_leads_the_bullets_under_it_up_to_the_next_title(corpus):
    """WHO's guidelines set "• The following evidence-based interventions should be considered to
    promote uptake of hepatitis testing and linkage to care and treatment initiation:" with its
    four interventions under it in the same "•". The interventions were read as siblings (no
    lead-in), then rejected as starting mid-sentence ("peer and lay health worker support …"), and
    the answer to "Which interventions promote uptake …?" named none. The list ends at the title
    "New 2022 recommendations"; an item of a known list may open in lower case."""
    doc, ctx = _docs_context(corpus / "pdfs/regulatory/WHO-HCV-guidelines-2022.pdf")
    did = doc.document.id
    peer = _segment_at(ctx, doc, "peer and lay health worker support in community-based settings")
    lead = engine.lead_in(ctx, did, peer.start)
    assert lead.startswith("The following evidence-based interventions") and lead.endswith("treatment initiation:")
    end = doc.text.index("treatment initiation:", doc.text.index("The following evidence-based interventions")) + 21
    items = [" ".join(t[2].split()) for t in engine.list_items(ctx, did, end)]
    assert len(items) == 4 and items[0].startswith("peer and lay") and items[3].startswith("dried blood spots")
    v = engine.judge_quote("Which interventions promote uptake of hepatitis testing?", peer.text, 0.9, lead=lead)
    assert v.verified, v.rationale
    assert engine.judge_quote("Which interventions promote uptake?", peer.text, 0.9).reason == "incomplete_quote"


NESTED = ("2. Confidential Information shall not include information that: (a) is public; (b) is received from a "
          "third party that: (i) is not bound by a duty of confidence; and (ii) obtained it lawfully; or (c) is "
          "independently developed by the Receiving Party.")


def test_a_list_inside_a_list_is_read_whole_once(make_pdf, data_dir):
    """A lead-in whose item leads a list of its own: `verify` reads the outer list whole and does
    not stumble on the inner one (it once raised KeyError on ContractNLI dev)."""
    from workbench.config import get_settings
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    doc = wb.ingest(make_pdf([NESTED], name="nested.pdf"), source_type="contract")
    [check] = wb.check_claims(["Information received lawfully from an unbound third party is not confidential."],
                              [doc.id])
    assert check.evidence and any("(ii) obtained it lawfully" in " ".join(e.text.split()) for e in check.evidence)
