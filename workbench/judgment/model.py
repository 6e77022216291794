"""The support model: a cross-encoder that reads (claim, span) and says whether the span states
the claim, contradicts it, or does not say (all-MiniLM-L6-v2 fine-tuned on VitaminC, MultiNLI,
FEVER, CUAD and ContractNLI train; model/MODEL_CARD.md), run as int8 ONNX on onnxruntime with the
`tokenizers` tokenizer; no torch at run time.

Its three logits become probabilities by a temperature and a bias per class fitted on the
training data's calib slices (model/calibration.json), never on what the benches measure. Facts
(jurisdiction, date, duration, amount, number) are still read deterministically
(workbench/judgment/facts.py): the model adds meaning, it does not replace reading numbers.
The files are committed; a missing file is a clear error, never a silent fallback."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from workbench.config import default
from workbench.errors import ConfigError
from workbench.judgment.facts import FactCheck, compare
from workbench.text.weights import TermWeights

MODEL_DIR = Path(__file__).resolve().parent / "model"
LABELS = ("supported", "contradicted", "not_stated")  # the model's outputs, in order
MAX_TOKENS = 128  # the length the model was trained at
TOKEN_BUDGET = 4096  # padded tokens per ONNX call


class CrossEncoder:
    """A fine-tuned MiniLM cross-encoder run as int8 ONNX: tokenizer and session, batched by
    length; `outputs` logits a pair. Thread-safe. The support and relevance models are two."""

    def __init__(self, model_dir: Path, outputs: int, threads: int = 2, what: str = "support model",
                 memory: int = 20_000, rebuild: str = "make train"):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.files = {n: model_dir / n for n in ("model.int8.onnx", "tokenizer.json", "calibration.json")}
        for f in self.files.values():
            if not f.is_file():
                raise ConfigError(f"The {what} file {f} is missing (build it with `{rebuild}`).")
        self.outputs = outputs
        self.tokenizer = Tokenizer.from_file(str(self.files["tokenizer.json"]))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS, strategy="longest_first")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, threads)
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(self.files["model.int8.onnx"]), opts, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.calibration = json.loads(self.files["calibration.json"].read_text())
        self._lock = threading.Lock()
        self._memory: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._max = memory

    def logits(self, text: str, spans: Sequence[str]) -> np.ndarray:
        """Raw logits, one row per span."""
        out = np.zeros((len(spans), self.outputs), np.float32)
        if not len(spans):
            return out
        encs = self.tokenizer.encode_batch([(text or " ", s or " ") for s in spans])
        order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))
        i = 0
        while i < len(order):
            n = max(1, TOKEN_BUDGET // max(len(encs[order[min(len(order) - 1, i + 7)]].ids), 1))
            batch = order[i:i + n]
            width = max(len(encs[j].ids) for j in batch)
            ids = np.zeros((len(batch), width), np.int64)
            mask = np.zeros_like(ids)
            types = np.zeros_like(ids)
            for r, j in enumerate(batch):
                e = encs[j]
                ids[r, :len(e.ids)] = e.ids
                mask[r, :len(e.ids)] = 1
                types[r, :len(e.ids)] = e.type_ids
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            with self._lock:
                res = self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
            out[batch] = res.reshape(len(batch), -1)[:, :self.outputs]
            i += n
        return out

    def calibrated(self, logits: np.ndarray) -> np.ndarray:
        """What is remembered of a pair: the raw logits here; a subclass may map them."""
        return logits.astype(np.float64)

    def scored(self, text: str, spans: Sequence[str]) -> np.ndarray:
        """Calibrated outputs, one row per span, remembered by (text, span)."""
        keys = [(text, s) for s in spans]
        todo = list(dict.fromkeys(k for k in keys if k not in self._memory))
        if todo:
            by_text: dict[str, list[str]] = {}
            for c, s in todo:
                by_text.setdefault(c, []).append(s)
            for c, ss in by_text.items():
                for s, p in zip(ss, self.calibrated(self.logits(c, ss)), strict=True):
                    self._memory[(c, s)] = p
            while len(self._memory) > self._max:
                self._memory.popitem(last=False)
        if not keys:
            return np.zeros((0, self.outputs), np.float64)
        return np.stack([self._memory[k] for k in keys])


class SupportModel(CrossEncoder):
    """The support model: calibrated P(supported, contradicted, not stated) of a (claim, span);
    remembers the last few thousand pairs (a run scores the same spans in several stages)."""

    def __init__(self, model_dir: Path = MODEL_DIR, threads: int = 2, memory: int = 20_000):
        super().__init__(model_dir, len(LABELS), threads, "support model", memory)
        cal = self.calibration
        self.temperature = float(cal.get("temperature", 1.0))
        self.bias = np.asarray(cal.get("bias", [0.0, 0.0, 0.0]), np.float64)
        self.stack: dict = cal.get("stack") or {}

    def calibrated(self, logits: np.ndarray) -> np.ndarray:
        z = logits.astype(np.float64) / self.temperature + self.bias
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=1, keepdims=True)

    def probabilities(self, claim: str, spans: Sequence[str]) -> np.ndarray:
        """Calibrated P(supported, contradicted, not stated), one row per span."""
        return self.scored(claim, spans)


@lru_cache(maxsize=2)
def get_model(model_dir: str | None = None, threads: int = default("embed_threads")) -> SupportModel:
    """The support model, loaded once per folder and thread count (the first call costs about a second)."""
    return SupportModel(Path(model_dir) if model_dir else MODEL_DIR, threads=threads)


def probabilities(claim: str, spans: Sequence[str]) -> np.ndarray:
    """Calibrated P(supported, contradicted, not stated) of each span for the claim."""
    return get_model().probabilities(claim, list(spans))


def verdict_of(p: np.ndarray) -> str:
    """The label a row of probabilities reads as."""
    return LABELS[int(np.argmax(p))]


SUPPORT_THRESHOLD = 0.5


@dataclass
class Judgement:
    """A claim against one span: the verdict as `verify` reaches it, and the model's own reading."""

    verdict: str  # supported, contradicted or not_stated
    score: float  # P(supported) after the fact gate
    probabilities: tuple[float, float, float]  # the model alone, in LABELS' order
    reason: str
    facts: FactCheck

    @property
    def supported(self) -> bool:
        return self.verdict == "supported"

    @property
    def model_score(self) -> float:
        return self.probabilities[0]


