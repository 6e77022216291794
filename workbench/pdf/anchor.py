"""Quote anchoring over the normalised key stream (see normalize.py).

locate(): the quote's key must occur contiguously in the document's key stream — first with
everything, then with running headers/footers/page numbers left out (quotes across a page
break). A hit maps back to doc.text offsets and to the words, whose boxes become one rect per
line per page. closest(): a clearly separate fuzzy search that reports its similarity."""

from __future__ import annotations

import difflib
from array import array
from typing import TYPE_CHECKING

from workbench.models import ClosestMatch, Span
from workbench.pdf.normalize import key, key_stream

if TYPE_CHECKING:
    from workbench.pdf.document import ParsedDocument

MAX_HITS = 50  # occurrences examined when looking for one on word boundaries


class Matcher:
    def __init__(self, doc: ParsedDocument):
        self.doc = doc
        self.keys, self.offs = key_stream(doc.text)
        self._stripped: tuple[str, array] | None = None

    @property
    def stripped(self) -> tuple[str, array]:
        """The key stream without furniture lines."""
        if self._stripped is None:
            doc = self.doc
            skip = bytearray(len(doc.text))
            for li in doc.furniture:
                ln = doc.lines[li]
                skip[ln.start:ln.end] = b"\x01" * (ln.end - ln.start)
            keep = [i for i, o in enumerate(self.offs) if not skip[o]]
            self._stripped = ("".join(self.keys[i] for i in keep), array("i", (self.offs[i] for i in keep)))
        return self._stripped

    def _find(self, keys: str, offs: array, q: str) -> tuple[int, int] | None:
        """First occurrence on word boundaries (else the first at all) as doc.text [start, end)."""
        text = self.doc.text
        first = None
        pos = keys.find(q)
        hits = 0
        while pos >= 0 and hits < MAX_HITS:
            start, end = offs[pos], offs[pos + len(q) - 1] + 1
            if first is None:
                first = (start, end)
            if (start == 0 or not text[start - 1].isalnum()) and (end >= len(text) or not text[end].isalnum()):
                return start, end
            hits += 1
            pos = keys.find(q, pos + 1)
        return first

    def locate(self, quote: str) -> Span | None:
        q = key(quote)
        if not q:
            return None
        hit = self._find(self.keys, self.offs, q)
        if hit:
            return self.doc.span(*hit)
        if not self.doc.furniture:
            return None
        keys, offs = self.stripped
        hit = self._find(keys, offs, q)
        if hit:
            return self.doc.span(*hit, skip_lines=self.doc.furniture)
        return None

    def closest(self, quote: str, *, min_similarity: float = 0.5) -> ClosestMatch | None:
        """Best approximate occurrence: vote for alignments with 8-character shingles of the
        quote's key, then score the best windows with difflib."""
        q = key(quote)
        if len(q) < 4 or not self.keys:
            return None
        keys, offs = self.keys, self.offs
        n = len(q)
        k = 8 if n >= 16 else max(3, n // 2)
        votes: dict[int, int] = {}
        step = max(1, (n - k) // 40)
        for i in range(0, n - k + 1, step):
            sh = q[i:i + k]
            pos = keys.find(sh)
            found = 0
            while pos >= 0 and found < 20:
                a = (pos - i) // 4 * 4
                votes[a] = votes.get(a, 0) + 1
                found += 1
                pos = keys.find(sh, pos + 1)
        if not votes:
            return None
        best: tuple[float, int, int] | None = None
        for a, _ in sorted(votes.items(), key=lambda kv: -kv[1])[:5]:
            lo, hi = max(0, a - n // 4), min(len(keys), a + n + n // 4)
            sm = difflib.SequenceMatcher(None, q, keys[lo:hi], autojunk=False)
            blocks = [b for b in sm.get_matching_blocks() if b.size]
            if not blocks:
                continue
            s, e = lo + blocks[0].b, lo + blocks[-1].b + blocks[-1].size
            sim = difflib.SequenceMatcher(None, q, keys[s:e], autojunk=False).ratio()
            if best is None or sim > best[0]:
                best = (sim, s, e)
        if best is None or best[0] < min_similarity:
            return None
        sim, s, e = best
        return ClosestMatch(span=self.doc.span(offs[s], offs[e - 1] + 1), similarity=round(sim, 4))
