"""Opening PDF bytes safely: every way a file can be unusable becomes a WorkbenchError that says
what to do. Nothing here extracts text; see extract.py."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.config import Settings, defaults
from workbench.errors import (
    DamagedPdfError,
    EmptyFileError,
    NotAPdfError,
    PasswordRequiredError,
    TooLargeError,
    TooManyPagesError,
    WrongPasswordError,
)
from workbench.pdf.mupdf import mupdf

if TYPE_CHECKING:
    import pymupdf


@dataclass
class Opened:
    doc: pymupdf.Document
    data: bytes
    filename: str
    sha256: str
    encrypted: bool
    warnings: list[str] = field(default_factory=list)


def read_source(source: str | Path | bytes, filename: str | None) -> tuple[bytes, str]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), filename or "document.pdf"
    path = Path(source)
    if not path.exists():
        raise NotAPdfError(f"{path}: no such file; check the path")
    if path.is_dir():
        raise NotAPdfError(f"{path}: is a folder, not a PDF file")
    return path.read_bytes(), filename or path.name


def open_bytes(data: bytes, filename: str, *, password: str | None, settings: Settings | None = None) -> Opened:
    """Validate and open; raise the specific PdfError for each kind of bad input. Limits come from
    `settings` (the service and CLI pass theirs); without settings, the built-in defaults."""
    settings = settings if settings is not None else defaults()
    max_upload_mb, max_pages = settings.max_upload_mb, settings.max_pages
    if not data:
        raise EmptyFileError(f"{filename} is empty (0 bytes): upload the complete PDF file")
    mb = len(data) / (1024 * 1024)
    if mb > max_upload_mb:
        raise TooLargeError(
            f"{filename} is {mb:.1f} MB, over the {max_upload_mb:g} MB limit: split the PDF "
            "or raise WORKBENCH_MAX_UPLOAD_MB"
        )
    if b"%PDF-" not in data[:1024]:
        raise NotAPdfError(f"{filename} is not a PDF (no %PDF header): export or save it as PDF first")
    mupdf().TOOLS.reset_mupdf_warnings()
    try:
        doc = mupdf().open(stream=data, filetype="pdf")
    except Exception as exc:  # MuPDF raises its own FzError subclasses
        raise DamagedPdfError(
            f"{filename} is damaged beyond repair ({' '.join(str(exc).split())[:120]}): "
            "get an intact copy of the file"
        ) from exc
    warnings: list[str] = []
    encrypted = bool(doc.needs_pass or doc.is_encrypted)
    if doc.needs_pass:
        if not password:
            doc.close()
            raise PasswordRequiredError(
                f"{filename} is encrypted and opens only with its password"
            )
        if not doc.authenticate(password):
            doc.close()
            raise WrongPasswordError(f"{filename}: the password is wrong: check it and try again")
    if doc.page_count == 0:
        doc.close()
        raise DamagedPdfError(f"{filename} is damaged: no readable pages (truncated?); get an intact copy of the file")
    if doc.page_count > max_pages:
        n = doc.page_count
        doc.close()
        raise TooManyPagesError(
            f"{filename} has {n} pages, over the {max_pages} page limit: split the PDF "
            "or raise WORKBENCH_MAX_PAGES"
        )
    if getattr(doc, "is_repaired", False):
        warnings.append(f"{filename} was damaged and repaired on open: check highlights against the page")
    return Opened(doc, data, filename, hashlib.sha256(data).hexdigest(), encrypted, warnings)


def pdf_date(value: str | None) -> str | None:
    """'D:20200806083000-04'00'' -> '2020-08-06' (ISO date), else None."""
    if not value:
        return None
    v = value[2:] if value.startswith("D:") else value
    digits = "".join(ch for ch in v[:8] if ch.isdigit())
    if len(digits) < 4 or digits[:4] == "0000":  # "D:00000101..." is a placeholder, not a date
        return None
    if len(digits) >= 8 and "01" <= digits[4:6] <= "12" and "01" <= digits[6:8] <= "31":
        return f"{digits[:4]}-{digits[4:6]}-{digits[6:8]}"
    return digits[:4]
