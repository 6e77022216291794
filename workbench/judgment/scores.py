"""The judge's scores, the same for every backend: calibrated probabilities that a span answers a
question (relevance) or states a claim (support), weighing each span's words by their IDF in its
own document (workbench.text.weights), with MiniLM similarity and the clause-topic model; a
bounded cache so a run's second reading of the same spans is free (`SCORES`)."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

import numpy as np

from workbench.config import JudgmentSettings
from workbench.text import content_terms
from workbench.text.terms import FUNCTION_WORDS, embed_form, same_family, stem
from workbench.text.weights import TermWeights, weights_for

if TYPE_CHECKING:
    from workbench.judgment.topics import KindReading

# The defaults of Settings.judgment (described there), for readers handed no settings; the
# backends pass their own Settings.judgment.
_JUDGMENT = JudgmentSettings()
RELEVANT = _JUDGMENT.relevant
SUPPORTED = _JUDGMENT.supported

class Judge(Protocol):
    """Calibrated scorer of a text against candidate spans (one probability per span).
    `weights`, when given, holds each span's document term weights (or None) for judges that
    weigh words (workbench.text.weights); others ignore it."""

    def relevance(self, question: str, spans: list[str], weights: Sequence[TermWeights | None] | None = None
                  ) -> np.ndarray: ...

    def support(self, claim: str, spans: list[str], weights: Sequence[TermWeights | None] | None = None
                ) -> np.ndarray: ...


@lru_cache(maxsize=1)
def get_judge() -> Judge:
    """The judge ask and verify share: support and contradiction from the trained support model
    (workbench.judgment.ModelJudge: a cross-encoder reading meaning, held out better than word
    overlap, BENCHMARKS.md "Support model"), relevance from the lexical judge (IDF-weighted
    coverage, MiniLM cosine and clause topics)."""
    from workbench.judgment.model import ModelJudge

    return ModelJudge(LexicalJudge())


class LexicalJudge:
    """The judge without a neural cross-encoder: how much of the question's or claim's meaning the
    span carries, read two or three ways, combined by a logistic model per task.

    - coverage: the share of the text's content words the span uses, each weighted by its IDF in
      the span's own document (words the document uses everywhere count for little);
    - cosine: MiniLM similarity of the two, rescaled;
    - soft coverage (support only): coverage where each word counts by its best contextual match
      in the span, so a claim in other words than the clause's is still read (`soft_coverage`).

    Support's weights (LEXICAL_FIT) were fitted on cuad-train and ContractNLI-train claims by
    `train/fit_lexical.py`, so a support score reads as a probability on contracts like those;
    relevance's are set by hand (why: LEXICAL_FIT)."""

    def __init__(self, embed=None, max_vectors: int = 8_000, fit: dict[str, tuple[float, ...]] | None = None,
                 word_vectors=None, max_word_texts: int = 2_000, topics=None):
        self._embed = embed
        self._topics = topics
        self._word_vectors = word_vectors
        self.max_vectors = max_vectors
        self.max_word_texts = max_word_texts
        self.fit = fit or LEXICAL_FIT
        # each unit's word vectors (float16), for soft coverage: ~27 KB for a 35-word unit, ≤ ~60 MB when full
        self._words: OrderedDict[str, tuple[list[str], np.ndarray]] = OrderedDict()
        # vectors by embedded text: the units of a document recur from claim to claim and question
        # to question, and embedding them again was 90 % of a warm `verify` (LRU, ~12 MB when full)
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()  # runs in background jobs share the judge

    def _vecs(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return self._vecs_locked(texts)

    def _vecs_locked(self, texts: list[str]) -> np.ndarray:
        if self._embed is None:
            from workbench.index.embed import embed_texts

            self._embed = embed_texts
        todo = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if todo:
            for t, v in zip(todo, np.asarray(self._embed(todo), dtype=np.float32), strict=True):
                self._vectors[t] = v
        for t in texts:
            self._vectors.move_to_end(t)
        out = np.stack([self._vectors[t] for t in texts])
        while len(self._vectors) > self.max_vectors:
            self._vectors.popitem(last=False)
        return out

    def prime(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Take vectors the index already computed with the same embedding model for these texts
        (their embed_form): a new process then embeds only the question and the few units that
        are not a segment of the index (warm `ask` from the CLI embedded ~60 units, 0.3-0.5 s).
        Ignored by a judge with its own embedding function."""
        from workbench.index.embed import embed_texts

        if self._embed not in (None, embed_texts):
            return
        with self._lock:
            for t, v in zip(texts, vectors, strict=True):
                if t not in self._vectors:
                    self._vectors[t] = np.asarray(v, dtype=np.float32)
            while len(self._vectors) > self.max_vectors:
                self._vectors.popitem(last=False)

    def _cos(self, text: str, spans: list[str]) -> np.ndarray:
        v = self._vecs([embed_form(text)] + [embed_form(s) for s in spans])
        return np.asarray(v[1:] @ v[0], dtype=np.float64)

    def topic(self, question: str, spans: list[str]) -> tuple[np.ndarray, float]:
        """Per span, the probability it is the kind of clause the question asks about, and how
        much the question asks about a kind of clause at all (workbench.judgment.topics; both 0
        for a question like none in its bank: a regulation's, a paper's)."""
        topics = self._topic_model()
        v = self._vecs([embed_form(question)] + [embed_form(s) for s in spans])
        return topics.score(v[0], question, v[1:], spans), float(topics.asked(v[0], question).sum())

    def _topic_model(self):
        if self._topics is None:
            from workbench.judgment.topics import load_topics

            self._topics = load_topics()
        return self._topics

    def _word_vecs(self, texts: list[str]) -> list[tuple[list[str], np.ndarray]]:
        with self._lock:
            if self._word_vectors is None:
                from workbench.index.embed import get_embedder

                self._word_vectors = get_embedder().word_vectors
            todo = list(dict.fromkeys(t for t in texts if t not in self._words))
            if todo:
                for t, wv in zip(todo, self._word_vectors(todo), strict=True):
                    self._words[t] = wv
            out = [self._words[t] for t in texts]
            for t in texts:
                self._words.move_to_end(t)
            while len(self._words) > max(self.max_word_texts, len(texts)):
                self._words.popitem(last=False)
            return out

    def soft_coverage(self, text: str, spans: list[str], weights: Sequence[TermWeights | None] | None = None
                      ) -> np.ndarray:
        """How much of the text's meaning each span says, word by word: each content word of the
        text counts as much as its best match among the span's words in MiniLM's contextual space
        (1 for the same stem), weighted by its IDF in the span's document (BERTScore's recall with
        IDF). "interpreted" finds "construed", "liable" finds "liability", where coverage counts
        only the same stem."""
        out = np.zeros(len(spans), np.float64)
        for k, (_stems, idf, sim) in enumerate(self.word_matches(text, spans, weights)):
            if len(sim):
                out[k] = float((idf * sim).sum() / idf.sum())
        return out

    def word_matches(self, text: str, spans: list[str], weights: Sequence[TermWeights | None] | None = None
                     ) -> list[tuple[list[str], np.ndarray, np.ndarray]]:
        """Per span: the text's content stems (a party's name left out), each one's IDF in the
        span's document (all 1 where unknown or all 0) and its best match in the span in [0, 1]."""
        if not spans:
            return []
        (tw, tv), *span_words = self._word_vecs([embed_form(text)] + [embed_form(s) for s in spans])
        names = set(content_terms(text)) - set(content_terms(without_party_names(text)))  # "receiv"
        stems = [_content_stem(w) for w in tw]
        keep = [i for i, st in enumerate(stems) if st is not None and st not in names]
        kept = [stems[i] for i in keep]
        empty = (kept, np.zeros(0), np.zeros(0))
        if not keep:
            return [empty] * len(spans)
        q = tv[keep].astype(np.float32)
        ws = list(weights) if weights is not None else [None] * len(spans)
        out = []
        for (words, v), w in zip(span_words, ws, strict=True):
            if not len(v):
                out.append(empty)
                continue
            idf = np.array([max(0.0, w.idf(st)) if w is not None else 1.0 for st in kept])
            if idf.sum() <= 0:
                idf = np.ones(len(keep))
            have = {st for st in map(_content_stem, words) if st is not None}
            sim = np.maximum((q @ v.astype(np.float32).T).max(axis=1), [1.0 if st in have else 0.0 for st in kept])
            out.append((kept, idf, np.clip(sim, 0, 1).astype(np.float64)))
        return out

    def features(self, text: str, spans: list[str], weights: Sequence[TermWeights | None] | None = None,
                 names: Sequence[str] = ("coverage", "cosine")) -> np.ndarray:
        """The named features (of FEATURES) per span, in that order: what the fitted model reads."""
        if not spans:
            return np.zeros((0, len(names)), np.float64)
        ws = list(weights) if weights is not None else [None] * len(spans)
        # clause kinds are contract kinds: a policy's "audit records" is no audit-rights clause
        contract = np.array([w is not None and w.source_type == "contract" for w in ws])
        topic: tuple[np.ndarray, float] | None = None
        cols = []
        for name in names:
            if name == "coverage":
                q = set(content_terms(without_party_names(text)))
                cols.append([coverage(q, w.terms_of(s) if w is not None else set(content_terms(s)), w)
                             for s, w in zip(spans, ws, strict=True)])
            elif name == "cosine":
                cols.append(np.clip((self._cos(text, spans) - 0.2) / 0.6, 0, 1))
            elif name == "soft":
                cols.append(self.soft_coverage(text, spans, ws))
            elif name in ("topic", "asked"):
                if topic is None:
                    topic = self.topic(text, spans) if contract.any() else (np.zeros(len(spans)), 0.0)
                cols.append(np.where(contract, topic[0] if name == "topic" else topic[1], 0.0))
            else:
                raise ValueError(f"unknown feature {name!r}")
        return np.column_stack(cols).astype(np.float64)

    def _score(self, task: str, text: str, spans: list[str], weights) -> np.ndarray:
        if not spans:
            return np.zeros(0, np.float32)
        *w, bias = self.fit[task]
        f = self.features(text, spans, weights, FEATURES[task])
        return (1 / (1 + np.exp(-(f @ np.asarray(w) + bias)))).astype(np.float32)

    def relevance(self, question: str, spans: list[str], weights: Sequence[TermWeights | None] | None = None
                  ) -> np.ndarray:
        """P(each span answers the question). A question asking several things (text.question_parts)
        is answered by a span answering any of its parts: "… and where must disputes be resolved?"
        is answered by the forum clause, which covers few of the whole question's words."""
        from workbench.text.question_parts import question_parts

        parts = question_parts(question)
        score = self._score("relevance", question, spans, weights)
        for part in parts if len(parts) > 1 else ():
            score = np.maximum(score, self._score("relevance", part, spans, weights))
        return score

    def kind_reading(self, question: str, span: str, weights: TermWeights | None = None) -> KindReading | None:
        """The clause-topic model's reading of (question, span) — topics.KindReading — for a span of
        a contract; None otherwise (a policy's "audit records" is no audit-rights clause)."""
        if "topic" not in FEATURES["relevance"] or weights is None or weights.source_type != "contract":
            return None
        v = self._vecs([embed_form(question), embed_form(span)])
        return self._topic_model().reading(v[0], question, v[1], span)

    def support(self, claim: str, spans: list[str], weights: Sequence[TermWeights | None] | None = None
                ) -> np.ndarray:
        return self._score("support", claim, spans, weights)

    def ranking(self, claim: str, spans: list[str], weights: Sequence[TermWeights | None] | None = None
                ) -> np.ndarray:
        """The lexical support, whatever judge reads support: how evidence spans are ordered after the
        deciding one (it ranks ContractNLI's gold evidence higher than the support model does)."""
        return self._score("support", claim, spans, weights)


