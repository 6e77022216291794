"""The library index served as a llama-index vector store: an adapter over the FAISS files of
`workbench.index.faiss_store.FaissLibrary` (or the pgvector table of
`workbench.index.pgvector_store.PgVectorLibrary`, which has the same interface), so
`VectorStoreIndex.from_vector_store(...)` and its retrievers work on it. A question's filter
`document_id IN [...]` becomes a FAISS ID selector (FAISS itself has no metadata) or a SQL
`document_id = ANY(...)`. Node text and metadata live next to each document's vectors
(index/<doc>/chunks.json); the store returns nodes built from them.

Imported lazily: it needs llama_index.core (1+ s to import). The hot path (a question's cosines)
reads the FaissLibrary directly."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workbench.index.faiss_store import FaissLibrary
from workbench.index.llama import ensure_offline_env
from workbench.index.pgvector_store import PgVectorLibrary

ensure_offline_env()

from llama_index.core.bridge.pydantic import PrivateAttr  # noqa: E402
from llama_index.core.schema import BaseNode, TextNode  # noqa: E402
from llama_index.core.vector_stores.types import (  # noqa: E402
    BasePydanticVectorStore,
    FilterOperator,
    MetadataFilters,
    VectorStoreQuery,
    VectorStoreQueryResult,
)


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
    """A llama-index vector store over a FaissLibrary or a PgVectorLibrary.

    `node_loader(document_id, n)` returns the TextNode for a chunk (text and metadata are kept
    per document, not in FAISS)."""

    stores_text: bool = True
    is_embedding_query: bool = True

    _vectors: FaissLibrary | PgVectorLibrary = PrivateAttr()
    _node_loader: Callable[[str, int], BaseNode] | None = PrivateAttr()

    def __init__(self, vectors: FaissLibrary | PgVectorLibrary, node_loader: Callable[[str, int], BaseNode] | None = None):
        super().__init__()
        self._vectors = vectors
        self._node_loader = node_loader

    @classmethod
    def class_name(cls) -> str:
        return "WorkbenchLibraryVectorStore"

    @property
    def client(self) -> Any:
        return self._vectors.index

    def refresh(self) -> bool:
        return self._vectors.refresh()

    def entry(self, document_id: str) -> dict | None:
        return self._vectors.entry(document_id)

    def document_ids(self) -> list[str]:
        return self._vectors.document_ids()

    @property
    def ntotal(self) -> int:
        return self._vectors.ntotal

    # --- llama-index vector store API -------------------------------------------------------
    def add(self, nodes: list[BaseNode], **add_kwargs: Any) -> list[str]:
        """Nodes carry metadata document_id, chunk (its number) and text_sha256; a document's
        nodes replace any it had before (re-extracted text)."""
        by_doc: dict[str, list[BaseNode]] = {}
        for node in nodes:
            by_doc.setdefault(node.metadata["document_id"], []).append(node)
        with self._vectors.writing():
            for doc, group in by_doc.items():
                self._vectors.put(doc, [int(n.metadata["chunk"]) for n in group],
                                  np.asarray([n.get_embedding() for n in group], dtype=np.float32),
                                  group[0].metadata.get("text_sha256"))
        return [n.node_id for n in nodes]

    def add_empty(self, document_id: str, text_sha256: str) -> None:
        """Record a document without any text (nothing to search, nothing to re-check)."""
        with self._vectors.writing():
            self._vectors.put(document_id, [], np.zeros((0,), np.float32), text_sha256)

    def delete(self, ref_doc_id: str, **delete_kwargs: Any) -> None:
        """Remove a document's vectors (ref_doc_id is the document id)."""
        with self._vectors.writing():
            self._vectors.remove(ref_doc_id)

    @staticmethod
    def _documents(filters: MetadataFilters | None) -> list[str] | None:
        if filters is None or not filters.filters:
            return None
        docs: list[str] = []
        for f in filters.filters:
            if getattr(f, "key", None) != "document_id" or f.operator not in (FilterOperator.IN, FilterOperator.EQ):
                raise ValueError("the library index filters on document_id (IN or ==) only")
            docs += f.value if isinstance(f.value, list) else [f.value]
        return docs

    def query(self, query: VectorStoreQuery, **kwargs: Any) -> VectorStoreQueryResult:
        """Top similarity_top_k by inner product (cosine: unit vectors) among the filtered
        documents. kwargs `with_nodes=False` skips building nodes (ids and scores only)."""
        if query.query_embedding is None:
            return VectorStoreQueryResult(nodes=[], similarities=[], ids=[])
        docs, chunks, sims = self._vectors.search(np.asarray(query.query_embedding, dtype=np.float32),
                                                  query.similarity_top_k, self._documents(query.filters))
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
