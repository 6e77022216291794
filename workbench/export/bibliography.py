"""BibTeX and CSL-JSON entries for the cited documents, importable into Zotero. What the document
states on its first pages (Document.bib: full title, DOI, report number, the date it gives,
report or article) wins over the PDF info dictionary (title, author, creation date), which is
often a later re-export's; what neither says is left out rather than guessed. The note carries
the SHA-256 and the pages cited so a reader can find the exact file, and which pages OCR read
when the file is a scan (the quotes there are what OCR read)."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from workbench.export.bundle import ExportBundle
from workbench.export.common import authors, date_parts, doc_title, ocr_pages_note
from workbench.models import Document

# Our source types → CSL item types (Zotero maps these to Statute, Report, Document, ...).
CSL_TYPES = {"statute": "legislation", "policy": "report", "contract": "document", "paper": "article",
             "other": "document"}
_BIB_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&", "%": r"\%", "$": r"\$",
                "#": r"\#", "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]


def _title(doc: Document | None, doc_id: str) -> str:
    return (doc.bib.title if doc and doc.bib and doc.bib.title else None) or doc_title(doc, doc_id)


def _date(doc: Document | None) -> list[int]:
    """The date the document states, else the PDF's creation date."""
    if doc and doc.bib and doc.bib.issued:
        return date_parts(doc.bib.issued)
    return date_parts(doc.created if doc else None)


def _kind(doc: Document | None) -> str | None:
    """'statute' / 'contract' (legal documents, by source type), else 'report' / 'article' as
    the document presents itself, else None."""
    if doc and doc.source_type in ("statute", "contract"):
        return doc.source_type
    return doc.bib.kind if doc and doc.bib else None


def cite_keys(bundle: ExportBundle) -> dict[str, str]:
    """Document id → a readable, unique key: author surname or title word, year, then a–z."""
    keys: dict[str, str] = {}
    used: set[str] = set()
    for doc_id in _doc_ids(bundle):
        doc = bundle.document(doc_id)
        names = authors(doc.author if doc else None)
        stem = names[0].split()[-1] if names else (_title(doc, doc_id).split() or ["doc"])[0]
        stem = re.sub(r"[^a-z0-9]", "", unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode().lower())
        year = _date(doc)[:1]
        base = (stem or "doc") + (str(year[0]) if year else "")
        key, n = base, 0
        while key in used:
            key = base + chr(ord("a") + n) if n < 26 else f"{base}_{n}"
            n += 1
        used.add(key)
        keys[doc_id] = key
    return keys


def _doc_ids(bundle: ExportBundle) -> list[str]:
    """The documents that evidence was quoted from; only when nothing was quoted at all (a
    NO_AUTHORITATIVE_EVIDENCE run) the documents that were searched, so the export still says where."""
    ids = bundle.cited_document_ids()
    if not ids:
        for rb in bundle.runs:
            ids += [d for d in rb.run.document_ids if d not in ids]
    return ids


def _note(bundle: ExportBundle, doc: Document | None, doc_id: str) -> str:
    pages = bundle.pages_cited(doc_id)
    parts = [f"SHA-256 {doc_id}"]
    if doc:
        parts.insert(0, f"File {doc.filename}, {doc.pages} page{'' if doc.pages == 1 else 's'}")
    read = ocr_pages_note(doc)
    if read:
        parts.append(read)
    if pages:
        parts.append("pages cited: " + ", ".join(map(str, pages)))
    return "; ".join(parts)


def _bib_escape(value: str) -> str:
    return "".join(_BIB_SPECIAL.get(ch, ch) for ch in " ".join(value.split()))


BIBTEX_TYPES = {"report": "techreport", "article": "article"}


def to_bibtex(bundle: ExportBundle) -> bytes:
    out: list[str] = []
    keys = cite_keys(bundle)
    for doc_id, key in keys.items():
        doc = bundle.document(doc_id)
        bib = doc.bib if doc else None
        kind = _kind(doc)
        fields: list[tuple[str, str]] = [("title", "{" + _bib_escape(_title(doc, doc_id)) + "}")]
        names = authors(doc.author if doc else None)
        if names:
            # Braced: a PDF author is often an organisation ("National Institute of ...").
            fields.append(("author", " and ".join("{" + _bib_escape(n) + "}" for n in names)))
        parts = _date(doc)
        if parts:
            fields.append(("year", str(parts[0])))
        if len(parts) > 1 and 1 <= parts[1] <= 12:
            fields.append(("month", _MONTHS[parts[1] - 1]))
        if kind == "statute":
            fields.append(("type", "Statute"))
        elif kind == "contract":
            fields.append(("type", "Contract"))
        if bib and bib.report_number:
            fields.append(("number", _bib_escape(bib.report_number)))
        if kind == "report":
            fields.append(("institution", _bib_escape(bib.institution if bib and bib.institution else
                                                      (names[0] if names else "unknown"))))
        if kind == "article" and bib and bib.arxiv:
            fields += [("journal", f"arXiv preprint arXiv:{bib.arxiv}"), ("eprint", bib.arxiv),
                       ("archiveprefix", "arXiv")]
        if bib and bib.doi:
            fields.append(("doi", _bib_escape(bib.doi)))
        fields.append(("note", _bib_escape(_note(bundle, doc, doc_id))))
        # month is the standard three-letter macro, unbraced; every other value is braced
        body = ",\n".join(f"  {k} = {v}" if k == "month" else f"  {k} = {{{v}}}" for k, v in fields)
        out.append(f"@{BIBTEX_TYPES.get(kind or '', 'misc')}{{{key},\n{body}\n}}\n")
    return "\n".join(out).encode("utf-8")


def _csl_type(doc: Document | None) -> str:
    kind = _kind(doc)
    if kind == "report":
        return "report"
    if kind == "article":
        return "article" if doc and doc.bib and doc.bib.arxiv else "article-journal"  # preprint / published
    return CSL_TYPES.get(doc.source_type if doc else "other", "document")


def csl_items(bundle: ExportBundle) -> list[dict[str, Any]]:
    items = []
    for doc_id, key in cite_keys(bundle).items():
        doc = bundle.document(doc_id)
        bib = doc.bib if doc else None
        item: dict[str, Any] = {
            "id": key,
            "type": _csl_type(doc),
            "title": _title(doc, doc_id),
            "note": _note(bundle, doc, doc_id),
        }
        if _kind(doc) == "contract":
            item["genre"] = "Contract"
        names = authors(doc.author if doc else None)
        if names:
            item["author"] = [{"literal": n} for n in names]
        parts = _date(doc)
        if parts:
            item["issued"] = {"date-parts": [parts]}
        if bib and bib.doi:
            item["DOI"] = bib.doi
        if bib and bib.report_number:
            item["number"] = bib.report_number
        if bib and bib.institution:
            item["publisher"] = bib.institution
        if bib and bib.arxiv:
            item["URL"] = f"https://arxiv.org/abs/{bib.arxiv}"
        if doc:
            item["number-of-pages"] = str(doc.pages)
            item["medium"] = "PDF"
        pages = bundle.pages_cited(doc_id)
        if pages:
            item["page"] = ", ".join(map(str, pages))
        items.append(item)
    return items


def to_csljson(bundle: ExportBundle) -> bytes:
    return json.dumps(csl_items(bundle), ensure_ascii=False, indent=2).encode("utf-8")
