"""`workbench locate` and `workbench show` cite the printed page beside the PDF page: NIST SP
800-171r2 prints "PAGE 28" on its 40th PDF page, and an auditor checks the printed number."""

from __future__ import annotations

import json

from workbench.cli import main
from workbench.config import get_settings

QUOTE = "Maintenance tools are potential vehicles for transporting malicious code"  # PDF page 40


def test_locate_gives_page_label_beside_the_pdf_page(corpus, capsys, tmp_path):
    quotes = tmp_path / "q.txt"
    quotes.write_text(QUOTE + "\n")
    nist = corpus / "pdfs/regulatory/NIST.SP.800-171r2.pdf"
    assert main(["locate", str(nist), "--quotes", str(quotes), "--json"]) == 0
    row = json.loads(capsys.readouterr().out.splitlines()[0])
    assert (row["page"], row["page_label"]) == (40, "28")
    assert main(["locate", str(nist), "--quotes", str(quotes)]) == 0
    assert capsys.readouterr().out.startswith("p. 28 (PDF p. 40) ")


def test_show_lists_the_printed_folio_of_each_cited_page(corpus, capsys, data_dir):
    from workbench.models import Evidence, Run, Verification
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    doc = wb.ingest(corpus / "pdfs/regulatory/NIST.SP.800-171r2.pdf", source_type="policy")
    parsed = wb.parsed(doc.id)
    quotes = [QUOTE, "Limit system access to authorized users"]
    evidence = []
    for i, q in enumerate(quotes):
        span = parsed.locate(q)
        span.page_label = None  # as a run stored before labels existed: show must still print them
        rid = wb.store.assign_evidence_id(doc.id, span.start, span.end, "policy")
        evidence.append(Evidence(requirement_id=rid, source_type="policy", document_id=doc.id, exact_quote=q,
                                 chunk_id=f"c{i}", span=span))
    wb.store.save_run(Run(run_id="run-nist", question="q", document_ids=[doc.id], evidence=evidence,
                          verifications=[Verification(requirement_id=e.requirement_id, verified=True)
                                         for e in evidence]))
    assert main(["show", "run-nist", "--json"]) == 0
    trail = json.loads(capsys.readouterr().out.splitlines()[0])
    got = [(r["page"], r["page_label"]) for r in trail["extracted_requirements"]]
    printed = {p: parsed.page_labels[p - 1] for p, _ in got}
    assert got[0] == (40, "28")
    assert all(label == printed[p] and label for p, label in got)  # each matches the folio on that page
    assert main(["show", "run-nist"]) == 0
    assert "p. 28 (PDF p. 40)" in capsys.readouterr().out
