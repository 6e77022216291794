"""Small helpers the benchmarks share: timing and peak memory."""

from __future__ import annotations

import os
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("WORKBENCH_CORPUS", ROOT.parent / "shared" / "corpus"))


def timed(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """Median wall time in seconds over `repeat` runs, and the last result."""
    times: list[float] = []
    result: Any = None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB."""
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 1024 if sys.platform != "darwin" else kb / (1024 * 1024)


def require_corpus() -> Path:
    if not CORPUS.is_dir():
        raise SystemExit(f"shared corpus not found at {CORPUS} (set WORKBENCH_CORPUS)")
    return CORPUS


def render_text_pdf(text: str, path: Path) -> None:
    """An NDA's text as a PDF, one paragraph per line of the text (as check_cli.py's verify check renders ContractNLI)."""
    import pymupdf

    html = "".join(f"<p>{p.replace('&', '&amp;').replace('<', '&lt;')}</p>" for p in text.split("\n") if p.strip())
    story = pymupdf.Story(html=html)
    w = pymupdf.DocumentWriter(str(path))
    more = True
    while more:
        dev = w.begin_page(pymupdf.paper_rect("letter"))
        more, _ = story.place(pymupdf.Rect(72, 72, 540, 720))
        story.draw(dev)
        w.end_page()
    w.close()


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, np.float64), 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


class BlendedJudge:
    """A judge to compare with the engine's (`--judge blend…`): the trained cross-encoder and the
    engine's lexical judge averaged in log-odds, with a weight per task (0: lexical alone)."""

    def __init__(self, model: Any = None, lexical: Any = None, weight: float = 0.5,
                 support_weight: float | None = None):
        from workbench.backends import engine

        self._model = model
        self.lexical = lexical or engine.LexicalJudge()
        self.weight = weight
        self.support_weight = weight if support_weight is None else support_weight

    @property
    def model(self) -> Any:
        if self._model is None:
            from workbench.backends import engine
            from workbench.judgment import ModelJudge

            self._model = ModelJudge(engine.LexicalJudge())
        return self._model

    @staticmethod
    def _blend(a: np.ndarray, b: np.ndarray, weight: float) -> np.ndarray:
        z = weight * _logit(a) + (1 - weight) * _logit(b)
        return (1 / (1 + np.exp(-z))).astype(np.float32)

    def relevance(self, question: str, spans: list[str], weights: Any = None
                  ) -> np.ndarray:
        if not spans:
            return np.zeros(0, np.float32)
        lex = self.lexical.relevance(question, spans, weights)
        return lex if not self.weight else self._blend(self.model.relevance(question, spans), lex, self.weight)

    def support(self, claim: str, spans: list[str], weights: Any = None
                ) -> np.ndarray:
        if not spans:
            return np.zeros(0, np.float32)
        lex = self.lexical.support(claim, spans, weights)
        return lex if not self.support_weight else self._blend(self.model.support(claim, spans), lex, self.support_weight)


JUDGES = ("shipped", "lexical", "model", "blend", "blend-relevance", "model-relevance")


def use_judge(name: str) -> None:
    """Make `ask` and `verify` score with another judge for this process (benches compare them);
    "shipped" leaves engine.get_judge()'s choice."""
    from workbench.backends import engine

    if name == "shipped":
        return
    if name.startswith("model:"):  # another support model folder (e.g. one trained without ContractNLI)
        from workbench.judgment import ModelJudge

        engine.SCORES.judge = ModelJudge(engine.LexicalJudge(), name.split(":", 1)[1])
        return
    if name == "lexical":
        engine.SCORES.judge = engine.LexicalJudge()
    elif name == "model":
        from workbench.judgment import ModelJudge

        engine.SCORES.judge = ModelJudge(engine.LexicalJudge())
    elif name == "blend":
        engine.SCORES.judge = BlendedJudge()
    elif name == "model-relevance":  # the model alone in relevance; support stays lexical
        engine.SCORES.judge = BlendedJudge(weight=1.0, support_weight=0.0)
    elif name == "blend-relevance":  # the model in relevance only; support stays lexical
        engine.SCORES.judge = BlendedJudge(support_weight=0.0)
    else:
        raise ValueError(f"unknown judge {name!r}: one of {', '.join(JUDGES)}")


def question_words_off() -> None:
    """The topic mapper before it read questions' words: bank similarity alone, no
    OTHER_QUESTIONS (call before the topic model is first loaded), for before/after figures."""
    from workbench.judgment import topics

    topics.HEAD_WORDS = topics.BANK_WORDS = 0.0
    topics.OTHER_QUESTIONS = ()
