"""Question-free mode: every requirement of a document, anchored, with stable IDs."""

from tests.pipeline.helpers import POLICY
from workbench.backends.rules import RulesBackend
from workbench.config import Settings
from workbench.pdf import open_pdf
from workbench.pipeline import MemoryIds
from workbench.pipeline.inventory import inventory


def test_inventory_lists_every_requirement_in_reading_order_and_nothing_else(make_pdf, tmp_path):
    doc = open_pdf(make_pdf(POLICY))
    ids = MemoryIds()
    found = inventory([doc], backend=RulesBackend(Settings(data_dir=tmp_path)), ids=ids, source_type="policy")
    quotes = [" ".join(e.exact_quote.split()) for e in found]
    assert [q.split()[0] for q in quotes] == ["Employees", "Remote", "The", "Records", "Contractors", "Paper"]
    assert not any("cafeteria" in q for q in quotes)
    assert [e.requirement_id for e in found] == [f"REQ-P{i:03d}" for i in range(1, 7)]
    assert all(doc.text[e.span.start:e.span.end] == e.exact_quote for e in found)
    again = inventory([doc], backend=RulesBackend(Settings(data_dir=tmp_path)), ids=ids, source_type="policy")
    assert [e.requirement_id for e in again] == [e.requirement_id for e in found]
