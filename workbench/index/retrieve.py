"""Hybrid retrieval: MiniLM cosine and BM25, mixed by rank (weighted reciprocal rank fusion, the
vector share = settings.vector_weight). On ContractNLI the two rarely agree on the top span and
their rank mix beats either alone (notes/dependency-facts.md).

A question's cosines come from the library index (the FAISS index, or the pgvector table, that
llama-index serves as a vector store, searched directly and filtered to the question's documents); a claim's segment search
stays within one document's own vectors."""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from typing import Any

import numpy as np

from workbench.config import Settings
from workbench.index.embed import DIM, Embedder, get_embedder
from workbench.index.store import CHUNK_BM25_B, IndexStore, Units
from workbench.models import Chunk

# Reciprocal-rank-fusion constant: 60 is the literature's default; 20 lets the top few ranks
# weigh more and did slightly better on ContractNLI segment search (0.79 vs 0.78 recall@5).
RRF_K = 20.0
UNION_CACHE = 4  # BM25 tables over document sets kept per retriever (a whole library's is the big one)
KNOWN_UNITS = 8  # documents whose segment-unit vectors embed_texts reuses (the last searched)


def ranks(scores: np.ndarray) -> np.ndarray:
    """0 for the best score; ties share the better rank's order by position (stable)."""
    order = np.argsort(-scores, kind="stable")
    r = np.empty(len(scores), dtype=np.float64)
    r[order] = np.arange(len(scores))
    return r


def fuse(vector: np.ndarray, lexical: np.ndarray, vector_weight: float, k: float = RRF_K) -> np.ndarray:
    """Weighted reciprocal-rank fusion. Units with no query term at all get no lexical share."""
    fused = vector_weight / (k + 1 + ranks(vector))
    lex = (1 - vector_weight) / (k + 1 + ranks(lexical))
    return fused + np.where(lexical > 0, lex, 0.0)


def hybrid_scores(units: Units, query: str, qvec: np.ndarray, vector_weight: float, cos: np.ndarray | None = None) -> np.ndarray:
    """Fused scores per unit; `cos` when the cosines were computed elsewhere (the library index)."""
    if not units.texts:
        return np.zeros(0)
    if cos is None:
        assert units.vectors is not None, "chunk cosines come from the library index"
        cos = units.vectors @ qvec
    return fuse(cos, units.bm25.scores(query), vector_weight)


def _segment_like(seg: Any, **update: Any) -> Any:
    """A copy of a Segment with new bounds (pydantic model, dataclass or plain object)."""
    if hasattr(seg, "model_copy"):
        return seg.model_copy(update=update)
    if dataclasses.is_dataclass(seg):
        return dataclasses.replace(seg, **update)
    clone = type(seg).__new__(type(seg))
    clone.__dict__.update(seg.__dict__, **update)
    return clone


