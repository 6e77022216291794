"""Judgment: whether a span answers a question or states a claim.

A learned cross-encoder scores relevance (question, span) and support (claim, span), calibrated
(`model`); facts (jurisdictions, dates, periods, amounts, percentages) are read and compared
deterministically (`facts`), so a claim is supported only by a span that states the same fact.
UI-free; onnxruntime and tokenizers at run time, no torch."""

from workbench.judgment.facts import Fact, FactCheck, compare, extract
from workbench.judgment.model import Judgement, ModelJudge, judge_support, rationale, relevance, support

__all__ = ["Fact", "FactCheck", "Judgement", "ModelJudge", "compare", "extract", "judge_support", "rationale", "relevance",
           "support"]
