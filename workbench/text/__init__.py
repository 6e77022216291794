"""The text toolkit, each idea once: words and stems (terms), sentence and clause splitting
(sentences), evidence-ID and citation patterns (citations), speculative wording (speculative),
BM25 (bm25). Every layer that reads text (pdf, index, backends, pipeline, export, ui) uses
these, so a fix lands everywhere."""

from workbench.text.bm25 import BM25, bm25_term
from workbench.text.citations import (
    CITATION_RE,
    ID_PATTERN,
    ID_RE,
    cited_ids,
    mentioned_ids,
    remove_ids,
    strip_citations,
)
from workbench.text.sentences import clause_bounds, sentence_spans, split_sentences
from workbench.text.speculative import SPECULATIVE_TERMS, speculative_terms
from workbench.text.terms import STOPWORDS, content_terms, norm, stem, tokenize, words

__all__ = [
    "BM25", "CITATION_RE", "ID_PATTERN", "ID_RE", "SPECULATIVE_TERMS", "STOPWORDS", "bm25_term", "cited_ids",
    "clause_bounds", "content_terms", "mentioned_ids", "norm", "remove_ids", "sentence_spans", "speculative_terms", "split_sentences", "stem",
    "strip_citations", "tokenize", "words",
]
