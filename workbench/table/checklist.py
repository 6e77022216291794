"""Checklists: one question a line, optionally labelled ("Governing law: Which law governs …?"),
and what kind of short answer each question wants."""

from __future__ import annotations

import re
from pathlib import Path

from workbench.errors import WorkbenchError
from workbench.models import QuestionKind, TableColumn

CHECKLISTS = Path(__file__).resolve().parents[1] / "checklists"
BUILT_IN = {"contract": CHECKLISTS / "contract.txt"}
MAX_LABEL_WORDS = 6

_YES_NO = re.compile(r"^(?:is|are|does|do|did|can|could|may|might|must|shall|should|will|would|has|have|was|were)\b",
                     re.IGNORECASE)
_QUESTION_OPENER = re.compile(r"^(?:what|which|who|whom|whose|when|where|why|how)\b", re.IGNORECASE)
# what a question names decides the fact its short answer reads; first match wins
_KINDS: list[tuple[QuestionKind, re.Pattern[str]]] = [
    ("jurisdiction", re.compile(r"\b(?:governing law|govern(?:s|ed|ing)?|jurisdiction|venue|which (?:state|country)|"
                                r"laws? of)\b", re.IGNORECASE)),
    ("percent", re.compile(r"\b(?:percent(?:age)?|royalty rate|interest rate)\b", re.IGNORECASE)),
    ("amount", re.compile(r"\b(?:how much|amount|fee|fees|price|payment|dollars?|sum)\b", re.IGNORECASE)),
    ("date", re.compile(r"\b(?:date|dated|when)\b", re.IGNORECASE)),
    ("duration", re.compile(r"\b(?:how long|term|period|duration|notice period|days|months|years)\b", re.IGNORECASE)),
]


def question_kind(question: str, label: str = "") -> QuestionKind:
    """yes_no for a question that opens with is/does/may/…; else the fact its words name
    (jurisdiction, percent, amount, date, duration), read from the question and then its label;
    else text (the short answer is the clause itself)."""
    if _YES_NO.match(question.strip()):
        return "yes_no"
    for text in (question, label):
        for kind, rx in _KINDS:
            if rx.search(text):
                return kind
    return "text"


def parse_checklist(text: str) -> list[TableColumn]:
    """Columns from checklist text: one question a line; "Label: question" names the column (a
    label of at most MAX_LABEL_WORDS words that does not read as a question itself), else the question is its own
    label. Blank lines and lines starting with # are skipped; a repeated label is refused."""
    out: list[TableColumn] = []
    for raw in text.splitlines():
        line = " ".join(raw.split())
        if not line or line.startswith("#"):
            continue
        label, sep, rest = line.partition(": ")
        if sep and rest.strip() and "?" not in label and len(label.split()) <= MAX_LABEL_WORDS \
                and not _QUESTION_OPENER.match(label):
            key, question = label.strip(), rest.strip()
        else:
            key, question = line, line
        if any(c.key.casefold() == key.casefold() for c in out):
            raise WorkbenchError(f"the checklist names the column {key!r} twice: give each question its own label")
        out.append(TableColumn(key=key, question=question, kind=question_kind(question, key)))
    if not out:
        raise WorkbenchError("the checklist has no question: one question a line (\"Label: question\")")
    return out


def built_in(name: str = "contract") -> list[TableColumn]:
    """A checklist shipped with the workbench (BUILT_IN)."""
    if name not in BUILT_IN:
        raise WorkbenchError(f"no built-in checklist {name!r}: use one of {', '.join(BUILT_IN)}")
    return parse_checklist(BUILT_IN[name].read_text(encoding="utf-8"))


def read_checklist(source: str) -> list[TableColumn]:
    """A built-in checklist's name, or a text file's path."""
    if source in BUILT_IN:
        return built_in(source)
    p = Path(source)
    if not p.is_file():
        raise WorkbenchError(f"{source}: no such checklist file (or use the built-in: {', '.join(BUILT_IN)})")
    return parse_checklist(p.read_text(encoding="utf-8"))
