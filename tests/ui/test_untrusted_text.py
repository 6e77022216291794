"""Untrusted text stays text on every page (issue 10): a PDF's text, title and file name, a deep
link, a reviewer's name and note and a model's reply all carry Markdown that Streamlit would turn
into images (remote fetches), links, badges, colours, icons, LaTeX or HTML. Every Markdown source
the app sends must hold them only escaped, and what a reader sees is their characters.

AppTest sees Markdown *source*; test_browser_untrusted.py checks the rendered page in Chromium."""

from __future__ import annotations

import pytest

from tests.ui.conftest import shown
from tests.ui.test_pages import PAGES, app, component_data
from workbench.config import get_settings

IMAGE = "![x](http://203.0.113.5/t.png)"
BADGE = ":green-badge[VERIFIED]"
RED = ":red[all clear]"
LINK = "[click here to re-authenticate](http://203.0.113.7/login)"
LATEX = "$x^2$"
ICON = ":material/home:"
HTML = "<img src=http://203.0.113.9/i.png>"
HOSTILE = [IMAGE, BADGE, RED, LINK, LATEX, ICON, HTML]
SENTENCE = "Passwords rotate yearly " + " ".join(HOSTILE)
FILE_NAME = "![x](https:203.0.113.14).pdf"
REVIEWER = "Eve ![r](http://203.0.113.20/r.png) :blue-badge[ADMIN]"
NOTE = "ok [see](http://203.0.113.21/n) :red[note]"
DEEP_LINK = "![x](http://203.0.113.6/d.png) [Session expired, log in again](http://203.0.113.8/)"


def markdown_sources(at) -> list[str]:
    """Every string the page hands Streamlit's Markdown renderer (st.text is not one of them)."""
    out = [str(e.value) for e in (*at.markdown, *at.caption, *at.info, *at.warning, *at.error, *at.success,
                                  *at.title, *at.header, *at.subheader)]
    for t in at.table:
        out += [str(c) for c in t.value.to_numpy().ravel()] + [str(c) for c in t.value.columns]
    for kind in ("selectbox", "multiselect", "text_input", "checkbox", "button", "text_area", "radio"):
        out += [str(w.label) for w in getattr(at, kind)]
    return out


def assert_only_as_text(at, *must_show: str) -> None:
    sources = markdown_sources(at)
    for s in sources:
        for h in (*HOSTILE, DEEP_LINK, REVIEWER, NOTE, FILE_NAME):
            assert h not in s, f"raw Markdown {h!r} reaches the renderer in {s!r}"
    seen = "\n".join(shown(s) for s in sources) + "\n" + "\n".join(str(t.value) for t in at.text)
    for m in must_show:
        assert m in seen, f"{m!r} is not shown literally"


@pytest.fixture
def hostile(data_dir, make_pdf):
    """A workspace whose PDF (hostile title and file name) holds the hostile sentence, and a run over
    it whose model output, reviewer and note carry hostile Markdown."""
    from workbench.models import Answer, Evidence, QualityFinding, Run, SentenceSupport, Verification
    from workbench.service import Workbench

    pdf = make_pdf([SENTENCE + ". Accounts are reviewed every quarter."], name="hostile.pdf",
                   metadata={"title": "Policy " + BADGE + " " + IMAGE})
    wb = Workbench(get_settings())
    doc = wb.ingest(pdf, FILE_NAME, source_type="policy")
    span = wb.parsed(doc.id).locate(SENTENCE)
    assert span is not None
    rid = wb.store.assign_evidence_id(doc.id, span.start, span.end, "policy")
    ev = Evidence(requirement_id=rid, source_type="policy", document_id=doc.id, exact_quote=SENTENCE,
                  chunk_id="c0", span=span, section_heading="Heading " + LINK)
    ver = Verification(requirement_id=rid, verified=False, score=0.2, rejection_reason="does_not_address_question",
                       verification_rationale="model says " + BADGE + " " + IMAGE)
    sentences = [SentenceSupport(text=f"Rotate {RED} {LINK} [{rid}].", citations=[rid], supported=False,
                                 reason="model reason " + IMAGE)]
    answer = Answer(final_answer=sentences[0].text, sentences=sentences, support_ratio=0.0,
                    grounding_confidence="low", missing_evidence=["missing " + LATEX + " " + HTML],
                    quality=[QualityFinding(check="no_speculation", passed=False, detail="detail " + ICON + " " + LINK)],
                    message="model message " + IMAGE)
    run = Run(run_id="run-hostile", question="Question " + BADGE + " " + IMAGE, document_ids=[doc.id],
              evidence=[ev], verifications=[ver], answer=answer, backend="openai",
              failures=[{"stage": "verify", "message": "reply " + LINK}])
    wb.store.save_run(run)
    wb.review(run.run_id, rid, "supported", REVIEWER, NOTE)
    wb.review(run.run_id, "SENT-1", "unsupported", REVIEWER, NOTE)
    return wb, doc, run


