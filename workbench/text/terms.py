"""Words and stems: one tokeniser (NFKC, lowercased) and one stemmer (Porter) for retrieval,
term overlap and claim checking. Stems are internal: never show them to a reader."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*")

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not of off on once only or other our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then there these they
    this those through to too under until up very was we were what when where which while who whom
    why will with would you your yours yourself yourselves s t""".split()  # noqa: SIM905
) - {"no", "nor", "not", "should", "can", "could", "will", "would", "only", "all", "any"}
# Negations and modals carry meaning for requirements and claims: kept by tokenize().

# Words that carry no topic at all (modals, negations, quantifiers and 'party' included): for
# measuring how much of a question or claim a passage covers.
FUNCTION_WORDS = STOPWORDS | frozenset(
    """no nor not should can could will would only all any shall may might must also per via upon
    another either party parties every none never""".split()  # noqa: SIM905
)


@lru_cache(maxsize=1)
def _stemmer():
    from workbench.text.porter import PorterStemmer

    return PorterStemmer()


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Porter stem of a lowercased word, with -ure nouns folded onto their verb ('disclosed',
    'disclosure' -> 'disclos'; 'failure' -> 'fail'), which Porter leaves apart."""
    s = _stemmer().stem(word)
    return s[:-2] if s.endswith("ur") and len(s) >= 6 else s


FAMILY_MIN = 6  # the shorter stem of a family: shorter ones ("term", "part") begin too many words
FAMILY_GAP = 3  # letters the longer stem may add: a suffix, not another word


def same_family(a: str, b: str) -> bool:
    """Whether two stems are one word family that Porter leaves apart: the longer one is the
    shorter (at least FAMILY_MIN letters) with a suffix of at most FAMILY_GAP letters: "warrant"
    (warrants) and "warranti" (warranties), "licens" and "licensor", "contract" and "contractor".
    A question's "warranties" is then found in "represents and warrants"."""
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= FAMILY_MIN and len(long_) - len(short) <= FAMILY_GAP and long_.startswith(short)


def norm(text: str) -> str:
    """NFKC (PDF ligatures like 'ﬁ', full-width forms), casefolded, one space between words."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def words(text: str) -> list[str]:
    """Lowercased words of a text, after NFKC."""
    return [t.lower() for t in _WORD.findall(unicodedata.normalize("NFKC", text))]


def tokenize(text: str) -> list[str]:
    """Stemmed words for retrieval, stop words out; negations and modals kept."""
    return [stem(w.replace("'", "")) for w in _TOKEN.findall(norm(text)) if w not in STOPWORDS]


def surface_forms(text: str) -> dict[str, str]:
    """Each content stem of a text -> the word it was written as first (for reasons readers see)."""
    out: dict[str, str] = {}
    for w in _TOKEN.findall(norm(text)):
        if w not in FUNCTION_WORDS and len(w) > 1:
            out.setdefault(stem(w.replace("'", "")), w)
    return out


def content_terms(text: str) -> list[str]:
    """Stemmed topic words (function words, modals, negations and 1-letter tokens out), in order."""
    return [stem(w.replace("'", "")) for w in _TOKEN.findall(norm(text)) if w not in FUNCTION_WORDS and len(w) > 1]


def embed_form(text: str) -> str:
    """The form of a text to embed: NFKC (MiniLM's vocabulary has no 'ﬁ'/'ﬀ' ligatures, which
    PDFs are full of), one space between words."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


_JOINERS = "-'\u2019\u2010\u2011"  # hyphens and apostrophes join letters into one word: "non-compliant", "don't"


def _inside_word(text: str, i: int) -> bool:
    """True when offset i falls between two characters of one word."""
    if not 0 < i < len(text):
        return False
    before, after = text[i - 1], text[i]
    if before.isalnum() and after.isalnum():
        return True
    if after in _JOINERS:
        return before.isalnum() and i + 1 < len(text) and text[i + 1].isalnum()
    if before in _JOINERS:
        return after.isalnum() and i >= 2 and text[i - 2].isalnum()
    return False


def word_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The smallest range of whole words holding text[start:end]: (start, end) itself when it
    neither starts nor ends inside a word. 'authorized' cut from 'unauthorized' widens to
    'unauthorized', 'compliant' from 'non-compliant' to 'non-compliant'."""
    while _inside_word(text, start):
        start -= 1
    while _inside_word(text, end):
        end += 1
    return start, end
