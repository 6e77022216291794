"""A run over several documents names each statement's document (issue 39); a conflict between
two documents stays one sentence, naming both, and still counts as supported."""

from __future__ import annotations

from tests.pipeline.test_run import ask, settings  # noqa: F401 - fixture
from workbench.pdf import open_pdf
from workbench.pipeline.compose import named, without_source


def test_a_conflict_between_two_documents_names_each(make_pdf, settings):  # noqa: F811
    a = open_pdf(make_pdf(["Laptop Policy\n\nContractors must store customer records on encrypted company laptops "
                           "during every field visit."], name="laptop_policy.pdf"))
    b = open_pdf(make_pdf(["Records Statute\n\nContractors must not store customer records on company laptops "
                           "during any field visit."], name="RECORDS STATUTE.pdf"))
    run = ask("Where must contractors store customer records during field visits?", [a, b], settings)
    assert set(run.document_titles.values()) == {"laptop policy", "Records Statute"}
    [s] = run.answer.sentences
    assert s.supported and len(s.citations) == 2
    first, second = ("laptop policy", "Records Statute") if s.text.startswith("In the laptop") \
        else ("Records Statute", "laptop policy")
    assert s.text.startswith(f"In the {first}: ") and f"; by contrast, in the {second}: " in s.text


def test_the_support_check_reads_the_sentence_without_its_document_name():
    s = named("This Agreement shall be governed by the laws of Kansas [REQ-C001].", "Adams Golf Endorsement Agreement")
    assert s == "In the Adams Golf Endorsement Agreement: This Agreement shall be governed by the laws of Kansas [REQ-C001]."
    assert without_source(s, ["Cano Petroleum Sponsorship Agreement", "Adams Golf Endorsement Agreement"]) \
        == "This Agreement shall be governed by the laws of Kansas [REQ-C001]."
    assert named("A [REQ-C001].", None) == "A [REQ-C001]."
    assert without_source("In the event of default: A [REQ-C001].", ["Adams Golf Endorsement Agreement"]) \
        == "In the event of default: A [REQ-C001]."


def test_an_llms_sentences_over_two_documents_name_their_document_too(make_pdf, settings):  # noqa: F811
    from tests.pipeline.helpers import ScriptedComposeBackend

    a = open_pdf(make_pdf(["Laptop Policy\n\nContractors must store customer records on encrypted company laptops "
                           "during every field visit."], name="LAPTOP POLICY.pdf"))
    b = open_pdf(make_pdf(["Records Statute\n\nContractors must not store customer records on company laptops "
                           "during any field visit."], name="RECORDS STATUTE.pdf"))
    backend = ScriptedComposeBackend(settings, ["Contractors store records on laptops [{ID}]."])
    run = ask("Where must contractors store customer records during field visits?", [a, b], settings,
              backend=backend)
    [s] = run.answer.sentences
    cited = next(e for e in run.evidence if e.requirement_id == s.citations[0])
    assert s.text == f"In the {run.document_titles[cited.document_id]}: Contractors store records on laptops " \
                     f"[{cited.requirement_id}]."


def test_a_document_that_says_nothing_on_the_question_is_named_as_silent(make_pdf, settings):  # noqa: F811
    """Asked across two documents, one answers and one is silent: the answer cites the one, and
    missing evidence names the other, so an analyst never reads silence as agreement."""
    a = open_pdf(make_pdf(["Laptop Policy\n\nContractors must store customer records on encrypted company laptops "
                           "during every field visit."], name="laptop_policy.pdf"))
    b = open_pdf(make_pdf(["Catering Terms\n\nThe caterer shall deliver lunch to the office by noon on each "
                           "working day, and invoices are payable within thirty days."], name="catering_terms.pdf"))
    run = ask("Where must contractors store customer records during field visits?", [a, b], settings)
    assert run.answer.sentences and all(s.text.startswith("In the laptop policy: ") for s in run.answer.sentences)
    assert run.answer.missing_evidence == [
        "A passage in the catering terms that addresses: Where must contractors store customer records during field "
        "visits? (none of its passages was verified)"]
    both = ask("Where must contractors store customer records during field visits?", [a, a], settings)
    assert both.answer.missing_evidence == []  # one document asked twice: nothing silent