# Weights per task in FEATURES' order, then the bias. Support: fitted by `make fit-lexical` on
# cuad-train and ContractNLI-train claims (at their own 29 % rate of support: -3.556), the bias then
# moved half way to equal classes (+0.45, half of ln(71/29)): at the data's rate the engine
# supported 11 % of entailed ContractNLI claims; with classes equal, a draft sentence sharing half
# its words with an unrelated one ("The consultant must wear a helmet at every tournament"). Soft
# coverage carries the fit (held-out contracts' AUC 0.725 -> 0.750); coverage and cosine, which it
# contains, keep small negative weights.
# Relevance: coverage and cosine set by hand (3, 3, bias -2.6): fitted on CUAD's category questions
# they lean on cosine and verify neighbouring clauses ("Accounts are reviewed every quarter" for "How
# often must audit records be reviewed?"; BENCHMARKS.md, "Judgment model"). Topic (the unit is the kind
# of clause the question asks about) and asked (the question asks about a kind at all; both 0 for a
# question like none of the bank's, so regulations and papers score as before): chosen by
# `train/doc_decision.py grid` on cuad-train's calib contracts asked in two wordings the bank does
# not hold (build_pairs' first paraphrase, and the third where a category has one, taken out of the
# bank), the most gold clauses found among the (3, 3, -2.6)-keeping grid points with
# NO_AUTHORITATIVE_EVIDENCE for >= 78 % of absent categories there, pooled (the goal, 70 %, plus a
# margin for wordier questions); docs/benchmarks-log.md "Judgment: clause topics that read the clause's words".
FEATURES: dict[str, tuple[str, ...]] = {
    "relevance": ("coverage", "cosine", "topic", "asked"),
    "support": ("coverage", "cosine", "soft"),
}
LEXICAL_FIT: dict[str, tuple[float, ...]] = {
    "relevance": (3.0, 3.0, 6.5, -1.25, -2.6),
    "support": (-0.267, -0.428, 5.047, -3.106),
}


