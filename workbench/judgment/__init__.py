"""Judgment: whether a span answers a question or states a claim, the same for every backend.

- `gates`: the named rules a quote must pass after the judge's relevance, in the order
  Settings.judgment.gates gives; each a small module with `check(QuoteInput) -> GateResult | None`.
- `facts`: facts (jurisdictions, dates, periods, amounts, percentages) read and compared
  deterministically, so a claim is supported only by a span that states the same fact.
- `topics`: the clause-topic model (which kind of clause a question asks about).
- `model`: the learned cross-encoders: the support model (supported / contradicted / not stated),
  which the engine's judge reads (ModelJudge), and the loader of a relevance model that is
  trained and measured but not the engine's reader (BENCHMARKS.md "Relevance model").

Submodules load on first use (`from workbench.judgment import model`), so reading a gate or the
settings never loads onnxruntime. UI-free; no torch at run time."""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {"Fact": "facts", "FactCheck": "facts", "compare": "facts", "extract": "facts",
         "Judgement": "model", "ModelJudge": "model", "judge_support": "model"}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"workbench.judgment.{_LAZY[name]}"), name)
    raise AttributeError(name)
