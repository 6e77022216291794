"""Bibliographic facts a document states about itself on its first pages: DOI, report number,
publication date, full title, the kind of publication. The PDF info dictionary is often wrong
(NIST SP 800-171r2: its creation date is the 2024 re-export, its title is cut short); the cover
says "February 2020" and prints the DOI. Read from the parsed text, conservatively: what the
pages do not say plainly is left out, never guessed."""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

from workbench.models import BibInfo

if TYPE_CHECKING:
    from workbench.pdf.document import ParsedDocument

FIRST_PAGES = 3
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december"]
_MON = "|".join(m.capitalize() for m in MONTHS) + "|" + "|".join(m[:3].capitalize() for m in MONTHS)
# A DOI as printed (Crossref's recommended pattern), cut before trailing punctuation.
_DOI = re.compile(r"\b(10\.\d{4,9}/[-._;()/:A-Za-z0-9]+)")
_ARXIV = re.compile(r"\barXiv:(\d{4}\.\d{4,5})(v\d+)?", re.I)
# A line that is only a date ("February 2020", "January 20, 2022", "20 January 2022"), or one
# introduced as the date of publication / issue.
_DATE_ONLY = re.compile(rf"^(?:(?:Published|Issued|Dated?|Publication date|Date published)\s*:?\s*)?"
                        rf"(?:(?P<d1>\d{{1,2}})\s+)?(?P<m>{_MON})\.?\s+(?:(?P<d2>\d{{1,2}}),?\s+)?(?P<y>(?:19|20)\d\d)\.?$",
                        re.I)
_NIST = re.compile(r"\bNIST\s+(Special\s+Publication|SP|FIPS(?:\s+PUB)?|Federal Information Processing Standards?"
                   r"(?:\s+Publication)?|Interagency(?:\s+or\s+Internal)?\s+Report|NISTIR|IR|Technical\s+Note|TN)"
                   r"\s+(\d{2,4}(?:-\d+[A-Za-z]?)*)", re.I)
_SERIES = {"special publication": "SP", "sp": "SP", "fips": "FIPS", "fips pub": "FIPS", "nistir": "IR", "ir": "IR",
           "technical note": "TN", "tn": "TN"}
_REVISION = re.compile(r"^\s*Revision\s+(\d+)\s*$", re.I)
_REPORT_NO = re.compile(r"\b(?:Report|Technical Report|Working Paper|Publication)\s+(?:No\.?|Number|#)\s*:?\s*"
                        r"([A-Z0-9][A-Za-z0-9./-]{1,30})")
_REPORT_WORDS = re.compile(r"\b(Special Publication|Technical Report|Working Paper|Interagency Report|"
                           r"Technical Note|White Paper|Guidelines?|Federal Information Processing Standards?)\b", re.I)
_INSTITUTIONS = ("National Institute of Standards and Technology", "World Health Organization",
                 "Internal Revenue Service", "Federal Aviation Administration")
_JUNK_TITLE = re.compile(r"^(Microsoft (Word|PowerPoint)|untitled)|\.(docx?|pdf|rtf|indd|tex)\s*$", re.I)
_STAMP = re.compile(r"arXiv:|^(Proposed Rules|Rules and Regulations|Notices|Presidential Documents)$|^\s*\d+\s*$|https?://|www\.", re.I)