class Retriever:
    """Chunks for a question over several documents; segments for a claim in one document.
    Indexes are built on first use per document and reused (on disk and in this process)."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None):
        self.settings = settings
        self.embedder = embedder or get_embedder(settings)
        self.store = IndexStore(self.settings.data_dir / "index", self.settings.chunk_words, self.embedder,
                                vector_store=self.settings.vector_store, database_url=self.settings.database_url)
        # Segment units of the last documents searched, with their texts' positions: claim
        # checkers re-embed the spans search_segments returned, and those never need the model
        # again. Holding the Units keeps their id() from being reused.
        self._known: OrderedDict[int, tuple[Units, dict[str, int]]] = OrderedDict()
        self._unions: OrderedDict[tuple, Units] = OrderedDict()

    def index(self, doc) -> None:
        """Build (or load) the document's chunk and segment indexes now, e.g. at ingest time: the
        segments were embedded on the first question's segment search, inside Extract, where a
        154-page contract's first question sat on "Extract started" for over a minute."""
        self.store.get(doc).segment_units(doc)

    def chunks(self, doc) -> list[Chunk]:
        """All chunks of a document in reading order (scores 0)."""
        return list(self.store.get(doc).chunks)

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        """Unit vectors with the same model as the index (for verifiers and claim checks);
        texts of segment units already indexed reuse their stored vectors."""
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        missing = []
        for i, t in enumerate(texts):
            v = self._known_vector(t)
            if v is None:
                missing.append(i)
            else:
                out[i] = v
        if missing:
            out[missing] = self.embedder.embed([texts[i] for i in missing])
        return out

    def _known_vector(self, text: str) -> np.ndarray | None:
        for units, where in reversed(self._known.values()):
            j = where.get(text)
            if j is not None:
                return units.vectors[j]
        return None

    def _remember(self, units: Units) -> None:
        key = id(units)
        if key not in self._known:
            self._known[key] = (units, {t: j for j, t in enumerate(units.texts)})
            while len(self._known) > KNOWN_UNITS:
                self._known.popitem(last=False)
        self._known.move_to_end(key)

    def retrieve(self, question: str, docs: list, top_k: int | None = None) -> list[Chunk]:
        """The top_k chunks over all docs, best first, score = fused rank score. Cosines come
        from the library index, every chunk of the given documents ranked (the rank fusion needs
        the full ranking); BM25 runs over the union of their chunks."""
        top_k = top_k or self.settings.top_k
        if not docs or not question.strip():
            return []
        docs = list({d.document.id: d for d in reversed(docs)}.values())[::-1]  # first of each id
        indexes = [self.store.get(d) for d in docs]
        chunks = [c for di in indexes for c in di.chunks]
        if not chunks:
            return []
        units = indexes[0].chunk_units if len(indexes) == 1 else self._union(indexes)
        qvec, cos = self._cosines(question, indexes, len(chunks))
        scores = hybrid_scores(units, question, qvec, self.settings.vector_weight, cos)
        best = np.argsort(-scores, kind="stable")[:top_k]
        return [chunks[i].model_copy(update={"score": float(scores[i])}) for i in best]

    def _cosines(self, question: str, indexes: list, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The question's vector and its cosine with each chunk (in `indexes` order)."""
        qvec = np.asarray(self.store.embedder.embed([question])[0], dtype=np.float32)
        return qvec, self.library_cosines(qvec, indexes, n)

    def library_cosines(self, qvec: np.ndarray, indexes: list, n: int) -> np.ndarray:
        """The cosine of a query vector with each chunk of `indexes` (in that order; -inf where
        the library returned none), by one search of the library's FAISS index filtered to
        their documents (the vectors the llama-index vector store serves; read directly, so a
        question does not import llama-index)."""
        vectors = self.store.vectors
        ids = [di.document_id for di in indexes]
        whole = set(ids) == set(vectors.document_ids())
        docs, chunks, sims = vectors.search(qvec, n, None if whole else ids)
        offset, at = {}, 0
        for di in indexes:
            offset[di.document_id] = at
            at += len(di.chunks)
        cos = np.full(n, -np.inf, dtype=np.float32)
        if docs:
            where = np.fromiter((offset[d] for d in docs), np.int64, len(docs))
            cos[where + chunks] = sims
        return cos

    def _union(self, indexes: list) -> Units:
        """One BM25 over the union of the documents' chunks (IDF then means the same thing for
        every document), kept for the last few document sets asked about."""
        key = tuple((di.document_id, di.text_sha256) for di in indexes)
        units = self._unions.get(key)
        if units is None:
            texts = [t for di in indexes for t in di.chunk_units.texts]
            tokens = [t for di in indexes for t in (di.chunk_units.tokens or [])]
            units = Units([], texts, None, CHUNK_BM25_B,
                          tokens if len(tokens) == len(texts) else None)
            self._unions[key] = units
            while len(self._unions) > UNION_CACHE:
                self._unions.popitem(last=False)
        else:
            self._unions.move_to_end(key)
        return units

    def search_segments(self, query: str, doc, top_k: int = 5) -> list[tuple[Any, float]]:
        """The top_k segment units (a segment, or two adjacent ones joined) for a claim, best
        first, as Segments with offsets into doc.text; overlapping units are skipped."""
        if not query.strip():
            return []
        di = self.store.get(doc)
        units = di.segment_units(doc)
        if not units.texts:
            return []
        self._remember(units)
        qvec = self.embedder.embed([query])[0]
        scores = hybrid_scores(units, query, qvec, self.settings.vector_weight)
        segs = [s for s in doc.segments() if s.end > s.start and doc.text[s.start : s.end].strip()]
        taken: set[int] = set()
        out: list[tuple[Any, float]] = []
        for i in np.argsort(-scores, kind="stable"):
            p = units.pieces[i]
            if p.kind == "heading":  # a heading alone is context, never evidence
                continue
            covered = set(range(p.first, p.last + 1))
            if covered & taken:
                continue
            taken |= covered
            base = segs[p.first]
            if (p.start, p.end) == (base.start, base.end):
                seg = base
            else:
                seg = _segment_like(base, start=p.start, end=p.end, text=doc.text[p.start : p.end], kind="sentence")
            out.append((seg, float(scores[i])))
            if len(out) >= top_k:
                break
        return out