def judge_support(claim: str, spans: list[str], threshold: float = SUPPORT_THRESHOLD) -> list[Judgement]:
    """Each span alone, judged as `verify` judges a claim (workbench.judgment.claims.judge_claim:
    the model's probabilities, the fact gate and the polarity check)."""
    from workbench.judgment.claims import judge_claim

    probs = probabilities(claim, spans)
    out = []
    for span, p in zip(spans, probs, strict=True):
        v = judge_claim(claim, [span], p[:1], threshold=threshold, contradiction=p[1:2])
        out.append(Judgement(v.verdict, v.score, (float(p[0]), float(p[1]), float(p[2])), v.reason,
                             compare(claim, span)))
    return out


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, np.float64), 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


# Spans the model reads per claim: the ones the lexical judge finds closest. A claim's candidates
# run to 40 units a document; the network reads 10 in about 0.1 s on 2 cores, all 40 in 0.5 s.
MODEL_TOP_K = 10
# A span the model did not read keeps its lexical support, capped below any verdict's threshold:
# only a span the model read can support or contradict.
UNREAD_CAP = 0.3


class ModelJudge:
    """The judge behind `ask`, `verify` and Check a draft (workbench.judgment.scores.Judge): support
    and contradiction from the support model on the MODEL_TOP_K spans the lexical judge finds
    closest; relevance, the clause-topic reading, closeness and evidence ranking stay the lexical
    judge's, which it wraps (a relevance model was trained and measured, and did not win in the
    product: BENCHMARKS.md "Relevance model"). Loading it fails with a ConfigError naming the
    missing file."""

    def __init__(self, lexical, model_dir: Path | str | None = None, top_k: int = MODEL_TOP_K):
        self.lexical = lexical
        self.model = get_model(str(model_dir) if model_dir else None)
        self.top_k = top_k
        self._last: tuple[tuple, np.ndarray] | None = None  # support then contradiction read the same pairs

    def __getattr__(self, name: str):
        # relevance, kind_reading, features, word_matches, ranking: the lexical judge's
        return getattr(self.__dict__["lexical"], name)

    def probabilities(self, claim: str, spans: list[str], weights: Sequence[TermWeights | None] | None = None
                      ) -> np.ndarray:
        """P(supported, contradicted, not stated) per span. For the closest spans: P(supported)
        is the model's combined with the lexical judge's (calibration.json "stack", fitted on the
        calib slices: the model reads facts and meaning, the lexical judge whether the span is
        about the claim), P(contradicted) the model's. The rest keep the lexical support, capped."""
        spans = list(spans)
        key = (claim, tuple(spans), tuple(weights) if weights is not None else None)  # weights by identity
        last = self._last
        if last is not None and last[0] == key:
            return last[1].copy()
        out = np.zeros((len(spans), len(LABELS)), np.float64)
        if not spans:
            return out
        lexical = np.asarray(self.lexical.support(claim, spans, weights), np.float64)
        read = sorted(range(len(spans)), key=lambda i: -lexical[i])[:self.top_k]
        out[:, 0] = np.minimum(lexical, UNREAD_CAP)
        out[:, 2] = 1.0 - out[:, 0]
        p = self.model.probabilities(claim, [spans[i] for i in read])
        stack = self.model.stack
        if stack:
            z = stack["w"][0] * _logit(p[:, 0]) + stack["w"][1] * _logit(lexical[read]) + stack["b"]
            sup = 1 / (1 + np.exp(-z))
            p = np.column_stack([sup, np.minimum(p[:, 1], 1 - sup), np.zeros(len(read))])
            p[:, 2] = 1 - p[:, 0] - p[:, 1]
        out[read] = p
        self._last = (key, out)
        return out.copy()

    def support(self, claim: str, spans: list[str], weights: Sequence[TermWeights | None] | None = None
                ) -> np.ndarray:
        return self.probabilities(claim, spans, weights)[:, 0].astype(np.float32)

    def contradiction(self, claim: str, spans: list[str], weights: Sequence[TermWeights | None] | None = None
                      ) -> np.ndarray:
        return self.probabilities(claim, spans, weights)[:, 1].astype(np.float32)