_KIND_WORDS = {"ip": "IP", "rofr/rofo/rofn": "right of first refusal, offer or negotiation"}


def with_article(kind: str) -> str:
    """A kind of clause as a rationale says it, with its article: "an expiration date", "a cap on liability"."""
    return ("an " if kind[:1] in "aeiou" else "a ") + kind


def readable_kind(category: str) -> str:
    """A CUAD category as a reviewer reads it: "Cap On Liability" -> "cap on liability"."""
    low = category.lower()
    return _KIND_WORDS.get(low) or " ".join(_KIND_WORDS.get(w, w) for w in low.split())


_WORD_TOKEN = re.compile(r"[a-z0-9']+")


# A party's defined name ("Receiving Party", "Disclosing Party") says who, not what: its first word
# is no topic, and "Receiving" must not find "information received from the other party". A
# third party is no party to the agreement: "share with third parties" is the topic.
_PARTY_NAME = re.compile(r"\b([A-Z][a-z]+)\s+Part(?:y|ies)\b")


def without_party_names(text: str) -> str:
    """`text` with each party's name cut to "Party" ("Receiving Party" -> "Party")."""
    return _PARTY_NAME.sub(lambda m: m.group(0) if m.group(1) == "Third" else "Party", text)


def _content_stem(word: str) -> str | None:
    """The stem of a content word as the tokenizer split it; None for punctuation and function words."""
    w = word.replace("'", "")
    if not _WORD_TOKEN.fullmatch(word) or w in FUNCTION_WORDS or len(w) < 2:
        return None
    return stem(w)


