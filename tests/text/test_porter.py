"""The vendored Porter stemmer stems exactly as NLTK's (the stems are in every persisted index)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from workbench.text.porter import PorterStemmer


def test_every_word_of_real_contracts_stems_as_nltk_stems_it(corpus: Path):
    from nltk.stem.porter import PorterStemmer as NltkPorter

    words: set[str] = {"dying", "skies", "news", "proceed", "generously", "a", "is"}
    for f in sorted((corpus / "cuad" / "txt").glob("*.txt"))[:40]:
        words |= set(re.findall(r"[a-z0-9]+(?:'[a-z]+)?", f.read_text(errors="ignore").lower()))
    assert len(words) > 5000
    ours, theirs = PorterStemmer(), NltkPorter()
    assert [w for w in sorted(words) if ours.stem(w) != theirs.stem(w)] == []


def test_stemming_does_not_import_nltk():
    code = "import sys; from workbench.text.terms import tokenize; tokenize('Disclosures'); print('nltk' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr
