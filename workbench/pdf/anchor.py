"""Quote anchoring over the normalised key stream (see normalize.py).

locate() accepts only exact (normalised) occurrences, tried in this order:
1. the quote's key occurs contiguously in the document's key stream;
2. ... in the stream without running headers/footers/page numbers (quotes across a page break);
3. the quote is a sequence of whole text lines on neighbouring pages, each matched character for
   character, whose order differs from ours (tables, margin labels, a footer the quote includes).
A hit maps back to doc.text offsets and to the words, whose boxes become one rect per line per
page. closest() is a separate fuzzy search that reports its similarity; it never feeds locate."""

from __future__ import annotations

import bisect
import difflib
import weakref
from array import array
from typing import TYPE_CHECKING

from workbench.models import ClosestMatch, Span
from workbench.pdf.normalize import key, key_stream

if TYPE_CHECKING:
    from workbench.pdf.document import ParsedDocument

MAX_HITS = 50  # occurrences examined when looking for one on word boundaries
MAX_PIECES = 80  # whole-line pieces a reordered quote may consist of
FIRST_PIECE_TRIES = 200  # occurrences of the quote's opening looked at
FIRST_PIECES_FOLLOWED = 12  # of those, the longest ones followed up line by line


class Matcher:
    def __init__(self, doc: ParsedDocument):
        # a weak reference: the document keeps its matcher, and a strong one back would make the
        # pair a cycle (tens of thousands of words) that only the cyclic collector frees
        self._doc = weakref.ref(doc)
        self.keys, self.offs = key_stream(doc.text)
        self._stripped: tuple[str, array] | None = None
        self._line_keys: tuple[list[int], list[int], set[int]] | None = None

    @property
    def doc(self) -> ParsedDocument:
        doc = self._doc()
        if doc is None:
            raise ReferenceError("the matcher's document is gone")
        return doc

    # --- streams ---------------------------------------------------------------------------
    @property
    def stripped(self) -> tuple[str, array]:
        """The key stream without furniture lines."""
        if self._stripped is None:
            doc, offs = self.doc, self.offs
            cuts = sorted((bisect.bisect_left(offs, doc.lines[i].start), bisect.bisect_left(offs, doc.lines[i].end))
                          for i in doc.furniture)
            keys: list[str] = []
            kept = array("i")
            pos = 0
            for a, b in cuts:  # keep the key positions between furniture lines
                if a > pos:
                    keys.append(self.keys[pos:a])
                    kept.extend(offs[pos:a])
                pos = max(pos, b)
            keys.append(self.keys[pos:])
            kept.extend(offs[pos:])
            self._stripped = ("".join(keys), kept)
        return self._stripped

    @property
    def line_keys(self) -> tuple[list[int], list[int], set[int]]:
        """Per line its [start, end) in key positions, and the set of key positions ending a line."""
        if self._line_keys is None:
            offs = self.offs
            ks = [bisect.bisect_left(offs, ln.start) for ln in self.doc.lines]
            ke = [bisect.bisect_left(offs, ln.end) for ln in self.doc.lines]
            self._line_keys = (ks, ke, set(ke))
        return self._line_keys

    # --- exact search -----------------------------------------------------------------------
    def _find(self, keys: str, offs: array, q: str, near: int | None = None) -> tuple[int, int] | None:
        """An occurrence as doc.text [start, end): on word boundaries if any is (else the first),
        the first such one, or with `near` the one starting closest to that offset."""
        text = self.doc.text
        first = None
        best: tuple[int, int] | None = None
        pos = keys.find(q)
        hits = 0
        while pos >= 0 and hits < MAX_HITS:
            start, end = offs[pos], offs[pos + len(q) - 1] + 1
            if first is None:
                first = (start, end)
            if (start == 0 or not text[start - 1].isalnum()) and (end >= len(text) or not text[end].isalnum()):
                if near is None:
                    return start, end
                if best is None or abs(start - near) < abs(best[0] - near):
                    best = (start, end)
            hits += 1
            pos = keys.find(q, pos + 1)
        return best or first

    def locate(self, quote: str, near: int | None = None) -> Span | None:
        q = key(quote)
        if not q:
            return None
        hit = self._find(self.keys, self.offs, q, near)
        if hit:
            return self.doc.span(*hit)
        if self.doc.furniture:
            keys, offs = self.stripped
            hit = self._find(keys, offs, q, near)
            if hit:
                return self.doc.span(*hit, parts=self.doc.without_furniture(*hit))
        pieces = self._pieces(q)
        if pieces:
            parts = sorted((self.offs[a], self.offs[b - 1] + 1) for a, b in pieces)
            return self.doc.span(parts[0][0], max(b for _, b in parts), parts=parts)
        return None

    # --- whole-line pieces in another order ---------------------------------------------------
    def _extend(self, kpos: int, r: str) -> int:
        """Length of the common prefix of keys[kpos:] and r."""
        keys = self.keys
        n = min(len(r), len(keys) - kpos)
        lo, hi = 0, n
        while lo < hi:  # binary search on slice equality
            mid = (lo + hi + 1) // 2
            if keys[kpos:kpos + mid] == r[:mid]:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def _cut(self, kpos: int, length: int, r: str) -> int:
        """Usable piece length: all of r, or up to the last line end inside the match."""
        if length == len(r):
            return length
        _, _, ends = self.line_keys
        for n in range(length, 0, -1):
            if kpos + n in ends:
                return n
        return 0

    def _pieces(self, q: str) -> list[tuple[int, int]] | None:
        """q as a first piece ending a line, then whole-line-start pieces on neighbouring pages."""
        keys = self.keys
        lo, hi = 0, len(q)  # longest prefix of q found anywhere: the first piece is no longer
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if keys.find(q[:mid]) >= 0:
                lo = mid
            else:
                hi = mid - 1
        if not lo:
            return None
        probe = q[:min(lo, 12)]
        starts: list[tuple[int, int]] = []
        pos = keys.find(probe)
        while pos >= 0 and len(starts) < FIRST_PIECE_TRIES:
            n = self._cut(pos, self._extend(pos, q), q)
            if n:
                starts.append((n, pos))
            pos = keys.find(probe, pos + 1)
        for n, pos in sorted(starts, key=lambda t: -t[0])[:FIRST_PIECES_FOLLOWED]:  # longest first
            rest = self._continue(q[n:], pos + n, [(pos, pos + n)])
            if rest is not None:
                return rest
        return None

    def _continue(self, r: str, after: int, pieces: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
        if not r:
            return pieces
        if len(pieces) >= MAX_PIECES:
            return None
        ks, _, _ = self.line_keys
        doc = self.doc
        page = doc.page_at(self.offs[after - 1])
        lo_page, hi_page = max(1, page - 1), min(len(doc.pages), page + 1)
        lo = bisect.bisect_left(ks, bisect.bisect_left(self.offs, doc.pages[lo_page - 1].start))
        hi = bisect.bisect_right(ks, bisect.bisect_left(self.offs, doc.pages[hi_page - 1].end))
        used = {a for a, _ in pieces}
        best = 0
        best_at = -1
        for li in range(lo, min(hi, len(ks))):
            k = ks[li]
            if k in used or k >= len(self.keys) or self.keys[k] != r[0]:
                continue
            n = self._cut(k, self._extend(k, r), r)
            if n > best:
                best, best_at = n, k
        if not best:
            return None
        return self._continue(r[best:], best_at + best, pieces + [(best_at, best_at + best)])

    # --- fuzzy --------------------------------------------------------------------------------
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
