"""Per-document files under data_dir/index/<sha256>/ and the library-wide vector index.

- chunks: cut along segment boundaries, embedded through llama-index (our MiniLM adapter) and
  inserted into the one library index (workbench.index.library: FAISS behind a llama-index
  vector store); the document's own files keep the chunks with offsets, page and heading, their
  vectors (`vectors.npy`, to rebuild the library without embedding again) and BM25 tokens.
- segments: the document's segments (and windows of adjacent ones) for claim checking: unit
  vectors in `segments.npy` (exhaustive inner product over one document), built on first use
  only (most questions never need it).
- lexical: BM25 tokens are persisted next to the vectors; the BM25 table is rebuilt in memory.

`meta.json` records the text hash and settings the files were built for; a mismatch (new
parser, other chunk size) rebuilds them and replaces the document's vectors in the library."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from workbench.config import VectorStoreSettings
from workbench.datadir import private_dir
from workbench.index.chunking import Piece, chunk_pieces, segment_pieces, to_chunks
from workbench.index.embed import DIM, MODEL_ID, Embedder
from workbench.models import Chunk, sha256_text
from workbench.text import BM25, tokenize

FORMAT_VERSION = 40  # 40: parser 43; 39: parser 42; 38: parser 41; 37: parser 40; 36: parser 39; 35: parser 38; 34: parser 37; 33: parser 36; 32: parser 35 (titles before the first child's number); 31: parser 34 (roman article titles after a dash); 30: parser 33 (bare-number run-in headings, contents links); 29: parser 32 (run-in article headings, contents up to the body); 28: parser 31 (typed underlines, doubled stops, dash separators, designations, statement siblings, plural division headings, a testimonium inside a line); 27: parsers 29-30 (section numbers beside their titles, roman articles, lettered items inside a section, contents over several pages, clauses inside a line); 26: parser 27 (a sentence past a closing bracket, N.0 sections); 25: segments end at structure-node boundaries (parser 25); 24: chunks carry the section tree's labels (innermost titled numbered section); 23: a paper's Abstract / Acknowledgements / References are sections; bump when the files, the BM25 tokenizer, the segmenter or the PDF text (parser version) change
SEGMENT_WINDOW = 2  # segments plus runs of 2 adjacent segments
# Segment units range from one clause to two sentences; full length normalisation (b=0.75) made
# BM25 shun the two-sentence windows. On ContractNLI dev (31 NDAs) b=0.3 lifted the hybrid's own
# recall@5 from 0.81 to 0.83 (bench/bench_embed.py --recall).
SEGMENT_BM25_B = 0.3
CHUNK_BM25_B = 0.75  # chunks are of similar length: the usual value
# Document indexes kept in memory per process (least recently used dropped; reloaded from disk):
# a whole-library question over more documents than this reloads some on every question.
MAX_DOCUMENTS = 1024
CHUNK_TEXT_PREFIX_HEADING = True  # the heading is embedded with the chunk text (not stored in it)


def text_sha256(doc) -> str:
    """SHA-256 of doc.text, kept with the parsed document when it keeps derived values (a question
    over a whole library would otherwise hash every document's text again)."""
    derived = getattr(doc, "derived", None)
    return derived("text_sha256", lambda: sha256_text(doc.text)) if derived else sha256_text(doc.text)


def _heading_prefixed(text: str, heading: str | None) -> str:
    if CHUNK_TEXT_PREFIX_HEADING and heading and heading.strip() and not text.lstrip().startswith(heading.strip()):
        return f"{heading.strip()}\n{text}"
    return text


@dataclass
class Units:
    """One searchable list (chunks or segment units): texts, spans, unit vectors, BM25."""

    pieces: list[Piece]
    texts: list[str]
    vectors: np.ndarray | None  # (n, 384) float32 unit rows; None for chunks (the library index has them)
    bm25_b: float = SEGMENT_BM25_B  # BM25 length normalisation; chunks pass CHUNK_BM25_B
    tokens: list[list[str]] | None = field(default=None, repr=False)  # BM25 tokens, when persisted
    _bm25: BM25 | None = field(default=None, repr=False)

    @property
    def bm25(self) -> BM25:
        if self._bm25 is None:
            self._bm25 = BM25(self.texts, b=self.bm25_b, tokens=self.tokens)
        return self._bm25


class DocumentIndex:
    """The persisted indexes of one document (chunks now, segments on first use). It keeps no
    reference to the parsed document (callers pass it when something must be built), so the
    parsed-document cache alone bounds how many of those stay in memory."""

    def __init__(self, root: Path, doc, chunk_words: int, embedder: Embedder, library: IndexStore | None = None):
        self.root = root
        self.library = library  # the IndexStore whose library index holds this document's vectors
        self.document_id: str = doc.document.id
        self.chunk_words = chunk_words
        self.embedder = embedder
        self.text_sha256 = text_sha256(doc)
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

    def ensure_built(self, doc) -> None:
        with self._lock:
            if self._chunk_units is not None:
                return
            if not self._meta_ok():
                self._build_chunks(doc)
            self._load_chunks()
            if self.library is not None and not self.in_library():
                try:
                    vectors = self.chunk_vectors()
                except (OSError, ValueError):  # the rebuild copy is gone: embed again
                    self._build_chunks(doc)
                    self._load_chunks()
                    vectors = self.chunk_vectors()
                self.library.ensure_in_library(self, vectors)

    def in_library(self) -> bool:
        return self.library is None or self.library.library_has(self.document_id, self.text_sha256, len(self._chunks or []))

    def _build_chunks(self, doc) -> None:
        """Chunk, embed through llama-index's embedding interface, persist atomically (temp dir + rename)."""
        from workbench.index.llama import minilm_embedding

        embed_model = minilm_embedding(self.embedder)
        pieces = chunk_pieces(doc, self.chunk_words)
        chunks = to_chunks(doc, pieces)
        texts = [_heading_prefixed(c.text, c.section_heading) for c in chunks]
        vectors = np.asarray(embed_model.get_text_embedding_batch(texts), np.float32).reshape(-1, DIM)
        private_dir(self.root)
        tmp = Path(tempfile.mkdtemp(prefix=f".{self.document_id[:8]}-", dir=self.root))
        try:
            (tmp / "chunks.json").write_text(json.dumps([c.model_dump() for c in chunks]))
            np.save(tmp / "vectors.npy", vectors)
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
        tokens = json.loads((self.dir / "tokens.json").read_text())
        pieces = [Piece(c.start, c.end, c.page, c.section_heading, i, i, "chunk") for i, c in enumerate(chunks)]
        texts = [_heading_prefixed(c.text, c.section_heading) for c in chunks]
        self._chunks = chunks
        self._chunk_units = Units(pieces, texts, None, CHUNK_BM25_B, tokens)

    def chunk_vectors(self) -> np.ndarray:
        """The chunk vectors as embedded (vectors.npy): the copy the library index is rebuilt
        from. Questions never read it; their cosines come from the library index."""
        vectors = np.load(self.dir / "vectors.npy", allow_pickle=False)
        if len(vectors) != len(self._chunks or []):
            raise ValueError(f"{self.dir / 'vectors.npy'} does not match chunks.json")
        return np.ascontiguousarray(vectors, dtype=np.float32)

    @property
    def chunks_loaded(self) -> list[Chunk]:
        return self._chunks or []

    @property
    def chunks(self) -> list[Chunk]:
        assert self._chunks is not None, "IndexStore.get(doc) builds or loads the index first"
        return self._chunks

    @property
    def chunk_units(self) -> Units:
        assert self._chunk_units is not None, "IndexStore.get(doc) builds or loads the index first"
        return self._chunk_units

    # --- segments --------------------------------------------------------------------------
    def segment_units(self, doc) -> Units:
        """The document's segment units (doc: the parsed document this index was built for),
        loaded from disk or embedded on first use."""
        with self._lock:
            if self._segment_units is None:
                self._segment_units = self._load_or_build_segments(doc)
            return self._segment_units

    def _load_or_build_segments(self, doc) -> Units:
        pieces = segment_pieces(doc, window=SEGMENT_WINDOW)
        texts = [doc.text[p.start : p.end] for p in pieces]
        spans = [[p.start, p.end] for p in pieces]
        vec_path, spans_path, tok_path = self.dir / "segments.npy", self.dir / "segments.json", self.dir / "segments_tokens.json"
        try:
            if json.loads(spans_path.read_text()) == spans:
                vecs = np.load(vec_path, allow_pickle=False)
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
    """DocumentIndex objects by document id (the last `max_documents` used, kept for the process)
    and the library index that holds every indexed document's chunk vectors."""

    def __init__(self, root: Path, chunk_words: int, embedder: Embedder, max_documents: int = MAX_DOCUMENTS,
                 vector_store: VectorStoreSettings | None = None, database_url: str | None = None):
        self.root = Path(root)
        self.vector_store = vector_store or VectorStoreSettings()
        self.database_url = database_url
        self.chunk_words = chunk_words
        self.embedder = embedder
        self.max_documents = max_documents
        self._cache: OrderedDict[tuple[str, str], DocumentIndex] = OrderedDict()
        self._lock = threading.Lock()
        self._vectors = None
        self._library = None
        self._llama_index = None
        self._embed_model = None

    # --- the library index ----------------------------------------------------------------
    @property
    def vectors(self):
        """The library's vectors, opened on first use (no llama-index import): FAISS files
        (FaissLibrary) or a pgvector table (PgVectorLibrary), as settings.vector_store says."""
        if self._vectors is None:
            with self._lock:
                if self._vectors is None:
                    if self.vector_store.kind == "pgvector":
                        from workbench.index.pgvector_store import PgVectorLibrary

                        self._vectors = PgVectorLibrary(self.vector_store.pgvector_url(self.database_url),
                                                        self.vector_store.table)
                    else:
                        from workbench.index.faiss_store import FaissLibrary

                        self._vectors = FaissLibrary(self.root / "library")
        return self._vectors

    @property
    def library(self):
        """The same vectors as a llama-index vector store (LibraryVectorStore), made on first use."""
        if self._library is None:
            vectors = self.vectors
            with self._lock:
                if self._library is None:
                    from workbench.index.library import LibraryVectorStore

                    self._library = LibraryVectorStore(vectors, node_loader=self.node)
        return self._library

    def embed_model(self):
        """Our embedder as a llama-index BaseEmbedding (made once)."""
        if self._embed_model is None:
            from workbench.index.llama import minilm_embedding

            self._embed_model = minilm_embedding(self.embedder)
        return self._embed_model

    def vector_index(self):
        """The library as a llama-index VectorStoreIndex (our embedding passed explicitly; the
        global llama-index Settings untouched), for callers who want llama-index's retrievers."""
        if self._llama_index is None:
            from llama_index.core import VectorStoreIndex

            self._llama_index = VectorStoreIndex.from_vector_store(self.library, embed_model=self.embed_model())
        return self._llama_index

    def library_has(self, document_id: str, text_sha256: str, chunks: int) -> bool:
        entry = self.vectors.entry(document_id)
        return entry is not None and entry.get("text_sha256") == text_sha256 and entry.get("chunks") == chunks

    def ensure_in_library(self, di: DocumentIndex, vectors: np.ndarray) -> None:
        """Insert (or replace) a document's chunk vectors in the library index."""
        if self.library_has(di.document_id, di.text_sha256, len(di.chunks_loaded)):
            return
        from workbench.index.library import chunk_node

        units = di._chunk_units  # loaded by the caller (di.ensure_built holds di's lock)
        nodes = [chunk_node(di.document_id, n, t, {"text_sha256": di.text_sha256}, v.tolist())
                 for n, (t, v) in enumerate(zip(units.texts, vectors, strict=True))] if units else []
        if nodes:
            self.vector_index().insert_nodes(nodes)
        else:  # a document without text: recorded, so it is not re-checked on every question
            self.library.add_empty(di.document_id, di.text_sha256)

    def remove(self, document_id: str) -> None:
        """Take a document out of the library index and delete its files."""
        with self.vectors.writing():
            self.vectors.remove(document_id)
        with self._lock:
            for key in [k for k in self._cache if k[0] == document_id]:
                del self._cache[key]
        shutil.rmtree(self.root / document_id, ignore_errors=True)

    def node(self, document_id: str, n: int):
        """The llama-index TextNode of chunk n (text and offsets read from the document's files)."""
        from workbench.index.library import chunk_node

        c = self._chunks_of(document_id)[n]
        meta = {k: getattr(c, k) for k in ("start", "end", "page", "section_heading", "chunk_id")}
        return chunk_node(document_id, n, _heading_prefixed(c.text, c.section_heading), meta)

    def _chunks_of(self, document_id: str) -> list[Chunk]:
        with self._lock:
            for (did, _sha), di in self._cache.items():
                if did == document_id and di._chunks is not None:
                    return di._chunks
        return [Chunk(**c) for c in json.loads((self.root / document_id / "chunks.json").read_text())]

    # --- per document -----------------------------------------------------------------------
    def is_built(self, doc) -> bool:
        """True when the document's chunks are persisted and in the library and its segments are
        embedded (checks; builds nothing)."""
        with self._lock:
            di = self._cache.get((doc.document.id, text_sha256(doc)))
        if di is not None and di._chunk_units is not None:
            return di.in_library() and (di._segment_units is not None or (di.dir / "segments.json").exists())
        di = di or DocumentIndex(self.root, doc, self.chunk_words, self.embedder, self)
        if not di._meta_ok() or not (di.dir / "segments.json").exists():
            return False
        try:
            chunks = json.loads((di.dir / "meta.json").read_text())["chunks"]
        except (OSError, ValueError, KeyError):
            return False
        return self.library_has(di.document_id, di.text_sha256, chunks)

    def get(self, doc) -> DocumentIndex:
        key = (doc.document.id, text_sha256(doc))
        with self._lock:
            di = self._cache.get(key)
            if di is None:
                di = DocumentIndex(self.root, doc, self.chunk_words, self.embedder, self)
                self._cache[key] = di
                while len(self._cache) > self.max_documents:
                    self._cache.popitem(last=False)
            self._cache.move_to_end(key)
        di.ensure_built(doc)
        return di
