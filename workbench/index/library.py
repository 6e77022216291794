"""One retrieval index over the whole library: every document's chunk vectors in a single FAISS
index (IndexIDMap2 over IndexFlatIP), served as a llama-index vector store.

- FAISS ids are per-document ranges: slot << 20 | chunk number, so removing a document is one
  `remove_ids` of its range and a question over a subset searches with an ID selector built from
  the llama-index metadata filter `document_id IN [...]` (FAISS itself has no metadata).
- Node text and metadata live next to each document's vectors (index/<doc>/chunks.json); the
  store returns nodes built from them, so `VectorStoreIndex.from_vector_store(...)` and its
  retrievers work on it, and the hot path can ask for ids and scores only.
- Several processes (app, workers) share the files: writers hold an exclusive flock, apply their
  change to the newest copy and replace the files atomically; readers reload when the generation
  number changed.

Imported lazily: it needs llama_index.core (2+ s to import) and faiss."""

from __future__ import annotations

import fcntl
import json
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from workbench.index.embed import DIM
from workbench.index.llama import ensure_offline_env

ensure_offline_env()

import faiss  # noqa: E402
from llama_index.core.bridge.pydantic import PrivateAttr  # noqa: E402
from llama_index.core.schema import BaseNode, TextNode  # noqa: E402
from llama_index.core.vector_stores.types import (  # noqa: E402
    BasePydanticVectorStore,
    FilterOperator,
    MetadataFilters,
    VectorStoreQuery,
    VectorStoreQueryResult,
)

SLOT_BITS = 20  # up to 1,048,575 chunks per document; 2**43 documents
FORMAT = 1


def faiss_id(slot: int, n: int) -> int:
    return (slot << SLOT_BITS) | n


def node_id(document_id: str, n: int) -> str:
    """Unique over the library (a chunk_id keeps only 8 hex digits of the document id)."""
    return f"{document_id}:{n}"


def document_filter(document_ids: list[str]) -> MetadataFilters:
    """The llama-index filter for a question over some documents."""
    from llama_index.core.vector_stores.types import MetadataFilter

    return MetadataFilters(filters=[MetadataFilter(key="document_id", value=list(document_ids), operator=FilterOperator.IN)])


@dataclass
class LibraryQueryResult(VectorStoreQueryResult):
    """llama-index's query result, plus each hit's document id and chunk number (the parts of its
    node id), so a caller ranking every chunk need not parse thousands of ids."""

    document_ids: list[str] = field(default_factory=list)
    chunks: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))