RELEVANCE_DIR = Path(__file__).resolve().parents[2] / "train" / "out" / "relevance_model"


class RelevanceModel(CrossEncoder):
    """A relevance model: P(a contract span answers the question), a cross-encoder fine-tuned on
    cuad-train's category questions and clauses (`make train-relevance`: train/train_rel.py, then
    train/calibrate_rel.py, which fits the calibration on the calib split). Not the engine's
    reader: in `ask` on held-out contracts it found more gold clauses whole and answered fewer
    absent categories NO_AUTHORITATIVE_EVIDENCE (BENCHMARKS.md "Relevance model"), so the lexical
    judge keeps relevance; this loads the model for the training scripts and benches. Its logit
    becomes a probability beside the lexical judge's (calibration.json "stack"), or alone."""

    def __init__(self, model_dir: Path = RELEVANCE_DIR, threads: int = 2, memory: int = 20_000):
        super().__init__(model_dir, 1, threads, "relevance model", memory, "make train-relevance")
        self.slope = float(self.calibration.get("slope", 1.0))
        self.bias = float(self.calibration.get("bias", 0.0))
        self.stack: dict = self.calibration.get("stack") or {}

    def logit(self, question: str, spans: Sequence[str]) -> np.ndarray:
        return self.scored(question, spans)[:, 0]

    def probabilities(self, z: np.ndarray, lexical: np.ndarray | None = None) -> np.ndarray:
        """P(answers) from the model's logits `z`, with the lexical judge's P where given."""
        if self.stack and lexical is not None:
            w = self.stack["w"]
            return 1 / (1 + np.exp(-(w[0] * z + w[1] * _logit(lexical) + self.stack["b"])))
        return 1 / (1 + np.exp(-(z * self.slope + self.bias)))


@lru_cache(maxsize=2)
def get_relevance_model(model_dir: str | None = None, threads: int = default("embed_threads")) -> RelevanceModel:
    """The relevance model, loaded once per folder and thread count."""
    return RelevanceModel(Path(model_dir) if model_dir else RELEVANCE_DIR, threads=threads)
