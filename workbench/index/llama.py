"""The llama-index side: offline setup and a BaseEmbedding adapter around our Embedder.
llama-index's global Settings are never touched: the adapter is passed explicitly.

Imported lazily (llama_index.core takes 2+ s to import): `workbench.index` itself stays fast."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from workbench.config import point_tiktoken_at


def bundled_tiktoken_cache() -> Path | None:
    """llama-index's own copy of the tiktoken encodings, found without importing llama_index.core."""
    spec = importlib.util.find_spec("llama_index.core")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "_static" / "tiktoken_cache"


def ensure_offline_env() -> None:
    """tiktoken downloads its encodings unless TIKTOKEN_CACHE_DIR names a directory holding
    them; point it at llama-index's bundled cache when it is unset or points nowhere."""
    cache = bundled_tiktoken_cache()
    if cache is not None:
        point_tiktoken_at(cache)


def minilm_embedding(embedder):
    """A llama-index BaseEmbedding backed by workbench.index.embed.Embedder (no download)."""
    ensure_offline_env()
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from pydantic import PrivateAttr

    from workbench.index.embed import MODEL_ID

    global MiniLMEmbedding
    if MiniLMEmbedding is None:

        class _MiniLMEmbedding(BaseEmbedding):
            _embedder = PrivateAttr()

            def __init__(self, embedder, **kwargs):
                super().__init__(model_name=MODEL_ID, embed_batch_size=embedder.batch_size, **kwargs)
                self._embedder = embedder

            @classmethod
            def class_name(cls) -> str:
                return "WorkbenchMiniLMEmbedding"

            def _get_query_embedding(self, query: str) -> list[float]:
                return self._embedder.embed([query])[0].tolist()

            async def _aget_query_embedding(self, query: str) -> list[float]:
                return self._get_query_embedding(query)

            def _get_text_embedding(self, text: str) -> list[float]:
                return self._embedder.embed([text])[0].tolist()

            def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
                return self._embedder.embed(texts).tolist()

        MiniLMEmbedding = _MiniLMEmbedding
    return MiniLMEmbedding(embedder)


MiniLMEmbedding = None  # the adapter class, defined on first use (needs llama_index)
