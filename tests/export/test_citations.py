"""BibTeX (read back with bibtexparser v2), CSL-JSON, and the Markdown / HTML report."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import bibtexparser

from workbench.export.bibliography import to_bibtex, to_csljson
from workbench.export.report import to_html, to_markdown
from workbench.models import NO_AUTHORITATIVE_EVIDENCE, Answer


def test_bibtex_parses_with_title_authors_year_and_pages_cited(reviewed):
    bundle, pdf = reviewed
    lib = bibtexparser.parse_string(to_bibtex(bundle).decode("utf-8"))
    assert lib.failed_blocks == []
    (entry,) = lib.entries
    assert entry.entry_type == "misc" and entry.key == "doe2020"
    assert entry["title"] == "{Security Requirements for Test Systems}"
    assert entry["author"] == "{Jane Doe} and {National Institute of Testing}"
    assert entry["year"] == "2020" and entry["month"] == "feb"
    # only S001's page: S003 (page 2) was rejected and never cited, S002 cited but a reviewer rejected it
    assert entry["note"].endswith("pages cited: 1") and pdf.document.id in entry["note"]


def test_bibtex_escapes_special_characters_and_keeps_keys_unique(reviewed, make_pdf):
    from tests.export.conftest import PAGE_2, Q3, evidence, load_pdf, status

    bundle, _ = reviewed
    other = load_pdf(make_pdf([PAGE_2], name="o.pdf"), title="R&D {draft} 100% _final_", author="Jane Doe",
                     created="2020")
    ev = evidence(other, "REQ-S009", Q3)
    bundle.documents[other.document.id] = other.document
    bundle.runs[0].statuses.append(status("run-1", ev, True))
    lib = bibtexparser.parse_string(to_bibtex(bundle).decode("utf-8"))
    assert lib.failed_blocks == []
    assert [e.key for e in lib.entries] == ["doe2020", "doe2020a"]
    assert lib.entries[1]["title"] == r"{R\&D \{draft\} 100\% \_final\_}"


def test_csljson_items_have_zotero_types_authors_and_issued_dates(reviewed):
    bundle, _ = reviewed
    (item,) = json.loads(to_csljson(bundle))
    assert item["type"] == "legislation"  # source_type statute
    assert item["title"] == "Security Requirements for Test Systems"
    assert item["author"] == [{"literal": "Jane Doe"}, {"literal": "National Institute of Testing"}]
    assert item["issued"] == {"date-parts": [[2020, 2, 1]]}
    assert item["page"] == "1" and item["number-of-pages"] == "2"  # cited, supported items' pages only


def test_missing_pdf_metadata_is_left_out_not_guessed(reviewed):
    bundle, pdf = reviewed
    bundle.documents[pdf.document.id] = pdf.document.model_copy(update={"title": None, "author": None, "created": None})
    (item,) = json.loads(to_csljson(bundle))
    assert item["title"] == "requirements.pdf" and "author" not in item and "issued" not in item
    (entry,) = bibtexparser.parse_string(to_bibtex(bundle).decode()).entries
    assert "author" not in entry.fields_dict and "year" not in entry.fields_dict


def test_markdown_report_numbers_citations_and_lists_bibliography_and_human_changes(reviewed):
    bundle, _ = reviewed
    md = to_markdown(bundle).decode()
    assert "Access is limited to authorized users and devices [[1](#ev-1)]." in md
    assert "Mobile devices must encrypt CUI at rest [[2](#ev-2)]." in md
    assert "REQ-S001]" not in md.split("### Evidence")[0]  # IDs replaced by numbers in the answer
    assert "<a id=\"ev-2\"></a>**[2]** `REQ-S002`" in md and "p. 1" in md
    assert "human: unsupported by alice" in md and "note: talks about storage, not transit" in md
    assert "alice: REQ-S002 verifier supported → unsupported" in md
    bib = md.split("## Bibliography")[1]
    for part in ("Security Requirements for Test Systems", "Jane Doe; National Institute of Testing", "2020-02-01",
                 "requirements.pdf", "Pages cited: 1."):
        assert part in bib
    assert "Confidence: **medium**" in md


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: list[str] = []
        self.links: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "a" and "href" in a:
            self.links.append(a["href"])

    def handle_data(self, data):
        self.text.append(data)


def test_html_report_links_every_citation_to_its_quote_and_escapes_text(reviewed):
    bundle, _ = reviewed
    bundle.runs[0].statuses[0].note = "<script>alert(1)</script>"
    doc = to_html(bundle).decode()
    p = _Collect()
    p.feed(doc)
    assert p.links == ["#ev-1", "#ev-2"]
    assert {"ev-1", "ev-2", "ev-3"} <= set(p.ids)
    assert "<script>" not in doc and "&lt;script&gt;" in doc
    text = " ".join(p.text)
    assert "human: unsupported by alice" in text and "Pages cited: 1." in text


def test_no_authoritative_evidence_is_stated_plainly(reviewed):
    bundle, _ = reviewed
    rb = bundle.runs[0]
    rb.answer = Answer(result=NO_AUTHORITATIVE_EVIDENCE, message="No authoritative requirement found in provided sources.",
                       missing_evidence=["A rule on mobile device encryption"])
    md = to_markdown(bundle).decode()
    assert f"**{NO_AUTHORITATIVE_EVIDENCE}**: No authoritative requirement found" in md
    assert "Missing evidence: A rule on mobile device encryption" in md
    assert NO_AUTHORITATIVE_EVIDENCE in to_html(bundle).decode()


def test_evidence_is_listed_in_citation_number_order(reviewed):
    bundle, _ = reviewed
    rb = bundle.runs[0]
    rb.answer = rb.run.answer.model_copy(update={"final_answer": "Encrypt at rest [REQ-S002]. Limit access [REQ-S001].",
                                                  "sentences": []})
    evidence = to_markdown(bundle).decode().split("### Evidence")[1]
    order = [evidence.index(f"**[{n}]** `{rid}`") for n, rid in ((1, "REQ-S002"), (2, "REQ-S001"), (3, "REQ-S003"))]
    assert order == sorted(order)
    html_doc = to_html(bundle).decode()
    assert html_doc.index('id="ev-1" value="1"><code>REQ-S002') < html_doc.index('id="ev-2" value="2"><code>REQ-S001')


def test_answer_text_is_escaped_in_both_reports_but_citations_stay_links(reviewed):
    bundle, _ = reviewed
    rb = bundle.runs[0]
    rb.answer = rb.run.answer.model_copy(update={"final_answer": "Use <b>*strong*</b> crypto [REQ-S001].",
                                                  "sentences": []})
    md = to_markdown(bundle).decode()
    assert r"Use \<b\>\*strong\*\</b\> crypto [[1](#ev-1)]." in md
    html_doc = to_html(bundle).decode()
    assert 'Use &lt;b&gt;*strong*&lt;/b&gt; crypto [<a href="#ev-1" title="REQ-S001">1</a>].' in html_doc


def test_the_bibliography_lists_documents_quoted_from_not_every_document_searched(reviewed, make_pdf):
    from tests.export.conftest import PAGE_2, load_pdf

    bundle, pdf = reviewed
    searched = load_pdf(make_pdf([PAGE_2], name="searched-only.pdf"), title="Searched but never quoted")
    bundle.documents[searched.document.id] = searched.document
    bundle.runs[0].run.document_ids.append(searched.document.id)
    titles = [i["title"] for i in json.loads(to_csljson(bundle))]
    assert titles == ["Security Requirements for Test Systems"]
    for rb in bundle.runs:  # nothing quoted at all: the export still names what was searched
        rb.statuses.clear()
    assert len(json.loads(to_csljson(bundle))) == 2
