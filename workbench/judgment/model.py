"""The learned judge: one cross-encoder (all-MiniLM-L6-v2 fine-tuned on CUAD-train and part of
ContractNLI train, see model/MODEL_CARD.md) scoring a text against candidate spans, run as int8
ONNX on onnxruntime with the `tokenizers` tokenizer; no torch at run time.

Two questions, one network: `relevance(question, spans)` (does the span answer the question?)
and `support(claim, spans)` (does the span state what the claim says?). Raw logits are mapped to
probabilities by per-task Platt scaling fitted on contracts held out from training
(model/calibration.json), so a score of 0.8 means about what it says on contracts like those.
The files are committed; a missing file is a clear error, never a silent fallback."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from workbench.config import default
from workbench.errors import ConfigError
from workbench.judgment.facts import FactCheck, compare

MODEL_DIR = Path(__file__).resolve().parent / "model"
MAX_TOKENS = 128  # the length the model was trained at
TOKEN_BUDGET = 4096  # padded tokens per ONNX call
FEATURES = ("relevance_logit", "support_logit", "cosine", "coverage")  # what the fitted combination reads


class Scorer:
    """A loaded model: tokenizer, ONNX session, calibration. Thread-safe; batches by length."""

    def __init__(self, model_dir: Path = MODEL_DIR, threads: int = 2):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        files = {n: model_dir / n for n in ("model.int8.onnx", "tokenizer.json", "calibration.json")}
        for f in files.values():
            if not f.is_file():
                raise ConfigError(f"The judgment model file {f} is missing: it is committed with the project "
                                  f"(rebuild it with `make train`).")
        self.tokenizer = Tokenizer.from_file(str(files["tokenizer.json"]))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS, strategy="longest_first")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, threads)
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(files["model.int8.onnx"]), opts, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        cal = json.loads(files["calibration.json"].read_text())
        self.calibration: dict[str, list[float]] = cal["platt"]
        self.calibration_stack: dict[str, dict] = cal.get("stack", {})
        self._lock = threading.Lock()

    TASKS = ("relevance", "support")  # the model's outputs, in order

    def logits(self, text: str, spans: list[str], task: str = "support") -> np.ndarray:
        """Raw model logits of one task for (text, span) pairs, in the order of `spans`."""
        return self.raw(text, spans)[:, self.TASKS.index(task)]

    def raw(self, text: str, spans: list[str]) -> np.ndarray:
        """Raw model logits for (text, span) pairs: one row per span, one column per task."""
        if not spans:
            return np.zeros((0, len(self.TASKS)), np.float32)
        encs = self.tokenizer.encode_batch([(text, s or " ") for s in spans])
        order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))
        out = np.zeros((len(encs), len(self.TASKS)), np.float32)
        i = 0
        while i < len(order):
            longest = len(encs[order[min(len(order) - 1, i)]].ids)
            n = max(1, TOKEN_BUDGET // max(longest, 1))
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
            out[batch] = res.reshape(len(batch), -1)[:, :len(self.TASKS)]
            i += n
        return out

    def probability(self, task: str, logits: np.ndarray) -> np.ndarray:
        """Platt scaling of the network's own logit (the model alone)."""
        a, b = self.calibration[task]
        return (1.0 / (1.0 + np.exp(-(a * logits.astype(np.float64) + b)))).astype(np.float32)

    def features(self, text: str, spans: list[str]) -> np.ndarray:
        """Per span: both network logits, MiniLM cosine (the product's int8 embedder) and the share
        of the text's content words the span contains: what the fitted combination reads."""
        z = self.raw(text, spans)
        if not spans:
            return np.zeros((0, len(FEATURES)), np.float64)
        from workbench.index.embed import embed_texts
        from workbench.text import content_terms
        from workbench.text.terms import embed_form

        v = embed_texts([embed_form(text)] + [embed_form(s) for s in spans])
        cos = v[1:] @ v[0]
        q = set(content_terms(text))
        cov = np.array([len(q & set(content_terms(s))) / len(q) if q else 0.0 for s in spans])
        return np.column_stack([z[:, 0], z[:, 1], cos, cov]).astype(np.float64)

    def score(self, task: str, text: str, spans: list[str]) -> np.ndarray:
        """Calibrated P for the task: the logistic combination of `features` fitted on held-out
        contracts (calibration.json "stack"); Platt on the network's logit when none is fitted."""
        stack = self.calibration_stack.get(task)
        if not stack:
            return self.probability(task, self.logits(text, spans, task))
        f = self.features(text, spans)
        if not len(f):
            return np.zeros(0, np.float32)
        z = f @ np.asarray(stack["w"], np.float64) + float(stack["b"])
        return (1.0 / (1.0 + np.exp(-z))).astype(np.float32)


