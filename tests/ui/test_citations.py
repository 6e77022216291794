"""Citation parsing for the Answer page's chips: one chip per cited ID, brackets of several IDs included."""

from workbench.models import Answer
from workbench.ui.citations import cited_ids


def test_a_bracket_of_several_ids_cites_each_of_them_in_order():
    answer = Answer(final_answer="Limit access [REQ-P001, REQ-P010]. Review logs [REQ-P012]. See [SENT-2].")
    assert cited_ids(answer) == ["REQ-P001", "REQ-P010", "REQ-P012", "SENT-2"]


def test_text_in_brackets_that_is_not_an_id_is_not_a_citation():
    assert cited_ids(Answer(final_answer="Pay [*****] dollars [REQ-C018] within [30] days.")) == ["REQ-C018"]
