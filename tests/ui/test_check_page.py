"""The Check a draft page (seed 004) in AppTest: paste, check, see each sentence's verdict and
score under the support badge, relabel a sentence, export. The click-through to the highlighted
span is exercised in real Chromium (test_browser_check.py)."""

from __future__ import annotations

import json

from tests.ui.conftest import shown
from tests.ui.test_pages import app, on_page, texts

DRAFT = """## Memo
The organization shall limit system access to authorized users.
- Audit logs are reviewed every **second** decade by the mayor's goldfish.
"""


def test_a_pasted_draft_is_checked_sentence_by_sentence_and_relabelled(workspace):
    wb, doc, _ = workspace
    at = on_page(app(), "check", reviewer="Ann")
    assert at.title[0].value == "Check a draft"
    at.text_area(key="check_draft_text").set_value(DRAFT)
    next(b for b in at.button if b.label == "Check the draft").click().run()
    assert not at.exception, at.exception
    (draft,) = [r for r in wb.runs() if r.kind == "draft"]
    body = texts(at)
    assert "50 % of sentences supported" in body and "2 sentence(s): 1 supported, 1 not stated" in body
    assert ":orange-badge[" in "\n".join(m.value for m in at.markdown)
    verdicts = [m.value for m in at.markdown if m.value.startswith((":green-badge[", ":orange-badge[", ":red-badge["))
                and ("Supported]" in m.value or "Not stated]" in m.value or "Contradicted]" in m.value)]
    assert [v.split("[")[0] for v in verdicts] == [":green-badge", ":orange-badge"]
    assert "mayor's goldfish" in body and "##" not in body  # Markdown read as structure, shown as text
    # the best evidence links to Review on that item
    rid = wb.reviewed(draft.run_id).answer.sentences[0].citations[0]
    links = [p for p in at.get("page_link") if rid in p.proto.label]
    assert links and f"evidence={rid}" in links[0].proto.query_string
    # a reviewer's word on sentence 2
    at.button(key=f"draft_sup_{draft.run_id}_2").click().run()
    assert not at.exception, at.exception
    assert "100 % of sentences supported" in texts(at)
    (ev,) = wb.store.history(draft.run_id)
    assert (ev.requirement_id, ev.label, ev.reviewer) == ("SENT-2", "supported", "Ann")
    assert [b.proto.label for b in at.get("download_button")] == ["Markdown", "HTML", "JSON"]
    data = json.loads(wb.export_draft(draft.run_id, "json")[0])
    assert data["badge"] == "green" and shown(data["sentences"][1]["sentence"]).startswith("Audit logs")


def test_a_checked_draft_reads_on_the_answer_page_with_its_chips(workspace):
    from tests.ui.test_pages import component_data

    wb, doc, _ = workspace
    run = wb.check_draft(DRAFT, [doc.id], title="Access memo")
    at = on_page(app(run=run.run_id), "answer")
    assert "Access memo" in texts(at)
    (chips,) = component_data(at, "answer_text")
    assert [s["supported"] for s in chips["sentences"]] == [True, False]
    assert "50 % of sentences supported" in texts(at)


def test_the_dashboard_calibrates_the_claim_checker_on_draft_labels_and_reverts(workspace):
    from tests.test_check_draft import _labelled_drafts

    wb, _, _ = workspace
    _labelled_drafts(wb)
    at = on_page(app(), "dashboard")
    at.button(key="calibrate_claims").click().run()
    assert not at.exception, at.exception
    cal = wb.calibration("claims")
    assert cal is not None and cal.target == "claims" and wb.calibration() is None
    assert any("applied to new runs" in s.value for s in at.success)
    at.button(key="calibrate_claims_revert").click().run()
    assert wb.calibration("claims") is None


def test_the_same_draft_submitted_twice_in_a_row_is_stored_once(workspace):
    """Ctrl+Enter in the draft submits the form; a click on "Check the draft" right after is the
    same check, not a second stored draft."""
    wb, doc, _ = workspace
    at = on_page(app(), "check", reviewer="Ann")
    at.text_area(key="check_draft_text").set_value(DRAFT)
    next(b for b in at.button if b.label == "Check the draft").click().run()
    next(b for b in at.button if b.label == "Check the draft").click().run()
    assert not at.exception, at.exception
    assert len([r for r in wb.runs() if r.kind == "draft"]) == 1
    assert "This draft was just checked" in texts(at)
    at.text_area(key="check_draft_text").set_value(DRAFT + "\nA second thought.\n")
    next(b for b in at.button if b.label == "Check the draft").click().run()
    assert len([r for r in wb.runs() if r.kind == "draft"]) == 2  # an edited draft is a new check


def test_a_contradicted_sentence_is_red_with_the_clause_that_contradicts_it_and_can_be_labelled(workspace):
    """The policy says audit logs are retained for one year; a draft saying five years is contradicted."""
    wb, doc, _ = workspace
    run = wb.check_draft("The organization shall limit system access to authorized users.\n"
                         "Audit logs are retained for five years.", [doc.id], title="Retention memo")
    (rid,) = wb.reviewed(run.run_id).answer.sentences[1].citations
    at = on_page(app(), "check", reviewer="Ann")
    assert not at.exception, at.exception
    md = "\n".join(m.value for m in at.markdown)
    assert ":red-badge[:material/block: 1 contradicted]" in md and ":red-badge[:material/block: Contradicted]" in md
    body = texts(at)
    assert "2 sentence(s): 1 supported, 1 contradicted" in body
    assert f":red[**Contradicted by {rid}** (policy.pdf, p. 2, unsupported):]" in body
    assert ":red[“Audit logs are retained for one year.”]" in body  # the clause, its words shown as text
    assert any(m.value.startswith("**2.** :red[") for m in at.markdown)
    at.button(key=f"draft_con_{run.run_id}_1").click().run()
    assert not at.exception, at.exception
    (ev,) = wb.store.history(run.run_id)
    assert (ev.requirement_id, ev.label) == ("SENT-1", "contradicted")
    assert "2 sentence(s): 0 supported, 2 contradicted" in texts(at)


def test_the_answer_page_flags_a_sentence_whose_evidence_another_verified_item_contradicts(data_dir, make_pdf):
    from workbench.config import get_settings
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    # one document that disagrees with itself (items of two documents are not compared)
    a = wb.ingest(make_pdf(["Services Agreement. 1. Services. The Supplier shall provide the services in Schedule A. "
                            "2. Governing Law. This Agreement is governed by the laws of the State of New York.",
                            "Schedule B. Amendment No. 1. 1. Governing Law. This Agreement is governed by the laws "
                            "of the State of California. 2. Fees. The fees are increased by five percent."],
                           name="agreement.pdf"), source_type="contract")
    [run] = wb.ask(["Which law governs the Agreement?"], [a.id])
    at = on_page(app(run=run.run_id), "answer")
    body = texts(at)
    assert "**Evidence that says otherwise** (2 of 2 sentences)" in body
    captions = [shown(c.value) for c in at.caption if "says otherwise" in c.value]
    assert captions and all(c.startswith(":red[:material/block: **REQ-") for c in captions)
    assert any("“This Agreement is governed by the laws of the State of California.”" in c for c in captions)
