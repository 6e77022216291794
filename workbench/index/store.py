"""Per-document indexes persisted under data_dir/index/<sha256>/, built once per document.

- chunks: a llama-index VectorStoreIndex over FaissVectorStore(IndexFlatIP(384)); nodes carry
  the chunk's offsets, page and heading as metadata (persisted in `llama/`).
- segments: the document's segments (and windows of adjacent ones) for claim checking: unit
  vectors in `segments.npy` (exhaustive inner product, as IndexFlatIP would do), built on first
  use only (most questions never need it).
- lexical: BM25 tokens are persisted next to the vectors; the BM25 table is rebuilt in memory.

Queries read `vectors.npy` (the FAISS index's rows in chunk order), so a warm question in a
fresh process pays neither for llama-index (2+ s to import) nor faiss. `meta.json` records the text hash and
settings the index was built for; a mismatch (new parser, other chunk size) rebuilds it."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from workbench.backends.base import Chunk
from workbench.index.chunking import Piece, chunk_pieces, segment_pieces, to_chunks
from workbench.index.embed import DIM, MODEL_ID, Embedder, get_embedder
from workbench.index.lexical import BM25, tokenize
from workbench.models import sha256_text

FORMAT_VERSION = 2  # bump when the files or the BM25 tokenizer change
SEGMENT_WINDOW = 2  # segments plus runs of 2 adjacent segments
# Segment units range from one clause to two sentences; full length normalisation (b=0.75) made
# BM25 shun the two-sentence windows. On ContractNLI dev (31 NDAs) b=0.3 lifted the hybrid's own
# recall@5 from 0.81 to 0.83 (bench/bench_embed.py --recall).
SEGMENT_BM25_B = 0.3
CHUNK_BM25_B = 0.75  # chunks are of similar length: the usual value
CHUNK_TEXT_PREFIX_HEADING = True  # the heading is embedded with the chunk text (not stored in it)


def _heading_prefixed(text: str, heading: str | None) -> str:
    if CHUNK_TEXT_PREFIX_HEADING and heading and heading.strip() and not text.lstrip().startswith(heading.strip()):
        return f"{heading.strip()}\n{text}"
    return text


@dataclass
class Units:
    """One searchable list (chunks or segment units): texts, spans, unit vectors, BM25."""

    pieces: list[Piece]
    texts: list[str]
    vectors: np.ndarray  # (n, 384) float32, unit rows
    bm25_b: float = SEGMENT_BM25_B  # BM25 length normalisation; chunks pass CHUNK_BM25_B
    tokens: list[list[str]] | None = field(default=None, repr=False)  # BM25 tokens, when persisted
    _bm25: BM25 | None = field(default=None, repr=False)

    @property
    def bm25(self) -> BM25:
        if self._bm25 is None:
            self._bm25 = BM25(self.texts, b=self.bm25_b, tokens=self.tokens)
        return self._bm25


class DocumentIndex:
    """The persisted indexes of one document (chunks now, segments on first use)."""

    def __init__(self, root: Path, doc, chunk_words: int, embedder: Embedder):
        self.root = root
        self.doc = doc
        self.document_id: str = doc.document.id
        self.chunk_words = chunk_words
        self.embedder = embedder
        self.text_sha256 = sha256_text(doc.text)
        self._chunks: list[Chunk] | None = None
        self._chunk_units: Units | None = None
        self._segment_units: Units | None = None
        self._lock = threading.Lock()

    @property
    def dir(self) -> Path:
        return self.root / self.document_id

    # --- chunks ----------------------------------------------------------------------------
    def _meta_ok(self) -> bool:
        try:
            meta = json.loads((self.dir / "meta.json").read_text())
        except (OSError, ValueError):
            return False
        return (
            meta.get("format") == FORMAT_VERSION
            and meta.get("model") == MODEL_ID
            and meta.get("text_sha256") == self.text_sha256
            and meta.get("chunk_words") == self.chunk_words
        )

    def ensure_built(self) -> None:
        with self._lock:
            if self._chunk_units is not None:
                return
            if not self._meta_ok():
                self._build_chunks()
            self._load_chunks()

    def _build_chunks(self) -> None:
        """Chunk, embed through llama-index into FAISS, persist atomically (temp dir + rename)."""
        from workbench.index.llama import configure, minilm_embedding

        configure()
        embed_model = minilm_embedding(self.embedder)
        import faiss
        from llama_index.core import StorageContext, VectorStoreIndex
        from llama_index.core.schema import TextNode
        from llama_index.vector_stores.faiss import FaissVectorStore

        pieces = chunk_pieces(self.doc, self.chunk_words)
        chunks = to_chunks(self.doc, pieces)
        keys = ["document_id", "start", "end", "page", "section_heading", "chunk_id"]
        nodes = []
        for c in chunks:
            node = TextNode(
                id_=c.chunk_id,
                text=_heading_prefixed(c.text, c.section_heading),
                metadata={k: getattr(c, k) for k in keys},
                excluded_embed_metadata_keys=keys,
                excluded_llm_metadata_keys=keys,
            )
            nodes.append(node)
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{self.document_id[:8]}-", dir=self.root))
        try:
            store = FaissVectorStore(faiss_index=faiss.IndexFlatIP(DIM))
            ctx = StorageContext.from_defaults(vector_store=store)
            index = VectorStoreIndex(nodes, storage_context=ctx, embed_model=embed_model, show_progress=False)
            index.storage_context.persist(persist_dir=str(tmp / "llama"))
            # FAISS row i holds node nodes_dict[str(i)]: keep that order next to the chunks.
            order = [index.index_struct.nodes_dict[str(i)] for i in range(len(nodes))]
            (tmp / "chunks.json").write_text(json.dumps([c.model_dump() for c in chunks]))
            (tmp / "faiss_order.json").write_text(json.dumps(order))
            # The same vectors in chunk order and the BM25 tokens, so a warm query needs
            # neither faiss nor the stemmer's corpus pass (both cost seconds on a busy machine).
            fx = store.client
            rows = fx.reconstruct_n(0, fx.ntotal) if fx.ntotal else np.zeros((0, DIM), np.float32)
            pos = {cid: i for i, cid in enumerate(order)}
            np.save(tmp / "vectors.npy", np.asarray([rows[pos[c.chunk_id]] for c in chunks], np.float32).reshape(-1, DIM))
            texts = [_heading_prefixed(c.text, c.section_heading) for c in chunks]
            (tmp / "tokens.json").write_text(json.dumps([tokenize(t) for t in texts]))
            meta = {
                "format": FORMAT_VERSION,
                "model": MODEL_ID,
                "document_id": self.document_id,
                "text_sha256": self.text_sha256,
                "chunk_words": self.chunk_words,
                "chunks": len(chunks),
            }
            (tmp / "meta.json").write_text(json.dumps(meta, indent=1))
            self._replace_dir(tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        self._segment_units = None

    def _replace_dir(self, tmp: Path) -> None:
        old = None
        if self.dir.exists():
            old = self.root / f".old-{self.document_id[:8]}-{os.getpid()}-{threading.get_ident()}"
            os.replace(self.dir, old)
        try:
            os.replace(tmp, self.dir)
        except OSError:
            if not self.dir.exists():  # not a concurrent builder: a real failure
                raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

    def _load_chunks(self) -> None:
        chunks = [Chunk(**c) for c in json.loads((self.dir / "chunks.json").read_text())]
        vectors = np.load(self.dir / "vectors.npy")
        tokens = json.loads((self.dir / "tokens.json").read_text())
        pieces = [Piece(c.start, c.end, c.page, c.section_heading, i, i, "chunk") for i, c in enumerate(chunks)]
        texts = [_heading_prefixed(c.text, c.section_heading) for c in chunks]
        self._chunks = chunks
        self._chunk_units = Units(pieces, texts, np.ascontiguousarray(vectors, dtype=np.float32), CHUNK_BM25_B, tokens)

    @property
    def chunks(self) -> list[Chunk]:
        self.ensure_built()
        assert self._chunks is not None
        return self._chunks

    @property
    def chunk_units(self) -> Units:
        self.ensure_built()
        assert self._chunk_units is not None
        return self._chunk_units

    def vector_index(self):
        """The persisted llama-index VectorStoreIndex (loads llama-index; for callers who want its API)."""
        self.ensure_built()
        from workbench.index.llama import configure

        embed_model = configure()
        from llama_index.core import StorageContext, load_index_from_storage
        from llama_index.vector_stores.faiss import FaissVectorStore

        persist = str(self.dir / "llama")
        store = FaissVectorStore.from_persist_dir(persist)
        ctx = StorageContext.from_defaults(vector_store=store, persist_dir=persist)
        return load_index_from_storage(ctx, embed_model=embed_model)

    # --- segments --------------------------------------------------------------------------
    @property
    def segment_units(self) -> Units:
        self.ensure_built()
        with self._lock:
            if self._segment_units is None:
                self._segment_units = self._load_or_build_segments()
            return self._segment_units

    def _load_or_build_segments(self) -> Units:
        pieces = segment_pieces(self.doc, window=SEGMENT_WINDOW)
        texts = [self.doc.text[p.start : p.end] for p in pieces]
        spans = [[p.start, p.end] for p in pieces]
        vec_path, spans_path, tok_path = self.dir / "segments.npy", self.dir / "segments.json", self.dir / "segments_tokens.json"
        try:
            if json.loads(spans_path.read_text()) == spans:
                vecs = np.load(vec_path)
                tokens = json.loads(tok_path.read_text())
                if len(vecs) == len(tokens) == len(pieces):
                    return Units(pieces, texts, vecs, tokens=tokens)
        except (OSError, ValueError):
            pass
        vecs = self.embedder.embed(texts)
        tokens = [tokenize(t) for t in texts]
        for path, write in ((vec_path, lambda f: np.save(f, vecs)), (tok_path, lambda f: f.write(json.dumps(tokens).encode())),
                            (spans_path, lambda f: f.write(json.dumps(spans).encode()))):
            fd, tmp = tempfile.mkstemp(dir=self.dir, suffix=".part")
            with os.fdopen(fd, "wb") as f:
                write(f)
            os.replace(tmp, path)  # spans last: they say the other two are complete
        return Units(pieces, texts, vecs, tokens=tokens)


class IndexStore:
    """DocumentIndex objects by document id, cached for the process."""

    def __init__(self, root: Path, chunk_words: int, embedder: Embedder | None = None):
        self.root = Path(root)
        self.chunk_words = chunk_words
        self.embedder = embedder or get_embedder()
        self._cache: dict[tuple[str, str], DocumentIndex] = {}
        self._lock = threading.Lock()

    def is_built(self, doc) -> bool:
        """True when the document's chunk index is loaded or persisted (checks; builds nothing)."""
        with self._lock:
            di = self._cache.get((doc.document.id, sha256_text(doc.text)))
        if di is not None and di._chunk_units is not None:
            return True
        return (di or DocumentIndex(self.root, doc, self.chunk_words, self.embedder))._meta_ok()

    def get(self, doc) -> DocumentIndex:
        key = (doc.document.id, sha256_text(doc.text))
        with self._lock:
            di = self._cache.get(key)
            if di is None:
                di = DocumentIndex(self.root, doc, self.chunk_words, self.embedder)
                self._cache[key] = di
        di.ensure_built()
        return di
