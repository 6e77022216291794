"""Check a draft (seed 004): a drafted answer checked sentence by sentence with the claim verifier
of `workbench verify`, stored as a run of kind "draft"; sentences relabelled like any answer
sentence; exported as md, html and json with its citations."""

from __future__ import annotations

import json
import re

import pytest

from workbench.text.draft import draft_sentences

PAGES = [
    "Records. The operator shall keep inspection records for five years. "
    "The operator must report every incident within 24 hours of discovery.",
    "Training. Each employee shall complete safety training before starting work. "
    "Visitors may walk the grounds when escorted.",
]
DRAFT = """# Memo: what the operator owes

The operator shall keep **inspection records** for five years.
- The operator must report every incident within [72 hours](https://example.org) of discovery.
- Every visitor must bring a passport to the annual shareholder dinner.
"""


def test_markdown_structure_is_read_not_checked():
    assert draft_sentences(DRAFT) == [
        "The operator shall keep inspection records for five years.",
        "The operator must report every incident within 72 hours of discovery.",
        "Every visitor must bring a passport to the annual shareholder dinner."]
    # plain text keeps what Markdown would have read as syntax
    assert draft_sentences("# 3 items are listed.\n\nThey are *all* here.", markdown=False) == [
        "# 3 items are listed.", "They are *all* here."]
    assert draft_sentences("```\nnot a claim.\n```\n---\n") == []


@pytest.fixture
def checked(data_dir, make_pdf):
    from workbench.config import get_settings
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    doc = wb.ingest(make_pdf(PAGES, name="rules.pdf"), source_type="statute")
    return wb, doc, wb.check_draft(DRAFT, [doc.id], title="Operator memo")


def test_each_sentence_is_checked_scored_and_cites_its_best_span(checked):
    wb, doc, run = checked
    assert run.kind == "draft" and run.draft == DRAFT and run.question == "Operator memo"
    rr = wb.reviewed(run.run_id)
    s = rr.answer.sentences
    assert [x.supported for x in s] == [True, False, False]  # true, swapped number, not in the document
    assert all(x.score is not None and 0 <= x.score <= 1 for x in s) and s[0].score > s[1].score
    assert "72" in s[1].reason and "24 hours" in s[1].reason  # the fact gate names the swap
    (first,) = s[0].citations
    item = rr.status_for(first)
    assert item.final_status == "supported" and item.evidence.span.page == 1
    assert "five years" in item.evidence.exact_quote and item.evidence.span.rects
    assert s[0].text.endswith(f"five years [{first}].")
    assert rr.answer.support_ratio == pytest.approx(1 / 3, abs=1e-3) and rr.badge == "red"
    # the same verdicts as `workbench verify` (one engine)
    assert [c.supported for c in wb.check_claims(draft_sentences(DRAFT), [doc.id])] == [True, False, False]


def test_a_sentence_relabel_moves_the_badge_and_the_exports(checked):
    wb, _, run = checked
    wb.review(run.run_id, "SENT-3", "supported", "ann", note="the dinner rules are in the annex")
    rr = wb.reviewed(run.run_id)
    assert [x.supported for x in rr.answer.sentences] == [True, False, True]
    assert rr.answer.support_ratio == pytest.approx(2 / 3, abs=1e-3) and rr.badge == "amber"
    assert "labelled supported by ann" in rr.answer.sentences[2].reason
    data = json.loads(wb.export_draft(run.run_id, "json")[0])
    assert data["badge"] == "amber" and [x["supported"] for x in data["sentences"]] == [True, False, True]
    cite = data["sentences"][0]["citations"][0]
    assert cite["page"] == 1 and "five years" in cite["quote"] and len(cite["text_sha256"]) == 64
    md = wb.export_draft(run.run_id, "md")[0].decode()
    # sentence 2 states 72 hours where the document says 24: contradicted, and counted apart
    assert "67 % of sentences supported** (2/3: 2 supported, 1 contradicted;" in md
    assert "**CONTRADICTED**" in md and cite["requirement_id"] in md
    page = wb.export_draft(run.run_id, "html")[0].decode()
    assert "<q>" in page and "Contradicted" in page and "&lt;" not in data["draft"]


