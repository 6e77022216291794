"""Active content in a PDF: anything that acts without the reader choosing it, or reaches outside
the document. The workbench never runs any of it (MuPDF does not execute JavaScript, and nothing
here follows an action), but a PDF exported from the workbench is opened by other readers that
might. So ingest warns by name about each kind a document carries (find) and the annotated-PDF
export removes all of it (strip); the highlights, text and page content stay as they are.

What counts (issue 37): JavaScript (actions, /JS, the /Names /JavaScript tree); actions run on
opening the document or a page, or on a form or annotation event (/OpenAction, /AA); every action
but a jump within the document: links to other files (GoToR, GoToE: a UNC path hands a Windows
reader's credentials to its host), Launch, URI, ImportData, SubmitForm, ResetForm, Named, Hide,
multimedia (Rendition, Sound, Movie, RichMediaExecute); XFA forms (their XML holds scripts); the
/EmbeddedFiles tree, /EmbeddedFile streams, file-attachment, rich-media, screen, sound, movie and
3D annotations. Found by reading every object's dictionary (names come back decoded). Ordinary
web links (http, https, mailto) are not warned about, as most documents have them, but the
export removes them too: no link in it leaves the document."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pymupdf

# Every action type of PDF 2.0 (ISO 32000-2, 12.6.4); only KEPT survives the export.
ACTION_TYPES = frozenset({"GoTo", "GoToR", "GoToE", "GoToDp", "Launch", "Thread", "URI", "Sound", "Movie", "Hide",
                          "Named", "SubmitForm", "ResetForm", "ImportData", "JavaScript", "SetOCGState", "Rendition",
                          "Trans", "GoTo3DView", "RichMediaExecute", "ECMAScript"})
KEPT = frozenset({"GoTo"})  # a jump to a place in this document
REMOTE = ("GoToR", "GoToE", "GoToDp")
MEDIA_ACTIONS = frozenset({"Rendition", "Sound", "Movie", "RichMediaExecute", "GoTo3DView"})
DROPPED_ANNOTS = frozenset({"FileAttachment", "RichMedia", "Screen", "Sound", "Movie", "3D"})
WEB = ("http", "https", "mailto")
_SCHEME = re.compile(r"^\s*([A-Za-z][A-Za-z0-9+.-]*):")
# Keys whose value is active content wherever they appear; set to null in the export.
ACTIVE_KEYS = ("AA", "OpenAction", "XFA", "JS", "Next", "PA", "EF", "RichMediaContent", "RichMediaSettings",
               "Collection")
# The catalog's name trees and dictionaries that hold active content.
CATALOG_KEYS = ("OpenAction", "AA", "URI", "Collection", "AcroForm/XFA", "Names/JavaScript", "Names/EmbeddedFiles",
                "Names/AlternatePresentations", "Names/Renditions")

_JS = re.compile(r"/S\s*/(?:JavaScript|ECMAScript)\b|/JS\b|/JavaScript\s*(?:\d+\s+\d+\s+R|<<)")
_ACTION = re.compile(r"/S\s*/([A-Za-z0-9]+)")
_SUBTYPE = re.compile(r"/Subtype\s*/([A-Za-z0-9]+)")
_AA = re.compile(r"/AA\s*(?:<<|\d+\s+\d+\s+R)")
_XFA = re.compile(r"/XFA\s*(?:\[|<<|\(|\d+\s+\d+\s+R)")
_EMBEDDED_STREAM = re.compile(r"/Type\s*/EmbeddedFile\b")
_ATTACHMENT = re.compile(r"/Subtype\s*/FileAttachment\b")
_REF = re.compile(r"(\d+)\s+\d+\s+R")


@dataclass(frozen=True)
class ActiveContent:
    javascript: bool = False
    launch: bool = False
    on_open: bool = False  # /OpenAction other than a jump, or any /AA
    remote: tuple[str, ...] = ()  # GoToR, GoToE, GoToDp found
    file_links: bool = False  # URI actions to something other than a web or mail address
    import_data: bool = False
    submit_form: bool = False
    xfa: bool = False
    multimedia: tuple[str, ...] = ()  # action types and annotation subtypes found
    embedded_files: int = 0  # files in the /EmbeddedFiles name tree
    attachments: int = 0  # file-attachment annotations

    def __bool__(self) -> bool:
        return any((self.javascript, self.launch, self.on_open, self.remote, self.file_links, self.import_data,
                    self.submit_form, self.xfa, self.multimedia, self.embedded_files, self.attachments))

    def warning(self) -> str | None:
        """One sentence for the Documents page naming each kind, or None when there is nothing to say."""
        parts = []
        for present, name in ((self.javascript, "JavaScript"),
                              (self.launch, "launch actions (they open other programs or files)"),
                              (self.on_open, "actions run on opening the document or a page (OpenAction, AA)"),
                              (self.remote, f"links to other files or network shares ({', '.join(self.remote)})"),
                              (self.file_links, "links to local files or network shares (URI)"),
                              (self.import_data, "form data imports (ImportData)"),
                              (self.submit_form, "form submissions (SubmitForm)"),
                              (self.xfa, "an XFA form (it can hold scripts)"),
                              (self.multimedia, f"multimedia ({', '.join(self.multimedia)})")):
            if present:
                parts.append(name)
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
    objects = list(_objects(doc))
    text = "\n".join(src for _xref, src in objects)
    actions = {a for a in _ACTION.findall(text) if a in ACTION_TYPES}
    subtypes = set(_SUBTYPE.findall(text))
    attachments = len(_ATTACHMENT.findall(text))
    embedded_streams = len(_EMBEDDED_STREAM.findall(text))
    try:
        embedded = doc.embfile_count()
    except Exception:  # noqa: BLE001
        embedded = 0
    # Each attachment holds one embedded file stream; any stream beyond those is an embedded file.
    embedded = max(embedded, embedded_streams - attachments)
    return ActiveContent(
        javascript=bool(_JS.search(text)), launch="Launch" in actions,
        on_open=bool(_AA.search(text)) or not _jumps_only(doc, *_key(doc, _catalog(doc), "OpenAction")),
        remote=tuple(a for a in REMOTE if a in actions), file_links=_links_to_files(doc, objects),
        import_data="ImportData" in actions, submit_form="SubmitForm" in actions, xfa=bool(_XFA.search(text)),
        multimedia=tuple(sorted((actions & MEDIA_ACTIONS) | (subtypes & (DROPPED_ANNOTS - {"FileAttachment"})))),
        embedded_files=embedded, attachments=attachments)


def _links_to_files(doc: pymupdf.Document, objects: list[tuple[int, str]]) -> bool:
    """Whether a URI action points to a network path (\\\\host, //host) or by a scheme other than a web or
    mail address (file:, smb:, ...). A fragment or relative reference ("#C79", left by HTML converters)
    is not warned about; the export removes those links all the same."""
    for xref, src in objects:
        if "/URI" not in src:
            continue
        for key in ("URI", "A/URI", "PA/URI", "OpenAction/URI"):
            kind, value = doc.xref_get_key(xref, key)
            if kind == "string" and _reaches_outside(value):
                return True
    return False


def _reaches_outside(uri: str) -> bool:
    scheme = _SCHEME.match(uri)
    return uri.strip().startswith(("\\\\", "//")) or (scheme is not None and scheme.group(1).lower() not in WEB)


def strip(doc: pymupdf.Document) -> None:
    """Remove all active content from the open document, in place (see the module notes): every
    action but a jump within the document, every trigger (open actions, additional actions), XFA,
    embedded files and the annotations that carry files or media. Highlights, text, page content
    and links within the document are kept."""
    for name in doc.embfile_names():
        doc.embfile_del(name)
    cat = _catalog(doc)
    for key in CATALOG_KEYS if cat else ():
        if _key(doc, cat, key)[0] != "null":
            doc.xref_set_key(cat, key, "null")
    for pno in range(doc.page_count):
        _drop_annots(doc, doc.page_xref(pno))
    for xref, src in _objects(doc):
        kind, value = doc.xref_get_key(xref, "S")
        if kind == "name" and value[1:] in ACTION_TYPES and value[1:] not in KEPT \
                and doc.xref_get_key(xref, "Type")[1] != "/StructElem":
            doc.update_object(xref, "<<>>")  # an action dictionary of its own: make it do nothing
            continue
        if doc.xref_get_key(xref, "Subtype")[1][1:] in DROPPED_ANNOTS:
            doc.update_object(xref, "<<>>")  # an annotation no page lists any more
            continue
        for key in ACTIVE_KEYS:
            if doc.xref_get_key(xref, key)[0] != "null":
                doc.xref_set_key(xref, key, "null")
        kind, value = doc.xref_get_key(xref, "A")
        if kind != "null" and not _jumps_only(doc, kind, value):
            doc.xref_set_key(xref, "A", "null")
        if _EMBEDDED_STREAM.search(src):
            doc.update_object(xref, "<<>>")
            doc.update_stream(xref, b"", new=True)


def _catalog(doc: pymupdf.Document) -> int:
    """The catalog's xref, 0 when the file has none MuPDF can find (a damaged trailer)."""
    try:
        cat = doc.pdf_catalog()
    except Exception:  # noqa: BLE001
        return 0
    return cat if 0 < cat < doc.xref_length() else 0


def _key(doc: pymupdf.Document, xref: int, key: str) -> tuple[str, str]:
    """doc.xref_get_key, ("null", "null") for an object that cannot be read."""
    try:
        return doc.xref_get_key(xref, key)
    except Exception:  # noqa: BLE001
        return "null", "null"


def _drop_annots(doc: pymupdf.Document, page_xref: int) -> None:
    """Take file-attachment and media annotations off the page's /Annots."""
    kind, value = doc.xref_get_key(page_xref, "Annots")
    target = None
    if kind == "xref":  # the array is an object of its own
        target = int(value.split()[0])
        value = doc.xref_object(target, compressed=True)
    elif kind != "array":
        return
    refs = [int(r) for r in _REF.findall(value)]
    keep = [r for r in refs if doc.xref_get_key(r, "Subtype")[1][1:] not in DROPPED_ANNOTS]
    if len(keep) == len(refs):
        return
    array = "[" + " ".join(f"{r} 0 R" for r in keep) + "]"
    if target is None:
        doc.xref_set_key(page_xref, "Annots", array)
    else:
        doc.update_object(target, array)


def _jumps_only(doc: pymupdf.Document, kind: str, value: str) -> bool:
    """Whether an action entry (absent, a destination array, an inline dictionary or a reference)
    does nothing but jump within the document."""
    if kind in ("null", "array"):
        return True
    if kind == "xref":
        try:
            value = doc.xref_object(int(value.split()[0]), compressed=True)
        except Exception:  # noqa: BLE001 - an unreadable action: treat it as active
            return False
        if value.lstrip().startswith("["):
            return True  # a destination
    found = [a for a in _ACTION.findall(value) if a in ACTION_TYPES]
    return bool(found) and set(found) <= KEPT and "/Next" not in value