def _norm(s: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", s.casefold()).split())


def _lines(parsed: ParsedDocument, pages: int) -> list[tuple[int, float, str]]:
    """(page, line height in points, text) of the first pages' lines, furniture left out."""
    furniture = parsed.furniture
    out = []
    for i, ln in enumerate(parsed.lines):
        if ln.page > pages:
            break
        if i in furniture:
            continue
        text = " ".join(parsed.text[ln.start:ln.end].split())
        if text:
            out.append((ln.page, round(ln.y1 - ln.y0, 1), text))
    return out


def _small_caps(text: str) -> str:
    """'Q WEN 2 T ECHNICAL R EPORT' (small capitals split by the extractor) → 'QWEN 2 TECHNICAL REPORT'."""
    return re.sub(r"\b([A-Z]) (?=[A-Z]{2,}\b)", r"\1", text)


def _title(lines: list[tuple[int, float, str]], meta_title: str | None) -> str | None:
    """The full title: the run of same-size lines on the first pages that holds the PDF's own
    title (so a title cut short in the metadata is completed); without one, the first page's
    largest lines when they stand out from the body text."""
    first = [x for x in lines if x[0] == lines[0][0]] if lines else []
    if meta_title and _JUNK_TITLE.search(meta_title):
        meta_title = None  # "Microsoft Word - draft3.docx": the file, not the document
    if meta_title and len(_norm(meta_title)) >= 8:
        want = _norm(meta_title)
        for i in range(len(lines)):
            run, size = [], lines[i][1]
            for j in range(i, min(i + 6, len(lines))):
                if lines[j][0] != lines[i][0] or abs(lines[j][1] - size) > 0.6:
                    break
                run.append(lines[j][2])
                joined = _norm(" ".join(run))
                if not want.startswith(joined) and not joined.startswith(want):
                    break
                if joined.startswith(want):
                    # extend over the rest of the same-size run
                    for k in range(j + 1, min(j + 4, len(lines))):
                        if lines[k][0] != lines[i][0] or abs(lines[k][1] - size) > 0.6:
                            break
                        run.append(lines[k][2])
                    full = " ".join(run)
                    return full if _norm(full) != want else None  # same words: the metadata's case stays
        return None
    if not first:
        return None
    body = Counter(h for _, h, _ in lines).most_common(1)[0][0]
    cands = [x for x in first if not _STAMP.search(x[2]) and len(x[2].split()) >= 1]
    if not cands:
        return None
    top = max(h for _, h, _ in cands)
    if top < 1.3 * body:
        return None
    run = []
    for x in first:
        if abs(x[1] - top) <= 0.6 and not _STAMP.search(x[2]):
            run.append(x[2])
        elif run:
            break
    title = _small_caps(" ".join(run))
    return title if 2 <= len(title.split()) <= 40 else None


def _date(lines: list[tuple[int, float, str]]) -> str | None:
    for _, _, text in lines:
        m = _DATE_ONLY.match(text.strip())
        if m:
            month = next(i for i, name in enumerate(MONTHS, 1) if name.startswith(m["m"][:3].lower()))
            day = m["d1"] or m["d2"]
            return f"{m['y']}-{month:02d}" + (f"-{int(day):02d}" if day else "")
    return None


def _arxiv_date(text: str) -> str | None:
    m = re.search(rf"arXiv:\S+\s+\[[^\]]+\]\s+(\d{{1,2}})\s+({_MON})\s+((?:19|20)\d\d)", text)
    if not m:
        return None
    month = next(i for i, name in enumerate(MONTHS, 1) if name.startswith(m[2][:3].lower()))
    return f"{m[3]}-{month:02d}-{int(m[1]):02d}"


# A heading that names what kind of document this is ("ENDORSEMENT AGREEMENT", "Reseller
# Agreement"); the filing's stamps around it ("Exhibit 10.7", "REDACTED COPY") are not titles.
_KIND_HEADING = re.compile(r"\b(AGREEMENT|CONTRACT|AMENDMENT|LEASE|LICEN[CS]E|MEMORANDUM|DEED|CHARTER|BY-?LAWS|"
                           r"INDENTURE|POLICY|PROCEDURES?|STANDARD|GUIDELINES?|REGULATIONS?|ACT|PLAN|TERMS)\b", re.I)
_FILING_STAMP = re.compile(r"^\s*(exhibit|schedule|annex|appendix)\b|\b(redacted|confidential|execution (copy|version)|"
                           r"portions of this|treatment requested)\b", re.I)


def _heading_title(parsed: ParsedDocument) -> str | None:
    """Without a title in the metadata or a large first line (a contract typed in one size): the
    first page's first heading that names the document's kind, its filing stamps left out."""
    first = parsed.pages[0].number if parsed.pages else 1
    for h in parsed.headings()[:12]:
        if h.page != first:
            break
        for line in h.text.splitlines():
            line = " ".join(line.split())
            if line and not _FILING_STAMP.search(line) and _KIND_HEADING.search(line) and 1 <= len(line.split()) <= 12:
                return line
    return None


def read_bibinfo(parsed: ParsedDocument, meta_title: str | None = None) -> BibInfo:
    """What the document's first pages say about it (see the module docstring)."""
    lines = _lines(parsed, FIRST_PAGES)
    # A withdrawal notice bound in front names its successor's DOI and dates: not this document's.
    notices = {p.number for p in parsed.pages[:FIRST_PAGES]
               if re.search(r"Withdrawn (NIST )?(Technical Series )?Publication|Superseding Publication",
                            parsed.text[p.start:p.end], re.I)}
    lines = [x for x in lines if x[0] not in notices]
    head = "".join(parsed.text[p.start:p.end] + "\n" for p in parsed.pages[:FIRST_PAGES] if p.number not in notices)
    info = BibInfo()
    m = _DOI.search(head)
    if m:
        info.doi = m[1].rstrip(".,;:)")
    ax = _ARXIV.search(head)
    if ax:
        info.arxiv = ax[1]
    nist = _NIST.search(head)
    if nist:
        series = _SERIES.get(" ".join(nist[1].lower().split()))
        if series is None:
            series = "FIPS" if nist[1].lower().startswith("federal") else "IR"
        number = nist[2]
        rev = None
        for i, (_, _, text) in enumerate(lines):
            if nist[0] in text or _norm(nist[0]) in _norm(text):
                for _, _, nxt in lines[i + 1:i + 3]:
                    r = _REVISION.match(nxt)
                    if r:
                        rev = r[1]
                break
        doi_tail = info.doi.rsplit("/", 1)[-1] if info.doi else ""
        dm = re.match(r"NIST\.(SP|FIPS|IR|TN)\.(.+)$", doi_tail)
        if dm and dm[2].startswith(number):
            series, number = dm[1], dm[2]  # the DOI's form is the canonical one ("800-171r2")
        elif rev:
            number += f"r{rev}"
        info.report_number = f"NIST {series} {number}"
        info.institution = "National Institute of Standards and Technology"
        info.kind = "report"
    elif fips := re.search(r"\bFIPS\s+PUB(?:LICATION)?\s+(\d{2,4}(?:-\d+)*)", head):
        info.report_number = f"FIPS {fips[1]}"
        info.kind = "report"
    else:
        rn = _REPORT_NO.search(head)
        if rn:
            info.report_number = rn[1].rstrip(".,;:")
            info.kind = "report"
    if info.institution is None:
        for name in _INSTITUTIONS:
            if name in head:
                info.institution = name
                break
    if info.kind is None:
        if info.arxiv or (info.doi and re.search(r"\bAbstract\b", head, re.I)):
            info.kind = "article"
        elif _REPORT_WORDS.search(" ".join(t for _, _, t in lines[:40])):
            info.kind = "report"
    info.issued = _date(lines) or (_arxiv_date(head) if info.arxiv else None)
    info.title = _title(lines, meta_title) or (None if meta_title else _heading_title(parsed))
    return info