def coverage(terms: set[str], span_terms: set[str], weights: TermWeights | None = None) -> float:
    """The share of `terms` the span contains, a term counting where the span has a word of its
    family (text.terms.same_family: "warranti" in "... represents and warrants"): IDF-weighted in
    the span's document when its weights are known, else every word alike."""
    missing = terms - span_terms
    if missing:
        span_terms = span_terms | {t for t in missing if any(same_family(t, s) for s in span_terms)}
    if weights is not None:
        return weights.coverage(terms, span_terms)
    return len(terms & span_terms) / len(terms) if terms else 0.0


class ScoreCache:
    """Scores by (task, text, span, document, its source type), so Verify reuses what Extract
    computed and a document whose source type the user changed is scored anew. Bounded (LRU).
    `docs`: each span's document id (its term weights weigh the words); None for free text."""

    def __init__(self, judge: Judge | None = None, max_items: int = 20_000):
        self.judge = judge
        self.max_items = max_items
        self._d: OrderedDict[tuple[str, str, str, str, str], float] = OrderedDict()

    def __call__(self, task: str, text: str, spans: Sequence[str], docs: Sequence[str | None] | None = None
                 ) -> np.ndarray:
        judge = self.judge or get_judge()
        ids = list(docs) if docs is not None else [None] * len(spans)
        ws = {d: weights_for(d) for d in set(ids)}
        # a document whose weights are not known yet scores as free text, and is cached as such
        keys = [(task, text, s, d if ws[d] is not None else "", (ws[d].source_type or "") if ws[d] is not None else "")
                for s, d in zip(spans, ids, strict=True)]
        todo = list(dict.fromkeys(k for k in keys if k not in self._d))
        if todo:
            fn = getattr(judge, task, None)
            if fn is None:  # a judge that does not read this task (contradiction, for the lexical judge)
                return np.zeros(len(keys), dtype=np.float64)
            got = fn(text, [k[2] for k in todo], [ws.get(k[3] or None) for k in todo])
            for k, p in zip(todo, np.asarray(got, dtype=np.float64), strict=True):
                self._d[k] = float(p)
            while len(self._d) > self.max_items:
                self._d.popitem(last=False)
        for k in keys:
            self._d.move_to_end(k)
        return np.array([self._d[k] for k in keys], dtype=np.float64)


SCORES = ScoreCache()


def closeness(text: str, spans: Sequence[str], docs: Sequence[str | None] | None = None) -> np.ndarray:
    """How close in meaning each span is to the text, in [0, 1] (the judge's rescaled MiniLM cosine);
    zeros for a judge that reads no vectors."""
    judge = SCORES.judge or get_judge()
    features = getattr(judge, "features", None)
    if features is None or not spans:
        return np.zeros(len(spans), np.float64)
    ws = [weights_for(d) for d in docs] if docs is not None else None
    return np.asarray(features(text, list(spans), ws, ("cosine",))[:, 0], np.float64)
