"""The matching key: a quote and the document are compared as streams of NFKC-normalised,
casefolded letters and digits only. Whitespace, line breaks, punctuation, curly quotes, dashes and
end-of-line hyphens all vanish, ligatures expand (ﬁ → fi); every key character remembers the
offset of the document character it came from, so a match maps back to doc.text exactly."""

from __future__ import annotations

import unicodedata
from array import array

_cache: dict[str, str] = {}


def char_key(ch: str) -> str:
    k = _cache.get(ch)
    if k is None:
        # NFKD: ligatures expand (ﬁ → fi) and accents come apart so they can be dropped; PDFs
        # often draw a diaeresis as its own glyph ("na¨ıve"), so "naïve" must key as "naive".
        n = unicodedata.normalize("NFKD", ch).casefold().replace("ı", "i")
        k = "".join(c for c in n if c.isalnum())
        _cache[ch] = k
    return k


# An ASCII character that is not a letter or a digit (str.isalnum), mapped to nothing by str.translate.
_ASCII_NOT_ALNUM = dict.fromkeys(c for c in range(128) if not chr(c).isalnum())


def key(text: str) -> str:
    """The key of a quote: what must appear, contiguously, in the document's key stream."""
    if text.isascii():  # its letters and digits, lower-cased: one pass in C, not a call a character
        return text.lower().translate(_ASCII_NOT_ALNUM)
    get = _cache.get
    return "".join(get(c) or char_key(c) for c in text)


def key_stream(text: str) -> tuple[str, array]:
    """(key string, offsets) for the document text: offsets[i] is the doc.text index of key[i]."""
    chars: list[str] = []
    offs = array("i")
    for i, ch in enumerate(text):
        if ch.isascii():
            if ch.isalnum():
                chars.append(ch.lower())
                offs.append(i)
            continue
        k = char_key(ch)
        for c in k:
            chars.append(c)
            offs.append(i)
    return "".join(chars), offs
