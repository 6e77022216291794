"""Term weights: a word a document uses everywhere says little about which sentence answers."""

from __future__ import annotations

import json

import pytest

from workbench.text import content_terms
from workbench.text.weights import TermWeights, remember, weights_for


def test_a_word_in_every_sentence_weighs_less_than_a_rare_one():
    w = TermWeights(["Confidential Information shall be kept secret.",
                     "Confidential Information may be shared with employees.",
                     "Confidential Information excludes public information."])
    [conf] = content_terms("Confidential")
    [emp] = content_terms("employees")
    assert w.idf(conf) < w.idf(emp)
    # a word the document never uses weighs most: a claim's missing word costs the most
    [moon] = content_terms("moon")
    assert w.idf(moon) > w.idf(emp)


def test_weighted_coverage_prefers_the_sentence_with_the_rare_words():
    w = TermWeights(["Confidential Information shall be kept secret.",
                     "Confidential Information may be shared with employees.",
                     "Confidential Information excludes public information."])
    claim = set(content_terms("Confidential Information may be shared with employees"))
    shared = set(content_terms("Confidential Information may be shared with employees."))
    secret = set(content_terms("Confidential Information shall be kept secret."))
    assert w.coverage(claim, shared) == pytest.approx(1.0)
    assert w.coverage(claim, secret) < 0.2  # unweighted it would be 0.5


def test_weights_are_remembered_per_document_and_computed_once():
    calls = []

    def texts():
        calls.append(1)
        return ["One sentence about access.", "Another about passwords."]

    a = remember("doc-weights-test", texts)
    b = remember("doc-weights-test", texts)
    assert a is b and weights_for("doc-weights-test") is a and len(calls) == 1
    assert weights_for("never-seen") is None and weights_for(None) is None


def test_on_a_real_nda_the_defined_term_weighs_least(corpus):
    """ContractNLI dev, the first NDA: 'Confidential Information' is its most common content word."""
    data = json.loads((corpus / "contract-nli" / "dev.json").read_text())
    doc = data["documents"][0]
    w = TermWeights(doc["text"][s:e] for s, e in doc["spans"])
    [conf] = content_terms("confidential")
    terms = {t for s, e in doc["spans"] for t in content_terms(doc["text"][s:e])}
    assert w.idf(conf) <= min(w.idf(t) for t in terms) + 0.5


def test_a_contract_that_calls_its_parties_we_and_you_reads_those_words_as_their_names(corpus):
    """Goosehead's franchise agreement is written as "we" and "you": (“we,” “us,” or “our”) in its
    preamble, (“Franchisor” or “us”) in an exhibit, (“you” or the “Franchisee”). "Can the franchisor
    terminate the agreement?" is about "If we are entitled to terminate this Agreement …", which
    never says "franchisor"; a contract that defines no pronoun reads its words as they are."""
    from workbench.pdf import open_pdf
    from workbench.text.weights import party_aliases

    goose = [s.text for s in open_pdf(corpus / "pdfs/contract/CUAD_GOOSEHEAD-Franchise-Agreement.pdf").segments()]
    w = TermWeights(goose)
    [franchisor] = content_terms("Franchisor")
    [franchisee] = content_terms("Franchisee")
    assert franchisor in w.aliases["we"] and franchisee in w.aliases["you"]
    ours = "If we are entitled to terminate this Agreement in accordance with Sections 17.2 or 17.3 above"
    question = set(content_terms("Can the franchisor terminate the agreement?"))
    assert franchisor in w.terms_of(ours) and franchisor not in content_terms(ours)
    assert w.coverage(question, w.terms_of(ours)) == 1.0 > w.coverage(question, set(content_terms(ours)))
    assert franchisor not in w.terms_of("Shipments to the US are insured.")  # a country, not "us"
    assert party_aliases(['the "Agreement"', '(the "Effective Date")', 'Acme Corp. (the "Company")']) == {}
    nda = [s.text for s in open_pdf(next((corpus / "cuad" / "pdf").glob("ADIANUTRITION*"))).segments()]
    assert TermWeights(nda).aliases == {}
