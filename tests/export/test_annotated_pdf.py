"""The annotated PDF, read back with PyMuPDF: one highlight per evidence item (per page it
covers), over the quote's words, coloured by final status, its popup carrying the ID, both
verdicts, the human label and the note."""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass

import pymupdf

from tests.export.conftest import PAGE_1, PAGE_2, Q1, Q3, evidence, load_pdf, make_bundle, status
from workbench.export.annotated_pdf import COLOURS, to_annotated_pdf
from workbench.export.bundle import RunBundle
from workbench.models import Run


def norm(text: str) -> list[str]:
    return re.sub(r"[^\w\s]", "", text).casefold().split()


def words_under(page: pymupdf.Page, annot: pymupdf.Annot) -> list[str]:
    pts = annot.vertices
    quads = [pymupdf.Quad(*pts[i:i + 4]).rect for i in range(0, len(pts), 4)]
    out = []
    for w in page.get_text("words", sort=True):
        cx, cy = (w[0] + w[2]) / 2, (w[1] + w[3]) / 2
        if any(q.x0 - 1 <= cx <= q.x1 + 1 and q.y0 - 1 <= cy <= q.y1 + 1 for q in quads):
            out.append(w[4])
    return out


@dataclass
class Highlight:
    page: int
    title: str
    content: str
    stroke: tuple[float, ...]
    words: list[str]


def highlights(data: bytes) -> list[Highlight]:
    doc = pymupdf.open(stream=data, filetype="pdf")
    out = []
    for page in doc:
        for a in page.annots():
            if a.type[1] == "Highlight":
                out.append(Highlight(page.number + 1, a.info["title"], a.info["content"],
                                     tuple(round(c, 2) for c in a.colors["stroke"]), words_under(page, a)))
    doc.close()
    return out


def rgb(key: str) -> tuple[float, ...]:
    return tuple(round(c, 2) for c in COLOURS[key])


def test_one_highlight_per_evidence_item_covering_exactly_the_quote_words(reviewed):
    bundle, _ = reviewed
    data, media = to_annotated_pdf(bundle)
    assert media == "application/pdf"
    found = highlights(data)
    by_id = {h.title: h for h in found}
    assert len(found) == 3 and set(by_id) == {"REQ-S001", "REQ-S002", "REQ-S003"}
    for st in bundle.runs[0].statuses:
        h = by_id[st.evidence.requirement_id]
        assert h.page == st.evidence.span.page
        assert norm(" ".join(h.words)) == norm(st.evidence.span.text)


def test_popup_carries_id_verdicts_human_label_and_note(reviewed):
    bundle, _ = reviewed
    contents = {h.title: h.content for h in highlights(to_annotated_pdf(bundle)[0])}
    assert contents["REQ-S002"].startswith("REQ-S002")
    assert "verifier: supported" in contents["REQ-S002"]
    assert "human: unsupported by alice" in contents["REQ-S002"]
    assert "note: talks about storage, not transit" in contents["REQ-S002"]
    assert "final: unsupported" in contents["REQ-S002"]
    assert "verifier: unsupported (does_not_address_question)" in contents["REQ-S003"]
    assert "human: not reviewed" in contents["REQ-S003"]


def test_colour_follows_final_status_so_human_override_turns_it_red(reviewed):
    bundle, _ = reviewed
    colours = {h.title: h.stroke for h in highlights(to_annotated_pdf(bundle)[0])}
    assert colours["REQ-S001"] == rgb("supported")
    assert colours["REQ-S002"] == rgb("unsupported")  # the verifier said supported; alice overrode it
    assert colours["REQ-S003"] == rgb("unsupported")


def test_quote_across_page_break_gets_a_highlight_on_both_pages(make_pdf):
    pdf = load_pdf(make_pdf(["Intro text here. The operator shall keep", "records of every change. Done."],
                            name="split.pdf"))
    ev = evidence(pdf, "REQ-S001", "The operator shall keep records of every change.")
    assert ev.span.pages == [1, 2]
    run = Run(run_id="r", question="q", document_ids=[pdf.document.id], evidence=[ev])
    bundle = make_bundle([pdf], [RunBundle(run=run, statuses=[status("r", ev, True)])])
    found = highlights(to_annotated_pdf(bundle)[0])
    assert [(h.page, h.title) for h in found] == [(1, "REQ-S001"), (2, "REQ-S001")]
    assert norm(" ".join(found[0].words + found[1].words)) == norm("The operator shall keep records of every change.")


def test_several_documents_export_as_a_zip_of_one_annotated_pdf_each(make_pdf):
    a = load_pdf(make_pdf([PAGE_1], name="a.pdf"))
    b = load_pdf(make_pdf([PAGE_2], name="b.pdf"), title="Other")
    ea, eb = evidence(a, "REQ-S001", Q1), evidence(b, "REQ-S002", Q3)
    run = Run(run_id="r", question="q", document_ids=[a.document.id, b.document.id], evidence=[ea, eb])
    bundle = make_bundle([a, b], [RunBundle(run=run, statuses=[status("r", ea, True), status("r", eb, False)])])
    data, media = to_annotated_pdf(bundle)
    assert media == "application/zip"
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert sorted(zf.namelist()) == ["a.annotated.pdf", "b.annotated.pdf"]
        assert [h.title for h in highlights(zf.read("a.annotated.pdf"))] == ["REQ-S001"]
        assert [h.title for h in highlights(zf.read("b.annotated.pdf"))] == ["REQ-S002"]


def test_same_item_in_two_runs_is_highlighted_once_and_amber_when_runs_disagree(sample_pdf):
    ev = evidence(sample_pdf, "REQ-S001", Q1)
    runs = [RunBundle(run=Run(run_id=r, question="q", document_ids=[sample_pdf.document.id], evidence=[ev]),
                      statuses=[status(r, ev, ok)]) for r, ok in (("r1", True), ("r2", False))]
    found = highlights(to_annotated_pdf(make_bundle([sample_pdf], runs))[0])
    assert len(found) == 1
    assert "[run r1] final: supported" in found[0].content
    assert "[run r2] final: unsupported" in found[0].content
    assert found[0].stroke == rgb("mixed")


def test_unanchored_evidence_is_not_highlighted_and_the_pdf_pages_are_unchanged(reviewed):
    bundle, pdf = reviewed
    st = bundle.runs[0].statuses[2]
    bundle.runs[0].statuses[2] = st.model_copy(update={"evidence": st.evidence.model_copy(update={"span": None})})
    data, _ = to_annotated_pdf(bundle)
    assert sorted(h.title for h in highlights(data)) == ["REQ-S001", "REQ-S002"]
    out, src = pymupdf.open(stream=data, filetype="pdf"), pymupdf.open(pdf.path)
    assert out.page_count == src.page_count == 2
    assert [p.get_text() for p in out] == [p.get_text() for p in src]


def test_rotated_page_highlight_lands_on_the_quote_words(tmp_path):
    src = pymupdf.open()
    page = src.new_page(width=612, height=792)
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 720), PAGE_1, fontsize=11, fontname="helv")
    page.set_rotation(90)
    path = tmp_path / "rotated.pdf"
    src.save(path)
    pdf = load_pdf(path)
    ev = evidence(pdf, "REQ-S001", Q1)
    run = Run(run_id="r", question="q", document_ids=[pdf.document.id], evidence=[ev])
    bundle = make_bundle([pdf], [RunBundle(run=run, statuses=[status("r", ev, True)])])
    (h,) = highlights(to_annotated_pdf(bundle)[0])
    assert norm(" ".join(h.words)) == norm(Q1)
