"""The annotated PDF of a real corpus document (NIST SP 800-171 r2): each highlight reads back,
under its own quads, exactly the words of the quote it cites, on the page the span names."""

from __future__ import annotations

import pymupdf

from tests.export.test_service_export import store_run
from workbench.config import get_settings

QUOTES = [
    ("Organizations can employ full-device encryption or container-based encryption to protect the "
     "confidentiality of CUI on mobile devices and computing platforms.", True),
    ("Usage restrictions and implementation guidance for mobile devices include: device identification and "
     "authentication; configuration management;", True),
    ("Examples of mobile devices include smart phones, e-readers, and tablets.", False),
]


def words_under(page: pymupdf.Page, annot: pymupdf.Annot) -> str:
    pts = annot.vertices
    rects = [pymupdf.Quad(*pts[i:i + 4]).rect for i in range(0, len(pts), 4)]
    return " ".join(w[4] for w in page.get_text("words", sort=True)
                    if any(r.x0 - 1 <= (w[0] + w[2]) / 2 <= r.x1 + 1 and r.y0 - 1 <= (w[1] + w[3]) / 2 <= r.y1 + 1
                           for r in rects))


def test_nist_highlights_cover_the_quotes_on_their_pages(corpus, data_dir):
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    run = store_run(wb, corpus / "pdfs" / "regulatory" / "NIST.SP.800-171r2.pdf", QUOTES,
                    [("CUI on mobile devices can be encrypted [{0}].", [0]),
                     ("Mobile devices need identification and configuration management [{1}].", [1])])
    wb.review(run.run_id, run.evidence[1].requirement_id, "unsupported", "alice", "guidance, not a requirement")
    res = wb.export([run.run_id], "pdf")
    doc = pymupdf.open(stream=res.data, filetype="pdf")
    found = {}
    for page in doc:
        for a in page.annots():
            found[a.info["title"]] = (page.number + 1, words_under(page, a), a.info["content"])
    assert set(found) == {e.requirement_id for e in run.evidence}
    for ev in run.evidence:
        page, words, content = found[ev.requirement_id]
        assert page == ev.span.page == 27
        assert words.split() == ev.exact_quote.split()
    assert "human: unsupported by alice" in found[run.evidence[1].requirement_id][2]