def test_an_item_marked_unsupported_marks_its_sentence_and_the_words_stay(checked):
    wb, _, run = checked
    first = wb.reviewed(run.run_id).answer.sentences[0].citations[0]
    wb.review(run.run_id, first, "unsupported", "bob")
    rr = wb.reviewed(run.run_id)
    assert [x.supported for x in rr.answer.sentences] == [False, False, False] and rr.badge == "red"
    assert rr.answer.sentences[0].text == run.answer.sentences[0].text  # never dropped or rewritten
    assert "marked unsupported after review" in rr.answer.sentences[0].reason


def test_bad_input_is_a_clear_error(checked):
    from workbench.errors import WorkbenchError

    wb, doc, run = checked
    with pytest.raises(WorkbenchError, match="no sentences"):
        wb.check_draft("# only a heading\n", [doc.id])
    with pytest.raises(WorkbenchError, match="No documents"):
        wb.check_draft("A claim.", [])
    with pytest.raises(WorkbenchError, match="format"):
        wb.export_draft(run.run_id, "pdf")


def test_draft_labels_do_not_calibrate_the_question_verifier(checked):
    wb, _, run = checked
    rid = wb.reviewed(run.run_id).answer.sentences[0].citations[0]
    wb.review(run.run_id, rid, "unsupported", "ann")
    assert wb.calibration_data() == []  # a claim score is not a question verifier's score