class LibraryVectorStore(BasePydanticVectorStore):
    """A llama-index vector store over one FAISS IndexIDMap2 with per-document id ranges.

    `node_loader(document_id, n)` returns the TextNode for a chunk (text and metadata are kept
    per document, not in FAISS)."""

    stores_text: bool = True
    is_embedding_query: bool = True

    _root: Path = PrivateAttr()
    _index: Any = PrivateAttr()
    _docs: dict = PrivateAttr()
    _next_slot: int = PrivateAttr()
    _generation: int = PrivateAttr()
    _node_loader: Callable[[str, int], BaseNode] | None = PrivateAttr()
    _lock: threading.RLock = PrivateAttr()

    def __init__(self, root: Path, node_loader: Callable[[str, int], BaseNode] | None = None):
        super().__init__()
        self._root = Path(root)
        self._node_loader = node_loader
        self._lock = threading.RLock()
        self._index = faiss.IndexIDMap2(faiss.IndexFlatIP(DIM))
        self._docs = {}
        self._next_slot = 0
        self._generation = -1
        self.refresh()

    @classmethod
    def class_name(cls) -> str:
        return "WorkbenchLibraryVectorStore"

    @property
    def client(self) -> Any:
        return self._index

    # --- files ----------------------------------------------------------------------------
    @property
    def _gen_path(self) -> Path:
        return self._root / "generation"

    def _disk_generation(self) -> int:
        try:
            return int(self._gen_path.read_text())
        except (OSError, ValueError):
            return 0

    def refresh(self) -> bool:
        """Reload when another process (or store object) changed the library. True if reloaded."""
        with self._lock:
            gen = self._disk_generation()
            if gen == self._generation:
                return False
            try:
                state = json.loads((self._root / "docs.json").read_text())
                index = faiss.read_index(str(self._root / "vectors.faiss"))
            except (OSError, ValueError, RuntimeError):
                state, index = {"docs": {}, "next_slot": 0}, faiss.IndexIDMap2(faiss.IndexFlatIP(DIM))
            if state.get("format", FORMAT) != FORMAT:
                state, index = {"docs": {}, "next_slot": 0}, faiss.IndexIDMap2(faiss.IndexFlatIP(DIM))
            self._index, self._docs, self._next_slot = index, state["docs"], state["next_slot"]
            self._generation = gen
            return True

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Exclusive across processes; starts from the newest copy, persists and bumps the generation."""
        self._root.mkdir(parents=True, exist_ok=True)
        with self._lock, open(self._root / ".lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                self.refresh()
                yield
                self._persist()
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _persist(self) -> None:
        tag = f".{os.getpid()}.{threading.get_ident()}.tmp"
        vec_tmp, docs_tmp = self._root / f"vectors.faiss{tag}", self._root / f"docs.json{tag}"
        faiss.write_index(self._index, str(vec_tmp))
        docs_tmp.write_text(json.dumps({"format": FORMAT, "docs": self._docs, "next_slot": self._next_slot}))
        gen = self._disk_generation() + 1
        gen_tmp = self._root / f"generation{tag}"
        gen_tmp.write_text(str(gen))
        os.replace(vec_tmp, self._root / "vectors.faiss")
        os.replace(docs_tmp, self._root / "docs.json")
        os.replace(gen_tmp, self._gen_path)  # last: readers reload once both files are in place
        self._generation = gen

    # --- what is in it ----------------------------------------------------------------------
    def entry(self, document_id: str) -> dict | None:
        """{"slot", "chunks", "text_sha256"} of an indexed document, or None."""
        self.refresh()
        return self._docs.get(document_id)

    def document_ids(self) -> list[str]:
        self.refresh()
        return list(self._docs)

    @property
    def ntotal(self) -> int:
        return int(self._index.ntotal)

    # --- llama-index vector store API -------------------------------------------------------
    def add(self, nodes: list[BaseNode], **add_kwargs: Any) -> list[str]:
        """Nodes carry metadata document_id, chunk (its number) and text_sha256; a document's
        nodes replace any it had before (re-extracted text)."""
        by_doc: dict[str, list[BaseNode]] = {}
        for node in nodes:
            by_doc.setdefault(node.metadata["document_id"], []).append(node)
        with self._writing():
            for doc, group in by_doc.items():
                self._remove(doc)
                slot = self._next_slot
                self._next_slot += 1
                vecs = np.asarray([n.get_embedding() for n in group], dtype=np.float32).reshape(-1, DIM)
                ids = np.asarray([faiss_id(slot, int(n.metadata["chunk"])) for n in group], dtype=np.int64)
                self._index.add_with_ids(vecs, ids)
                self._docs[doc] = {"slot": slot, "chunks": len(group), "text_sha256": group[0].metadata.get("text_sha256")}
        return [n.node_id for n in nodes]

    def add_empty(self, document_id: str, text_sha256: str) -> None:
        """Record a document without any text (nothing to search, nothing to re-check)."""
        with self._writing():
            self._remove(document_id)
            self._docs[document_id] = {"slot": self._next_slot, "chunks": 0, "text_sha256": text_sha256}
            self._next_slot += 1

    def delete(self, ref_doc_id: str, **delete_kwargs: Any) -> None:
        """Remove a document's vectors (ref_doc_id is the document id)."""
        with self._writing():
            self._remove(ref_doc_id)

    def _remove(self, document_id: str) -> None:
        old = self._docs.pop(document_id, None)
        if old is not None:
            lo = faiss_id(old["slot"], 0)
            self._index.remove_ids(faiss.IDSelectorRange(lo, lo + (1 << SLOT_BITS)))

    def _selector(self, filters: MetadataFilters | None):
        if filters is None or not filters.filters:
            return None, self.ntotal
        ids: list[np.ndarray] = []
        for f in filters.filters:
            if getattr(f, "key", None) != "document_id" or f.operator not in (FilterOperator.IN, FilterOperator.EQ):
                raise ValueError("the library index filters on document_id (IN or ==) only")
            values = f.value if isinstance(f.value, list) else [f.value]
            for doc in values:
                e = self._docs.get(doc)
                if e is not None and e["chunks"]:
                    lo = faiss_id(e["slot"], 0)
                    ids.append(np.arange(lo, lo + e["chunks"], dtype=np.int64))
        if not ids:
            return False, 0
        batch = np.concatenate(ids)
        return faiss.IDSelectorBatch(batch), len(batch)

    def query(self, query: VectorStoreQuery, **kwargs: Any) -> VectorStoreQueryResult:
        """Top similarity_top_k by inner product (cosine: unit vectors) among the filtered
        documents. kwargs `with_nodes=False` skips building nodes (ids and scores only)."""
        self.refresh()
        with self._lock:
            selector, available = self._selector(query.filters)
            k = min(int(query.similarity_top_k), available)
            if selector is False or k <= 0 or query.query_embedding is None:
                return VectorStoreQueryResult(nodes=[], similarities=[], ids=[])
            q = np.asarray(query.query_embedding, dtype=np.float32).reshape(1, DIM)
            params = faiss.SearchParameters(sel=selector) if selector is not None else None
            # One query over a few thousand vectors is far too small to split: OpenMP's threads
            # made it 60x slower on a busy 2-core machine (BENCHMARKS.md). The setting is per
            # calling thread (an OpenMP ICV), so other threads' FAISS calls keep theirs.
            faiss.omp_set_num_threads(1)
            sims, fids = self._index.search(q, k, params=params)
            slot_doc = {e["slot"]: d for d, e in self._docs.items()}
        hit = fids[0] >= 0
        fids, sims = fids[0][hit], sims[0][hit]
        chunks = fids & ((1 << SLOT_BITS) - 1)
        docs = [slot_doc[s] for s in (fids >> SLOT_BITS).tolist()]
        ids = [node_id(d, c) for d, c in zip(docs, chunks.tolist(), strict=True)]
        nodes = None
        if kwargs.get("with_nodes", True) and self._node_loader is not None:
            nodes = [self._node_loader(d, c) for d, c in zip(docs, chunks.tolist(), strict=True)]
        return LibraryQueryResult(nodes=nodes, similarities=sims.tolist(), ids=ids, document_ids=docs, chunks=chunks)


def chunk_node(document_id: str, n: int, text: str, metadata: dict, embedding: list[float] | None = None) -> TextNode:
    """A TextNode for chunk n of a document; metadata is kept out of the embedded text."""
    meta = {"document_id": document_id, "chunk": n, **metadata}
    keys = list(meta)
    return TextNode(id_=node_id(document_id, n), text=text, metadata=meta, embedding=embedding,
                    excluded_embed_metadata_keys=keys, excluded_llm_metadata_keys=keys)
