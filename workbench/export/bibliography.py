"""BibTeX and CSL-JSON entries for the cited documents, importable into Zotero. Metadata comes
from the PDF (title, author, creation date); what a PDF does not say is left out rather than
guessed. The note carries the SHA-256 and the pages cited so a reader can find the exact file."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from workbench.export.bundle import ExportBundle
from workbench.export.common import authors, date_parts, doc_title
from workbench.models import Document

# Our source types → CSL item types (Zotero maps these to Statute, Report, Document, ...).
CSL_TYPES = {"statute": "legislation", "policy": "report", "contract": "document", "paper": "article",
             "other": "document"}
_BIB_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&", "%": r"\%", "$": r"\$",
                "#": r"\#", "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]


def cite_keys(bundle: ExportBundle) -> dict[str, str]:
    """Document id → a readable, unique key: author surname or title word, year, then a–z."""
    keys: dict[str, str] = {}
    used: set[str] = set()
    for doc_id in _doc_ids(bundle):
        doc = bundle.document(doc_id)
        names = authors(doc.author if doc else None)
        stem = names[0].split()[-1] if names else (doc_title(doc, doc_id).split() or ["doc"])[0]
        stem = re.sub(r"[^a-z0-9]", "", unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode().lower())
        year = date_parts(doc.created if doc else None)[:1]
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
    if pages:
        parts.append("pages cited: " + ", ".join(map(str, pages)))
    return "; ".join(parts)


def _bib_escape(value: str) -> str:
    return "".join(_BIB_SPECIAL.get(ch, ch) for ch in " ".join(value.split()))


def to_bibtex(bundle: ExportBundle) -> bytes:
    out: list[str] = []
    keys = cite_keys(bundle)
    for doc_id, key in keys.items():
        doc = bundle.document(doc_id)
        fields: list[tuple[str, str]] = [("title", "{" + _bib_escape(doc_title(doc, doc_id)) + "}")]
        names = authors(doc.author if doc else None)
        if names:
            # Braced: a PDF author is often an organisation ("National Institute of ...").
            fields.append(("author", " and ".join("{" + _bib_escape(n) + "}" for n in names)))
        parts = date_parts(doc.created if doc else None)
        if parts:
            fields.append(("year", str(parts[0])))
        if len(parts) > 1 and 1 <= parts[1] <= 12:
            fields.append(("month", _MONTHS[parts[1] - 1]))
        if doc and doc.source_type == "statute":
            fields.append(("type", "Statute"))
        fields.append(("note", _bib_escape(_note(bundle, doc, doc_id))))
        # month is the standard three-letter macro, unbraced; every other value is braced
        body = ",\n".join(f"  {k} = {v}" if k == "month" else f"  {k} = {{{v}}}" for k, v in fields)
        out.append(f"@misc{{{key},\n{body}\n}}\n")
    return "\n".join(out).encode("utf-8")


def csl_items(bundle: ExportBundle) -> list[dict[str, Any]]:
    items = []
    for doc_id, key in cite_keys(bundle).items():
        doc = bundle.document(doc_id)
        item: dict[str, Any] = {
            "id": key,
            "type": CSL_TYPES.get(doc.source_type if doc else "other", "document"),
            "title": doc_title(doc, doc_id),
            "note": _note(bundle, doc, doc_id),
        }
        names = authors(doc.author if doc else None)
        if names:
            item["author"] = [{"literal": n} for n in names]
        parts = date_parts(doc.created if doc else None)
        if parts:
            item["issued"] = {"date-parts": [parts]}
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