def visit(page: str, reviewer: str = REVIEWER, **query):
    at = app(**query)
    at.run()
    at.text_input(key="reviewer_name").set_value(reviewer).run()
    at.switch_page(str(PAGES / f"{page}.py")).run()
    assert not at.exception, at.exception
    return at


def test_documents_upload_with_a_markdown_file_name_shows_the_name_literally(data_dir, make_pdf):
    pdf = make_pdf(["The organization shall " + " ".join(HOSTILE) + "."], name="x.pdf")
    at = app()
    at.run()
    at.file_uploader[0].set_value((FILE_NAME, pdf.read_bytes(), "application/pdf")).run()
    assert_only_as_text(at, f"Source type of {FILE_NAME}")
    next(b for b in at.button if b.label == "Ingest").click().run()
    assert not at.exception, at.exception
    assert_only_as_text(at, FILE_NAME)


def test_review_shows_quote_heading_rationale_reviewer_and_note_as_text(hostile):
    _, _, run = hostile
    at = visit("review", run=run.run_id)
    assert_only_as_text(at, "Heading " + LINK, "model says " + BADGE + " " + IMAGE, REVIEWER, NOTE, run.question)
    assert SENTENCE in [t.value for t in at.text], "the quote is shown as plain text, character for character"
    # The file name is the viewer's caption: data it writes as text (test_browser_untrusted.py reads it on screen).
    (viewer,) = component_data(at, "pdf_viewer")
    assert [d["name"] for d in viewer["documents"].values()] == [FILE_NAME]


def test_a_hostile_deep_link_is_reported_without_rendering_it(hostile):
    _, _, run = hostile
    at = app(run=run.run_id, evidence=DEEP_LINK)  # app.py opens Review for a link naming evidence
    at.run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Review"
    assert_only_as_text(at, DEEP_LINK)
    at = app(run=DEEP_LINK)
    at.run()
    at.switch_page(str(PAGES / "answer.py")).run()
    assert_only_as_text(at, DEEP_LINK)


def test_answer_shows_model_sentences_reasons_and_findings_as_text(hostile):
    _, _, run = hostile
    at = visit("answer", run=run.run_id)
    at.expander[0]  # the sentence-labelling expander is rendered
    # (missing evidence, findings and messages are recomposed after review: checked raw-free above)
    assert_only_as_text(at, run.question, f"Rotate {RED} {LINK}", REVIEWER)


def test_run_results_show_the_question_and_backend_failure_as_text(hostile):
    _, _, run = hostile
    at = app()
    at.session_state["last_run_ids"] = [run.run_id]
    at.run()
    at.switch_page(str(PAGES / "run.py")).run()
    assert not at.exception, at.exception
    assert_only_as_text(at, run.question, "reply " + LINK)


def test_dashboard_names_hostile_reviewers_as_text(hostile):
    at = visit("dashboard")
    assert_only_as_text(at, REVIEWER)


def test_export_gate_reasons_and_forced_by_are_text(hostile):
    _, _, run = hostile
    at = visit("export", run=run.run_id)
    fmt = at.selectbox[1] if len(at.selectbox) > 1 else at.selectbox[0]
    fmt.set_value("md").run()
    assert_only_as_text(at)
    assert at.error, "an unsupported sentence blocks the export"
    at.checkbox[0].check().run()
    at.text_input(key=next(t.key for t in at.text_input if t.label == "Reason for forcing")).set_value(NOTE).run()
    assert not at.exception, at.exception
    assert_only_as_text(at, REVIEWER, NOTE)


def test_check_a_draft_shows_the_draft_its_title_and_the_documents_words_as_text(hostile):
    wb, doc, _ = hostile
    draft = f"Passwords rotate yearly {BADGE} {LINK} {ICON}.\nAccounts are reviewed every quarter {IMAGE}."
    wb.check_draft(draft, [doc.id], title="Memo " + RED, markdown=False)
    at = visit("check")
    assert_only_as_text(at, "Passwords rotate yearly " + BADGE, IMAGE, "Policy " + BADGE)
