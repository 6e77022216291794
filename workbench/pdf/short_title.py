"""A document's short title, for naming it in an answer that spans several documents ("In the
Adams Golf Endorsement Agreement: …"): its bibliographic title when its first pages state a
short one, else its file name cleaned. EDGAR exhibit names ("ADAMSGOLFINC_03_21_2005-EX-10.17-
ENDORSEMENT AGREEMENT.PDF") become company + kind, the company written as the document's own
text writes it ("Adams Golf", not "ADAMSGOLF"). Titles hold no full stop, so a sentence that
names one is still one sentence."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from pathlib import PurePath

from workbench.models import Document

MAX_TITLE = 70  # longer bibliographic titles are not short: the file name speaks instead
_SMALL = frozenset("a an and as at between by for from in of on or the to with".split())  # noqa: SIM905
_SUFFIX = re.compile(r"[\s,_-]*(?:INC|CORP|CORPORATION|LLC|L\.L\.C|PLC|LTD|LP|CO|COMPANY|SA|NV|AG|HOLDINGS?)\.?$", re.I)
# COMPANY_MM_DD_YYYY-EX-10.17-KIND, Company_YYYYMMDD_FORM_EX-10.1_NNN_EX-10.1_Kind
_EDGAR_OLD = re.compile(r"^(?P<co>.+?)_\d{2}_\d{2}_\d{4}-EX-[\w.]+-\s*(?P<kind>.+)$", re.I)
_EDGAR_NEW = re.compile(r"^(?P<co>.+?)_\d{8}_[^_]+_EX-[\w.]+_\d+_EX-[\w.]+_(?P<kind>.+)$", re.I)
_BETWEEN = re.compile(r"\s+(?:(?:by\s+and\s+)?between|among|dated)\s+.*$", re.I)


def _words_title(s: str) -> str:
    """ALL-CAPS words in title case ("ENDORSEMENT AGREEMENT" → "Endorsement Agreement"); words
    in mixed case (a brand: "BioPharma", "ATP") and words with digits stay as written."""
    out = []
    for i, w in enumerate(s.split()):
        if w.isupper() and len(w) > 1 and not any(c.isdigit() for c in w):
            w = w.lower() if i and w.lower() in _SMALL else w.capitalize()
            w = re.sub(r"-([a-z])", lambda m: "-" + m.group(1).upper(), w)  # "Co-branding" → "Co-Branding"
        out.append(w)
    return " ".join(out)


def _as_written(name: str, text: str) -> str | None:
    """The company as the document writes it: its letters found in the text with spaces or
    punctuation between ("ADAMSGOLF" → "ADAMS GOLF" or "Adams Golf")."""
    letters = re.sub(r"[^A-Za-z0-9]", "", name)
    if len(letters) < 3 or not text:
        return None
    pattern = r"\b" + r"[\s.,&'-]{0,2}".join(map(re.escape, letters)) + r"\b"
    m = re.search(pattern, text[:20000], re.I)
    return _words_title(" ".join(re.sub(r"[,.](?=\s|$)", " ", m.group(0)).split())) if m else None


def _company(name: str, text: str) -> str:
    """The file name's company without its legal form ("ADAMSGOLFINC" → "Adams Golf"): the
    shortest of the name and the name less one or two legal-form suffixes that the text writes;
    none written, the name less one suffix, split at case changes ("AgapeAtpCorp" → "Agape Atp")."""
    names = [name.strip(" _,")]
    for _ in range(2):
        shorter = _SUFFIX.sub("", names[-1]).strip(" _,")
        if shorter and shorter != names[-1]:
            names.append(shorter)
    for n in reversed(names):
        found = _as_written(n, text)
        if found:
            return found
    fallback = names[1] if len(names) > 1 else names[0]
    return _words_title(re.sub(r"(?<=[a-z])(?=[A-Z])", " ", re.sub(r"[_,]+", " ", fallback)).strip())


def _clean(s: str) -> str:
    s = re.sub(r"\(\d+\)\s*$", "", s)  # "AGREEMENT(1)"
    s = re.sub(r"\s*,\s*(?:19|20)\d\d\s*$", "", s)  # "AGENCY AGREEMENT , 2009"
    s = s.split("_ ")[0]  # "Co-Branding Agreement_ Marketing Agreement_ …": the first kind
    s = _BETWEEN.sub("", s)
    s = re.sub(r"(?<!\d)\.(?!\d)", " ", s)  # no full stop: "Inc." would end the sentence
    return " ".join(s.replace("_", " ").split()).strip(" -,")


def from_filename(filename: str, text: str = "") -> str:
    """A cleaned file name: company (as the text writes it) and the kind of agreement."""
    stem = PurePath(filename).stem if PurePath(filename).suffix.lower() == ".pdf" else filename
    stem = " ".join(stem.split())
    m = _EDGAR_OLD.match(stem) or _EDGAR_NEW.match(stem)
    if m:
        return f"{_company(m.group('co'), text)} {_words_title(_clean(m.group('kind')))}".strip()
    if " - " in stem:  # "Array BioPharma Inc. - LICENSE, DEVELOPMENT AND … AGREEMENT"
        company, kind = stem.split(" - ", 1)
        company = _SUFFIX.sub("", company.strip(" ,."))
        return f"{_clean(company)} {_words_title(_clean(kind))}".strip()
    return _words_title(_clean(stem)) or filename


def short_title(document: Document, text: str = "", bib_title: str | None = None) -> str:
    """The document's short title: its bibliographic (or metadata) title cut before "between …"
    when that is short, else its cleaned file name."""
    named = from_filename(document.filename, text)
    for title in (bib_title, document.title):
        t = _clean(title or "")
        if 8 <= len(t) <= MAX_TITLE and not re.search(r"\.(?:docx?|pdf|rtf)$|^(?:microsoft|untitled)", title or "", re.I):
            if _letters(t) in _letters(named):  # the kind alone ("Sponsorship Agreement"): the file name says whose
                return named
            return _words_title(t)
    return named


def _letters(s: str) -> str:
    return re.sub(r"[^a-z0-9]", "", s.lower())


def short_titles(docs: Iterable[tuple[Document, str, str | None]]) -> dict[str, str]:
    """Short titles by document id, each distinct: two documents that would share one are told
    apart by their file names."""
    docs = list(docs)
    titles = {d.id: short_title(d, text, bib) for d, text, bib in docs}
    same = Counter(titles.values())
    for d, _, _ in docs:
        if same[titles[d.id]] > 1:
            titles[d.id] = f"{titles[d.id]} ({_clean(PurePath(d.filename).stem)})"
    return titles
