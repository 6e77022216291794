"""The library's vectors on disk: one FAISS IndexIDMap2 (over IndexFlatIP) with per-document id
ranges, shared by every process that opens the same data dir.

- FAISS ids are per-document ranges: slot << 20 | chunk number, so removing a document is one
  `remove_ids` of its range and a question over a subset searches with an ID selector.
- Writers hold an exclusive flock, apply their change to the newest copy and replace the files
  atomically; readers reload when the generation number changed.

No llama-index here: a question's hot path (is the document indexed? its chunks' cosines) reads
FAISS directly, so a CLI call does not pay llama_index.core's import (~1 s). The llama-index
vector store (`workbench.index.library`) is an adapter over this object."""

from __future__ import annotations

import fcntl
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import faiss
import numpy as np

from workbench.datadir import private_dir
from workbench.index.embed import DIM

SLOT_BITS = 20  # up to 1,048,575 chunks per document; 2**43 documents
FORMAT = 1


def faiss_id(slot: int, n: int) -> int:
    return (slot << SLOT_BITS) | n


class FaissLibrary:
    """Every indexed document's chunk vectors, with {"slot", "chunks", "text_sha256"} per document."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.lock = threading.RLock()
        self._index = faiss.IndexIDMap2(faiss.IndexFlatIP(DIM))
        self._docs: dict[str, dict] = {}
        self._next_slot = 0
        self._generation = -1
        self.refresh()

    # --- files ----------------------------------------------------------------------------
    @property
    def _gen_path(self) -> Path:
        return self.root / "generation"

    def _disk_generation(self) -> int:
        try:
            return int(self._gen_path.read_text())
        except (OSError, ValueError):
            return 0

    def refresh(self) -> bool:
        """Reload when another process (or store object) changed the library. True if reloaded."""
        with self.lock:
            gen = self._disk_generation()
            if gen == self._generation:
                return False
            try:
                state = json.loads((self.root / "docs.json").read_text())
                index = faiss.read_index(str(self.root / "vectors.faiss"))
            except (OSError, ValueError, RuntimeError):
                state, index = {"docs": {}, "next_slot": 0}, faiss.IndexIDMap2(faiss.IndexFlatIP(DIM))
            if state.get("format", FORMAT) != FORMAT:
                state, index = {"docs": {}, "next_slot": 0}, faiss.IndexIDMap2(faiss.IndexFlatIP(DIM))
            self._index, self._docs, self._next_slot = index, state["docs"], state["next_slot"]
            self._generation = gen
            return True

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Exclusive across processes; starts from the newest copy, persists and bumps the generation."""
        private_dir(self.root)
        with self.lock, open(self.root / ".lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                self.refresh()
                yield
                self._persist()
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _persist(self) -> None:
        tag = f".{os.getpid()}.{threading.get_ident()}.tmp"
        vec_tmp, docs_tmp = self.root / f"vectors.faiss{tag}", self.root / f"docs.json{tag}"
        faiss.write_index(self._index, str(vec_tmp))
        docs_tmp.write_text(json.dumps({"format": FORMAT, "docs": self._docs, "next_slot": self._next_slot}))
        gen = self._disk_generation() + 1
        gen_tmp = self.root / f"generation{tag}"
        gen_tmp.write_text(str(gen))
        os.replace(vec_tmp, self.root / "vectors.faiss")
        os.replace(docs_tmp, self.root / "docs.json")
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

    @property
    def index(self):
        """The FAISS index itself (a llama-index store's `client`)."""
        return self._index

    # --- changes (callers hold `writing()`) -------------------------------------------------
    def put(self, document_id: str, chunk_numbers: list[int], vectors: np.ndarray, text_sha256: str | None) -> None:
        """A document's vectors, replacing any it had before (re-extracted text)."""
        self.remove(document_id)
        slot = self._next_slot
        self._next_slot += 1
        vecs = np.asarray(vectors, dtype=np.float32).reshape(-1, DIM)
        if len(vecs):
            self._index.add_with_ids(vecs, np.asarray([faiss_id(slot, n) for n in chunk_numbers], dtype=np.int64))
        self._docs[document_id] = {"slot": slot, "chunks": len(vecs), "text_sha256": text_sha256}

    def remove(self, document_id: str) -> None:
        old = self._docs.pop(document_id, None)
        if old is not None:
            lo = faiss_id(old["slot"], 0)
            self._index.remove_ids(faiss.IDSelectorRange(lo, lo + (1 << SLOT_BITS)))

    # --- search ---------------------------------------------------------------------------
    def search(self, qvec: np.ndarray, k: int, document_ids: list[str] | None = None
               ) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Top k by inner product (cosine: unit vectors) among `document_ids` (None: all):
        each hit's document id, chunk number and similarity."""
        self.refresh()
        with self.lock:
            selector, available = self._selector(document_ids)
            k = min(int(k), available)
            if selector is False or k <= 0:
                return [], np.zeros(0, np.int64), np.zeros(0, np.float32)
            q = np.asarray(qvec, dtype=np.float32).reshape(1, DIM)
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
        return [slot_doc[s] for s in (fids >> SLOT_BITS).tolist()], chunks, sims

    def _selector(self, document_ids: list[str] | None):
        if document_ids is None:
            return None, self.ntotal
        ids = []
        for doc in document_ids:
            e = self._docs.get(doc)
            if e is not None and e["chunks"]:
                lo = faiss_id(e["slot"], 0)
                ids.append(np.arange(lo, lo + e["chunks"], dtype=np.int64))
        if not ids:
            return False, 0
        batch = np.concatenate(ids)
        return faiss.IDSelectorBatch(batch), len(batch)
