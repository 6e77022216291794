"""Citation parsing for the Answer page's chips: one chip per cited ID, brackets of several IDs included."""

from workbench.models import Answer
from workbench.ui.citations import cited_ids


def test_a_bracket_of_several_ids_cites_each_of_them_in_order():
    answer = Answer(final_answer="Limit access [REQ-P001, REQ-P010]. Review logs [REQ-P012]. See [SENT-2].")
    assert cited_ids(answer) == ["REQ-P001", "REQ-P010", "REQ-P012", "SENT-2"]


def test_text_in_brackets_that_is_not_an_id_is_not_a_citation():
    assert cited_ids(Answer(final_answer="Pay [*****] dollars [REQ-C018] within [30] days.")) == ["REQ-C018"]


def test_over_several_documents_each_sentence_carries_the_document_it_names():
    from workbench.models import SentenceSupport
    from workbench.ui.citations import answer_sentences

    a = "In the Adams Golf Endorsement Agreement: Kansas law governs [REQ-C001]."
    b = "In the Cano Petroleum Sponsorship Agreement: Texas law governs [REQ-C002]."
    answer = Answer(final_answer=f"{a} {b}", sentences=[SentenceSupport(text=t, citations=[], supported=True)
                                                      for t in (a, b)])
    rows = answer_sentences(answer, {"Adams Golf Endorsement Agreement", "Cano Petroleum Sponsorship Agreement"})
    assert [(r["source"], r["prefix"]) for r in rows] == [
        ("Adams Golf Endorsement Agreement", "In the Adams Golf Endorsement Agreement: "),
        ("Cano Petroleum Sponsorship Agreement", "In the Cano Petroleum Sponsorship Agreement: ")]
    assert "source" not in answer_sentences(answer)[0]  # one document: nothing named