def test_cli_check_draft_stores_prints_and_writes_the_checked_draft(data_dir, make_pdf, tmp_path, capsys):
    from workbench import cli

    pdf = make_pdf(PAGES, name="rules.pdf")
    draft = tmp_path / "memo.md"
    draft.write_text(DRAFT)
    assert cli.main(["check-draft", str(draft), str(pdf), "--json", "--out", str(tmp_path / "memo.html")]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["title"] == "memo.md" and [s["supported"] for s in row["sentences"]] == [True, False, False]
    assert row["badge"] == "red" and row["sentences"][0]["citations"][0]["page"] == 1
    assert "<q>" in (tmp_path / "memo.html").read_text()
    # the stored checked draft is a run the other commands read
    assert cli.main(["review", row["run_id"], "SENT-2", "--label", "supported", "--reviewer", "ann"]) == 0
    capsys.readouterr()
    assert cli.main(["show", row["run_id"], "--json"]) == 0
    after = json.loads(capsys.readouterr().out)["after_review"]
    assert [s["supported"] for s in after["sentence_support"]] == [True, True, False]
    assert cli.main(["check-draft", str(draft), row["documents"][0]["document_id"]]) == 0
    out = capsys.readouterr().out
    assert "CONTRADICTED" in out and "NOT STATED" in out
    assert "33 % of sentences supported (red): 1 supported, 1 contradicted, 1 not stated" in out
    assert cli.main(["check-draft", str(tmp_path / "missing.md"), str(pdf)]) == 2


def _labelled_drafts(wb, n_runs=6, per_run=6, cut=0.85):
    """Checked drafts whose reviewers supported only sentences the checker scored ≥ `cut`."""
    import random

    from workbench.models import Answer, Run, SentenceSupport

    rnd = random.Random(3)
    for r in range(n_runs):
        scores = [round(rnd.uniform(0.5, 1.0), 3) for _ in range(per_run)]
        sentences = [SentenceSupport(text=f"Claim {r}-{i}.", supported=True, score=s, reason=f"Supported (p={s:.2f})")
                     for i, s in enumerate(scores)]
        wb.store.save_run(Run(run_id=f"draft-{r}", question="memo", kind="draft", draft="...", document_ids=[],
                              answer=Answer(sentences=sentences)))
        for i, s in enumerate(scores, 1):
            wb.review(f"draft-{r}", f"SENT-{i}", "supported" if s >= cut else "unsupported", "ann")


def test_draft_labels_calibrate_the_claim_checker_and_revert(data_dir, make_pdf, capsys):
    from workbench import cli
    from workbench.config import get_settings
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    doc = wb.ingest(make_pdf(PAGES, name="rules.pdf"), source_type="statute")
    claims = ["Inspection records are kept for five years.", "Each employee must be trained before work starts.",
              "The operator must report every incident within 72 hours of discovery."]
    shipped = wb.check_claims(claims, [doc.id])
    assert [c.supported for c in shipped] == [True, True, False]
    weak, strong = sorted((0, 1), key=lambda i: shipped[i].score)
    assert shipped[strong].score - shipped[weak].score >= 0.05  # a weaker and a stronger supported claim
    cut = round((shipped[weak].score + shipped[strong].score) / 2, 3)
    _labelled_drafts(wb, cut=cut)
    assert len(wb.claim_calibration_data()) == 36 and wb.calibration_data() == []
    assert cli.main(["calibrate", "--claims", "--json"]) == 0
    cal = json.loads(capsys.readouterr().out)
    assert cal["target"] == "claims" and cal["applied"] and shipped[weak].score < cal["threshold"] <= shipped[strong].score
    assert cal["kappa_after"] > cal["kappa_before"]
    assert wb.calibration() is None and wb.calibration("claims").id == cal["id"]  # the question verifier untouched
    # stricter now: the weaker claim is no longer supported, the stronger one still is; the fact check still rejects
    checks = wb.check_claims(claims, [doc.id])
    assert [c.supported for c in checks] == [i == strong for i in range(2)] + [False]
    assert "72" in checks[2].reason
    run = wb.check_draft("\n".join(claims), [doc.id])
    assert run.settings["calibration"]["id"] == cal["id"]
    assert cli.main(["calibrate", "--claims", "--revert"]) == 0
    assert "claim checker as shipped" in capsys.readouterr().out
    assert [c.supported for c in wb.check_claims(claims, [doc.id])] == [True, True, False]
    assert cli.main(["calibrate", "--claims", "--revert"]) == 2


# --- contradiction is a verdict (issue 40) ------------------------------------------------------------
AGREEMENT = ("Term. This Agreement remains in force for three years from the Effective Date. "
             "Governing Law. This Agreement is governed by the laws of the State of New York.")
CLAIMS = ["This Agreement remains in force for three years.",
          "This Agreement is governed by the laws of the State of California.",
          "Every visitor <b>must</b> bring a passport to the annual shareholder dinner."]


@pytest.fixture
def against(data_dir, make_pdf):
    from workbench.config import get_settings
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    doc = wb.ingest(make_pdf([AGREEMENT], name="agreement.pdf"), source_type="contract")
    return wb, doc, wb.check_draft("\n".join(CLAIMS), [doc.id], title="Deal memo", markdown=False)


def test_a_contradicted_sentence_is_shown_with_the_clause_that_contradicts_it_in_every_export(against):
    wb, doc, run = against
    rr = wb.reviewed(run.run_id)
    s = rr.answer.sentences
    assert [x.verdict for x in s] == ["supported", "contradicted", "not_stated"], [x.reason for x in s]
    assert [x.supported for x in s] == [True, False, False]
    (rid,) = s[1].citations
    assert "New York" in rr.status_for(rid).evidence.exact_quote  # the deciding clause, not merely the closest
    assert s[1].reason.startswith("Contradicted")
    data = json.loads(wb.export_draft(run.run_id, "json")[0])
    assert [x["verdict"] for x in data["sentences"]] == ["supported", "contradicted", "not_stated"]
    assert (data["supported"], data["contradicted"], data["not_stated"]) == (1, 1, 1)
    assert data["verdicts"] == "1 supported, 1 contradicted, 1 not stated"
    assert data["sentences"][1]["citations"][0]["requirement_id"] == rid
    md = wb.export_draft(run.run_id, "md")[0].decode()
    assert "(1/3: 1 supported, 1 contradicted, 1 not stated;" in md
    assert "**CONTRADICTED**" in md and "**NOT STATED**" in md
    assert f"Contradicted by {rid} (agreement.pdf, p. 1, unsupported): “" in md and "State of New York" in md
    page = wb.export_draft(run.run_id, "html")[0].decode()
    assert '<li class="contradicted">' in page and f"Contradicted by <b>{rid}</b>" in page
    assert "<b>must</b>" not in page and "&lt;b&gt;must&lt;/b&gt;" in page  # the draft's text stays text


def test_cli_check_draft_prints_the_contradicting_clause_and_counts_each_verdict(data_dir, make_pdf, tmp_path, capsys):
    from workbench import cli

    pdf = make_pdf([AGREEMENT], name="agreement.pdf")
    draft = tmp_path / "memo.txt"
    draft.write_text("\n".join(CLAIMS[:2]))
    assert cli.main(["check-draft", str(draft), str(pdf)]) == 0
    out = capsys.readouterr().out
    first, second = out.split("\n  2. ")
    assert first.lstrip().startswith("1. SUPPORTED ") and second.startswith("CONTRADICTED ")
    assert re.search(r'Contradicted by REQ-\w+ \(agreement\.pdf, p\. 1\): "This Agreement is governed by the laws '
                     r'of the State of New York\."', second)
    assert out.rstrip().endswith("50 % of sentences supported (amber): 1 supported, 1 contradicted")


def test_a_contradicted_label_flows_into_the_draft_calibration_and_every_export(against):
    wb, doc, run = against
    wb.review(run.run_id, "SENT-3", "contradicted", "ann", note="the annex says visitors need none")
    first = wb.reviewed(run.run_id).answer.sentences[0].citations[0]
    wb.review(run.run_id, first, "contradicted", "bob")
    rr = wb.reviewed(run.run_id)
    assert [x.verdict for x in rr.answer.sentences] == ["contradicted"] * 3
    assert [x.supported for x in rr.answer.sentences] == [False] * 3 and rr.badge == "red"
    assert rr.answer.sentences[2].reason == "labelled contradicted by ann: the annex says visitors need none"
    st = rr.status_for(first)
    assert (st.human_label, st.final_status, st.verifier_verdict) == ("contradicted", "unsupported", "supported")
    # calibration: contradicted is "not supported" for the binary calibrator
    rows = wb.claim_calibration_data()
    assert [(r["sentence"], r["human"]) for r in rows] == [(3, False)]
    # exports: relabel JSONL, CSV, the audit trail (its events included)
    lines = [json.loads(x) for x in wb.export([run.run_id], "jsonl").data.decode().splitlines()]
    labelled = {x["requirement_id"]: (x["human_label"], x["human_supported"]) for x in lines}
    assert labelled == {first: ("contradicted", False), "SENT-3": ("contradicted", False)}
    csv_text = wb.export([run.run_id], "csv").data.decode()
    assert f"{first}," in csv_text and ",contradicted,bob," in csv_text
    audit = json.loads(wb.export([run.run_id], "json", force=True, reason="test: a report of the check").data)
    (audit_run,) = audit.get("runs", [audit])
    assert [(e["requirement_id"], e["label"]) for e in audit_run["review_history"]] == [
        ("SENT-3", "contradicted"), (first, "contradicted")]
    assert {o["requirement_id"]: o["human_label"] for o in audit_run["human_overrides"]} == {first: "contradicted"}
    trail = wb.audit_trail(run.run_id)
    [item] = [r for r in trail["extracted_requirements"] if r["requirement_id"] == first]
    assert (item["human_label"], item["final_status"]) == ("contradicted", "unsupported")
    assert [s["verdict"] for s in trail["after_review"]["sentence_support"]] == ["contradicted"] * 3
    assert [e.label for e in wb.history(run.run_id)] == ["contradicted", "contradicted"]
    data = json.loads(wb.export_draft(run.run_id, "json")[0])
    assert data["verdicts"] == "0 supported, 3 contradicted"