@lru_cache(maxsize=2)
def get_scorer(model_dir: str | None = None, threads: int = default("embed_threads")) -> Scorer:
    """The scorer, loaded once per model folder and thread count (the first call costs about a second)."""
    return Scorer(Path(model_dir) if model_dir else MODEL_DIR, threads=threads)


def relevance(question: str, spans: list[str]) -> np.ndarray:
    """Calibrated P(span answers the question), one per span, in [0, 1]."""
    return get_scorer().score("relevance", question, spans)


def support(claim: str, spans: list[str]) -> np.ndarray:
    """Calibrated P(span states what the claim says), one per span, in [0, 1]. The model alone:
    combine with facts.compare (see `judge`) before calling a claim supported."""
    return get_scorer().score("support", claim, spans)


def rationale(text: str, span: str, score: float, task: str = "support") -> str:
    """A reason a reviewer can read: the fact check when the text states facts, then the score.

    e.g. "the passage states the same jurisdiction (the laws of Virginia); model score 0.82" or
    "the claim says 30 days, the passage says sixty (60) days; model score 0.64"."""
    check = compare(text, span)
    what = "answers the question" if task == "relevance" else "states the claim"
    words = "likely" if score >= 0.5 else "unlikely"
    head = check.reason
    tail = f"model score {score:.2f} (the passage {words} {what})"
    return f"{head}; {tail}" if head else tail


SUPPORT_THRESHOLD = 0.5


@dataclass
class Judgement:
    """A claim against one span: the model's calibrated score, the fact check, and the verdict."""

    score: float  # support probability after the fact gate
    model_score: float  # the model's calibrated probability alone
    supported: bool
    reason: str  # readable, no stems
    facts: FactCheck


def judge_support(claim: str, spans: list[str], threshold: float = SUPPORT_THRESHOLD) -> list[Judgement]:
    """`support` with the fact gate: a span stating a different fact (another state, another
    period, another date) cannot support the claim, nor can one that does not state the claim's
    fact at all; otherwise the calibrated model score decides."""
    probs = support(claim, spans)
    out = []
    for span, p in zip(spans, probs, strict=True):
        check = compare(claim, span)
        p = float(p)
        if check.conflicts:
            score, reason = min(p, 0.02), check.reason
        elif check.missing:
            score, reason = min(p, 0.2), check.reason
        else:
            score = p
            reason = rationale(claim, span, p)
        out.append(Judgement(score, p, score >= threshold, reason, check))
    return out


class ModelJudge:
    """The learned judge behind `ask` and `verify` (workbench.backends.engine.Judge): calibrated
    P(span answers the question) and P(span states the claim), one per span, from the committed
    cross-encoder. Loading it fails with a ConfigError naming the missing file."""

    def __init__(self, model_dir: Path | str | None = None):
        self.scorer = get_scorer(str(model_dir) if model_dir else None)

    def relevance(self, question: str, spans: list[str], weights=None) -> np.ndarray:
        return self.scorer.score("relevance", question, list(spans))

    def support(self, claim: str, spans: list[str], weights=None) -> np.ndarray:
        return self.scorer.score("support", claim, list(spans))
