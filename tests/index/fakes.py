"""A stand-in with the PDF area's ParsedDocument shape (.text, .segments(), .document.id),
built from paragraphs: one segment per sentence, headings as their own segments."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from types import SimpleNamespace


@dataclass
class FakeSegment:
    start: int
    end: int
    page: int
    text: str
    heading: str | None = None
    kind: str = "sentence"


class FakeDoc:
    def __init__(self, pages: list[list[str]]):
        """pages: per page, a list of blocks; a block starting with '# ' is a heading."""
        self.text = ""
        self._segments: list[FakeSegment] = []
        heading = None
        for pno, blocks in enumerate(pages, start=1):
            for block in blocks:
                if block.startswith("# "):
                    heading = block[2:]
                    self._add(heading, pno, heading, "heading")
                else:
                    for sentence in re.split(r"(?<=[.;:])\s+", block.strip()):
                        self._add(sentence, pno, heading, "sentence")
                self.text += "\n"
        self.document = SimpleNamespace(id=hashlib.sha256(self.text.encode()).hexdigest())

    def _add(self, s: str, page: int, heading: str | None, kind: str) -> None:
        if self.text and not self.text.endswith("\n"):
            self.text += " "
        start = len(self.text)
        self.text += s
        self._segments.append(FakeSegment(start, len(self.text), page, s, heading, kind))

    def segments(self) -> list[FakeSegment]:
        return list(self._segments)
