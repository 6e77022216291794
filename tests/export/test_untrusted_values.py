"""Values that are not the workbench's own (quotes, reviewer names, notes, forced-by, titles) stay
inert in the exports: no formula runs in a spreadsheet opening the CSV, no HTML or remote image
comes out of the Markdown report."""

from __future__ import annotations

import csv
import io
import re

from workbench.export import render

GATE = {"min_coverage": 0.0, "min_support": 0.0}
SCRIPT = "<script>alert(1)</script>"
IMAGE = "![x](http://203.0.113.5/t.png)"
FORMULAS = ['=HYPERLINK("http://203.0.113.5/","open")', "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]


def hostile(bundle):
    rb = bundle.runs[0]
    for i, st in enumerate(rb.statuses):
        rb.statuses[i] = st.model_copy(update={"reviewer": FORMULAS[i % len(FORMULAS)] + " " + SCRIPT,
                                              "note": FORMULAS[(i + 1) % len(FORMULAS)] + "\n# " + IMAGE,
                                              "human_label": st.human_label or "supported"})
    rb.history = [e.model_copy(update={"reviewer": SCRIPT, "note": IMAGE}) for e in rb.history]
    return bundle


def test_csv_cells_a_spreadsheet_would_evaluate_start_with_an_apostrophe(reviewed):
    bundle, _ = reviewed
    bundle = hostile(bundle)
    data = render(bundle, "csv", **GATE).data.decode()
    rows = list(csv.DictReader(io.StringIO(data, newline="")))
    assert rows
    for row in rows:
        for col, value in row.items():
            assert not value.startswith(("=", "+", "-", "@", "\t", "\r")), (col, value)
    assert rows[0]["reviewer"] == "'" + FORMULAS[0] + " " + SCRIPT
    # the hash column is the document's text, untouched
    sp = bundle.runs[0].statuses[0].evidence.span
    assert rows[0]["text_sha256"] == sp.text_sha256


def test_markdown_report_escapes_reviewers_notes_and_forced_by(reviewed):
    bundle, _ = reviewed
    bundle = hostile(bundle)
    md = render(bundle, "md", min_coverage=1.0, min_support=1.0, force=True, reason=IMAGE + " " + SCRIPT,
                by=SCRIPT + IMAGE).data.decode()
    unescaped = re.sub(r"\\.", "", md)
    assert "![" not in unescaped and "<script" not in unescaped and "](http" not in unescaped
    assert not re.search(r"^#\s*!", md, flags=re.M), "a note's line break opened a heading"
    assert "\\<script\\>alert(1)\\</script\\>" in md  # still readable as what the reviewer typed
