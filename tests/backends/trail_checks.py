"""What a run through a real LLM must satisfy, whatever the model answers (issue 15's must-show):
no failed stage, every verified quote read back from the PDF under its own boxes, every cited ID
verified, usage (tokens, seconds) recorded per stage that called the model. Used by the
real-server tests and by bench/bench_local_llm.py on audit-trail JSON (`workbench ask --out`)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Any

import pymupdf

_CITE = re.compile(r"\b[A-Z]{2,}-[A-Z]*\d+\b")


def _words(text: str) -> list[str]:
    """Words compared case-sensitively after the normalisation quotes are found under
    (ligatures, quote marks and dashes, line-end hyphens)."""
    t = unicodedata.normalize("NFKC", text)
    t = t.translate(str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
                                   "\u2014": "-", "\u00ad": ""}))
    t = re.sub(r"(\w)-\s+(\w)", r"\1\2", t)
    return t.split()


def words_under(page: pymupdf.Page, rects: list[list[float]]) -> str:
    """The page's words whose centres lie inside the rects (x0, y0, x1, y1), rect by rect (one
    per line of the quote, in the quote's order) and left to right within each."""
    words = page.get_text("words")
    taken: set[int] = set()
    out: list[str] = []
    for r in rects:
        inside = [(w[0], i) for i, w in enumerate(words) if i not in taken
                  and r[0] - 1 <= (w[0] + w[2]) / 2 <= r[2] + 1 and r[1] - 1 <= (w[1] + w[3]) / 2 <= r[3] + 1]
        for _, i in sorted(inside):
            taken.add(i)
            out.append(words[i][4])
    return " ".join(out)


def read_back(pdf: Path, item: dict[str, Any]) -> str:
    """The text under an extracted item's rects ([page, x0, y0, x1, y1] each), pages in order."""
    doc = pymupdf.open(pdf)
    by_page: dict[int, list[list[float]]] = {}
    for page, *box in item["rects"]:
        by_page.setdefault(page, []).append(box)
    return " ".join(words_under(doc[p - 1], boxes) for p, boxes in by_page.items())


def problems(trail: dict[str, Any], pdf: Path) -> list[str]:
    """Everything in one question's audit trail that breaks the must-show; [] when it holds."""
    out: list[str] = []
    audit = trail["evidence_audit_trail"]
    out += [f"failed stage {f['stage']}: {f['message'][:300]}" for f in audit["failures"]]
    extracted = {e["requirement_id"]: e for e in trail["extracted_requirements"]}
    verified = {v["requirement_id"] for v in trail["verified_requirements"] if v["verified"]}
    for rid in sorted(verified):
        e = extracted.get(rid)
        if e is None or not e["rects"]:
            out.append(f"{rid} is verified but has no boxes")
            continue
        under = read_back(pdf, e)
        if _words(under) != _words(e["exact_quote"]):
            out.append(f"{rid}: the quote does not read back under its boxes: {e['exact_quote']!r} vs {under!r}")
    cited = set(_CITE.findall(trail.get("final_answer") or ""))
    cited |= {r["requirement_id"] for r in trail.get("requirement_references") or [] if r.get("used_in_answer")}
    out += [f"{rid} is cited but not verified" for rid in sorted(cited - verified)]
    usage = audit.get("usage") or {}
    if audit.get("backend") != "openai":
        return out
    if not usage.get("extract") or usage["extract"]["calls"] < 1:
        out.append("no usage recorded for extract")
    for stage, u in usage.items():
        if u["calls"] and (u["prompt_tokens"] <= 0 or u["latency_s"] <= 0):
            out.append(f"{stage}: {u['calls']} call(s) but tokens {u['prompt_tokens']} / latency {u['latency_s']}")
    return out


def fabricated(trail: dict[str, Any]) -> tuple[int, int]:
    """(quotes the model proposed that were not found in the PDF, quotes it proposed)."""
    ext = trail["extracted_requirements"]
    return sum(1 for e in ext if not e["rects"]), len(ext)
