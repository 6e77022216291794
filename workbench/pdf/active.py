"""Active content in a PDF: JavaScript, launch actions, embedded files and file attachments.

The workbench never runs any of it (MuPDF does not execute JavaScript, and nothing here follows
an action), but a PDF exported from the workbench is opened by other readers that might. So
ingest warns about what a document carries (find) and the annotated-PDF export removes it
(strip); the highlights, text and page content stay as they are.

Found by reading every object's dictionary: an action whose /S is /JavaScript or /Launch, a /JS
entry, the document's /Names /JavaScript tree, the /EmbeddedFiles name tree, /EmbeddedFile streams and /FileAttachment annotations. (Scripts inside
an XFA form's XML are not looked for.)"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.pdf.mupdf import mupdf

if TYPE_CHECKING:
    import pymupdf

_JS = re.compile(r"/S\s*/JavaScript\b|/JS\b|/JavaScript\s*(?:\d+\s+\d+\s+R|<<)")
_LAUNCH = re.compile(r"/S\s*/Launch\b")
_EMBEDDED_STREAM = re.compile(r"/Type\s*/EmbeddedFile\b")
_ATTACHMENT = re.compile(r"/Subtype\s*/FileAttachment\b")
_DANGEROUS_ACTION = re.compile(r"/S\s*/(?:JavaScript|Launch)\b|/JS\b")


@dataclass(frozen=True)
class ActiveContent:
    javascript: bool = False
    launch: bool = False
    embedded_files: int = 0  # files in the /EmbeddedFiles name tree
    attachments: int = 0  # file-attachment annotations

    def __bool__(self) -> bool:
        return self.javascript or self.launch or bool(self.embedded_files) or bool(self.attachments)

    def warning(self) -> str | None:
        """One sentence for the Documents page, or None when there is nothing to say."""
        parts = []
        if self.javascript:
            parts.append("JavaScript")
        if self.launch:
            parts.append("launch actions (they open other programs or files)")
        if self.embedded_files:
            parts.append(f"{self.embedded_files} embedded file{'s' if self.embedded_files != 1 else ''}")
        if self.attachments:
            parts.append(f"{self.attachments} file attachment{'s' if self.attachments != 1 else ''}")
        if not parts:
            return None
        listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        return (f"carries active content: {listed}. The workbench never runs or opens it, and the annotated "
                "PDF export leaves it out; do not open the original in a reader that runs it")


def _objects(doc: pymupdf.Document):
    for xref in range(1, doc.xref_length()):
        try:
            src = doc.xref_object(xref, compressed=False)  # names come back decoded (#4A -> J)
        except Exception:  # noqa: BLE001 - a broken object holds nothing we can act on
            continue
        if src:
            yield xref, src


def find(doc: pymupdf.Document) -> ActiveContent:
    """What active content the open document carries (one pass over its object dictionaries)."""
    text = "\n".join(src for _xref, src in _objects(doc))
    attachments = len(_ATTACHMENT.findall(text))
    embedded_streams = len(_EMBEDDED_STREAM.findall(text))
    try:
        embedded = doc.embfile_count()
    except Exception:  # noqa: BLE001
        embedded = 0
    # Each attachment holds one embedded file stream; any stream beyond those is an embedded file.
    embedded = max(embedded, embedded_streams - attachments)
    return ActiveContent(javascript=bool(_JS.search(text)), launch=bool(_LAUNCH.search(text)),
                         embedded_files=embedded, attachments=attachments)


def strip(doc: pymupdf.Document) -> None:
    """Remove JavaScript, launch actions, embedded files and attachments from the open document,
    in place. Links to pages and web addresses, highlights and page content are kept."""
    for page in doc:
        for annot in list(page.annots(types=[mupdf().PDF_ANNOT_FILE_ATTACHMENT]) or []):
            page.delete_annot(annot)
    for name in doc.embfile_names():
        doc.embfile_del(name)
    cat = doc.pdf_catalog()
    for key in ("Names/JavaScript", "Names/EmbeddedFiles"):
        if doc.xref_get_key(cat, key)[0] != "null":
            doc.xref_set_key(cat, key, "null")
    for xref, src in _objects(doc):
        if doc.xref_get_key(xref, "S")[1] in ("/JavaScript", "/Launch") or doc.xref_get_key(xref, "JS")[0] != "null":
            # an action dictionary of its own: make it do nothing
            doc.update_object(xref, "<<>>")
            continue
        for key in ("AA", "OpenAction", "A", "Next"):
            kind, value = doc.xref_get_key(xref, key)
            if kind == "null":
                continue
            if key == "AA" or _dangerous(doc, kind, value):
                doc.xref_set_key(xref, key, "null")
        if _EMBEDDED_STREAM.search(src):
            doc.update_object(xref, "<<>>")
            doc.update_stream(xref, b"", new=True)


def _dangerous(doc: pymupdf.Document, kind: str, value: str) -> bool:
    """Whether an action entry (inline dictionary, array or reference) runs script or launches."""
    if kind == "xref":
        try:
            value = doc.xref_object(int(value.split()[0]), compressed=True)
        except Exception:  # noqa: BLE001
            return False
    return bool(_DANGEROUS_ACTION.search(value))
