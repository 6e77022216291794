"""Clause topics: which kind of clause a span is (a cap on liability, a governing-law clause,
an exclusive grant…) and which kinds a question asks about, both read from the MiniLM vectors the
judge already computes for cosine, so it costs two small matrix products per question.

Each head reads both the sentence vector and the sentence's own words (retrieval stems and
stem pairs: "automat_renew", "without_caus"), so it knows lawyers' phrasings MiniLM blurs.

Why: relevance read from shared words and overall similarity cannot tell "Chase's aggregate
liability … shall in no event exceed the total Commissions" (a cap, sharing one word with "Is
either party's liability capped?") from "liability insurance with limits of at least
$10,000,000" (sharing three). Trained heads that have seen hundreds of lawyer-labelled clauses of
each kind can (`train/fit_topics.py`: one logistic head per CUAD category over the sentence
vector and words, cuad-train's train split). A question finds its kinds by similarity to a bank of
questions and CUAD's category descriptions, and by the words it shares with each kind's bank and
name and with what the heads read ("term" is an expiration clause's word, "governing" a law
clause's, where MiniLM calls "What is the term of the agreement?" closest to "What is the
governing law of the agreement?"). One that is like none of them (a question about a regulation,
a paper, a recipe) gets no topic at all, and relevance falls back on words and cosine.

The file (topics.npz, ~2 MB) is committed; `make fit-topics` rebuilds it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from workbench.errors import ConfigError
from workbench.text.terms import content_terms, tokenize

TOPICS_FILE = Path(__file__).resolve().parent / "topics.npz"
# A question whose best bank match is below ASKED_FROM asks about no clause kind; from ASKED_FULL
# it asks fully; between, in proportion. TEMPERATURE spreads the ask over close kinds ("Can a
# party end the agreement early?" is both termination for convenience and post-termination).
ASKED_FROM = 0.45
ASKED_FULL = 0.65
TEMPERATURE = 0.03
# How much a question's words count beside its bank similarity: the heads' word weights summed over
# its terms where positive (HEAD_WORDS: a question is no clause, so a word clauses of a kind avoid
# says nothing against it), and the IDF-weighted share of its content words found in a kind's bank
# questions and name (BANK_WORDS). Chosen on the dev half of bench/data/question_kinds.tsv
# (everyday questions never in the bank); BENCHMARKS.md has the held-out half.
HEAD_WORDS = 0.03
BANK_WORDS = 0.5
# Questions about a contract that ask about no kind of clause the heads know (payment, breach,
# disputes, notices, boilerplate): a question closest to one of them asks about no kind, where it
# used to land on the nearest kind that shares a word ("breach" -> uncapped liability). Written
# from standard contract headings; they compete in the softmax as one more kind, words included.
OTHER_QUESTIONS: tuple[str, ...] = (
    'How and when must payments be made?',
    'What fees are charged under the agreement?',
    'Is interest charged on late payments?',
    'Who pays the taxes?',
    'Who must indemnify the other party?',
    'What information must be kept confidential?',
    'What happens in a force majeure event?',
    'How are disputes between the parties settled?',
    'Must disputes go to arbitration or mediation?',
    'Which courts have jurisdiction over disputes?',
    'How must notices be given to a party?',
    'What counts as a material breach, and how long is the cure period?',
    'What remedies does a party have for breach?',
    'Is the agreement the entire agreement between the parties?',
    'How can the agreement be amended?',
    'Does a waiver of one breach waive others?',
    'What happens if a provision is held invalid?',
    'Are the parties independent contractors?',
    'What representations does each party make?',
    'Must a party comply with applicable laws?',
    'How are the products delivered and who bears the risk of loss?',
    'How are goods inspected and accepted?',
    'What marketing and promotion must a party do?',
    'What support and training does a party provide?',
    'May a party publicize the relationship or issue press releases?',
    'How are the products priced and ordered?',
    'What reports must a party deliver?',
    'What are the service levels?',
    'What are the definitions used in the agreement?',
    'Who are the contacts or representatives for each party?',
    'How may the agreement be signed in counterparts?',
    'What records and data protection obligations apply?',
)


def terms_of(text: str) -> set[str]:
    """The words a head reads: retrieval stems and adjacent stem pairs, present or not."""
    stems = tokenize(text)
    return {*stems, *(f"{a}_{b}" for a, b in zip(stems, stems[1:], strict=False))}


@dataclass(frozen=True)
class KindReading:
    """The clause-topic model's reading of one (question, span): the kind the question asks about
    most (`asked`, with its share `asked_weight` of the ask, 0 when it asks about no kind), the
    probability the span is a clause of that kind (`p_asked`), and the kind the span most likely is
    (`kind`, `p_kind`). Probabilities at even odds (each head's classes weighed equally)."""

    asked: str
    asked_weight: float
    p_asked: float
    kind: str
    p_kind: float

    @property
    def is_asked(self) -> bool:
        """The question mostly asks about one kind, and the span is one (both at even odds)."""
        return self.asked_weight >= 0.5 and self.p_asked >= 0.5


@dataclass(frozen=True)
class Topics:
    categories: tuple[str, ...]
    W: np.ndarray  # (dim, kinds): one logistic head per kind of clause, its vector part
    b: np.ndarray  # (kinds,)
    term_index: dict[str, int]  # word -> row of T
    T: np.ndarray  # (terms, kinds): the heads' word part
    bank_vectors: np.ndarray  # (questions, dim) unit vectors
    bank_category: np.ndarray  # (questions,) the kind each bank question asks about
    bank_words: dict[str, frozenset[int]]  # content stem -> the kinds whose bank or name uses it (OTHER: none)
    bank: tuple[str, ...] = ()  # the bank questions' text
    other_vectors: np.ndarray | None = None  # (OTHER_QUESTIONS, dim) unit vectors

    def asked(self, question_vector: np.ndarray, question: str) -> np.ndarray:
        """How much the question asks about each kind: a softmax over the kinds' best bank
        similarities plus what its words say, scaled by how close the question comes to the
        bank at all (0 when not)."""
        sims = self.bank_vectors @ np.asarray(question_vector, np.float32)
        best = np.full(len(self.categories), -1.0, np.float32)
        np.maximum.at(best, self.bank_category, sims)
        words = self._bank_words(question)
        best += HEAD_WORDS * self._head_words(question) + BANK_WORDS * words[:-1]
        if self.other_vectors is not None and len(self.other_vectors):  # "none of the kinds" competes as one more
            other = float((self.other_vectors @ np.asarray(question_vector, np.float32)).max())
            best = np.append(best, other + BANK_WORDS * words[-1])
        top = float(best.max())
        gate = float(np.clip((top - ASKED_FROM) / (ASKED_FULL - ASKED_FROM), 0.0, 1.0))
        if gate == 0.0:
            return np.zeros(len(self.categories), np.float32)
        w = np.exp((best - top) / TEMPERATURE)
        return (gate * w / w.sum())[:len(self.categories)].astype(np.float32)

    def _rows(self, text: str) -> list[int]:
        return [self.term_index[t] for t in terms_of(text) if t in self.term_index]

    def _head_words(self, text: str) -> np.ndarray:
        rows = self._rows(text)
        return np.maximum(self.T[rows].sum(0), 0) if rows else np.zeros(len(self.categories), np.float32)

    def _bank_words(self, text: str) -> np.ndarray:
        """Per kind, then for OTHER_QUESTIONS (last), the IDF-weighted share of the text's content
        words its bank or name uses."""
        n = len(self.categories) + 1
        idf = {w: float(np.log(n / max(1, len(self.bank_words.get(w, ()))))) for w in set(content_terms(text))}
        out = np.zeros(n, np.float32)
        for w, weight in idf.items():
            for k in self.bank_words.get(w, ()):
                out[k] += weight  # OTHER (-1) is the last
        return out / (sum(idf.values()) or 1.0)

    def kinds(self, span_vectors: np.ndarray, span_texts: list[str]) -> np.ndarray:
        """P(the span is a clause of each kind), at even odds: (spans, kinds)."""
        z = np.asarray(span_vectors, np.float32) @ self.W + self.b
        for i, text in enumerate(span_texts):
            rows = self._rows(text)
            if rows:
                z[i] += self.T[rows].sum(0)
        return 1 / (1 + np.exp(-z))

    def score(self, question_vector: np.ndarray, question: str, span_vectors: np.ndarray,
              span_texts: list[str]) -> np.ndarray:
        """Per span: the probability it is the kind of clause the question asks about (0 for a
        question about no kind)."""
        ask = self.asked(question_vector, question)
        if not ask.any() or not len(span_vectors):
            return np.zeros(len(span_vectors), np.float64)
        return (self.kinds(span_vectors, span_texts) @ ask).astype(np.float64)

    def reading(self, question_vector: np.ndarray, question: str, span_vector: np.ndarray, span: str) -> KindReading:
        """What the question mostly asks about and what the span mostly is, as kinds of clause."""
        ask = self.asked(question_vector, question)
        p = self.kinds(np.asarray(span_vector, np.float32)[None, :], [span])[0]
        k, j = int(np.argmax(ask)), int(np.argmax(p))
        return KindReading(asked=self.categories[k], asked_weight=float(ask[k]), p_asked=float(p[k]),
                           kind=self.categories[j], p_kind=float(p[j]))

    def top_kinds(self, question_vector: np.ndarray, question: str, n: int = 3) -> list[tuple[str, float]]:
        """The kinds a question asks about most, for rationales and diagnostics."""
        ask = self.asked(question_vector, question)
        return [(self.categories[i], float(ask[i])) for i in np.argsort(-ask)[:n] if ask[i] > 0.01]


OTHER = -1  # OTHER_QUESTIONS' index in bank_words


def bank_lexicon(categories: list[str], bank: list[str], bank_category: list[int]) -> dict[str, frozenset[int]]:
    """Each content stem of the bank's questions, the kinds' names and OTHER_QUESTIONS -> the kinds
    (OTHER for OTHER_QUESTIONS) that use it."""
    out: dict[str, set[int]] = {}
    for k, text in [*zip(bank_category, bank, strict=True),
                    *((k, re.sub(r"[/-]", " ", c)) for k, c in enumerate(categories)),
                    *((OTHER, q) for q in OTHER_QUESTIONS)]:
        for w in content_terms(text):
            out.setdefault(w, set()).add(int(k))
    return {w: frozenset(ks) for w, ks in out.items()}


@lru_cache(maxsize=1)
def load_topics(path: Path = TOPICS_FILE) -> Topics:
    if not path.is_file():
        raise ConfigError(f"The clause-topic model {path} is missing: restore it from the repository "
                          "or rebuild it with `make fit-topics`.")
    from workbench.index.embed import embed_texts

    z = np.load(path, allow_pickle=False)
    categories = [str(c) for c in z["categories"]]
    bank = [str(q) for q in z["bank"]]
    return Topics(categories=tuple(str(c) for c in z["categories"]), W=z["W"].astype(np.float32),
                  b=z["b"].astype(np.float32), term_index={str(t): i for i, t in enumerate(z["terms"])},
                  T=z["T"].astype(np.float32), bank_vectors=z["bank_vectors"].astype(np.float32),
                  bank_category=z["bank_category"].astype(np.int64), bank=tuple(bank),
                  bank_words=bank_lexicon(categories, bank, z["bank_category"].tolist()),
                  other_vectors=np.asarray(embed_texts(list(OTHER_QUESTIONS)), np.float32) if OTHER_QUESTIONS else None)
