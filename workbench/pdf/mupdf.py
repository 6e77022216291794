"""pymupdf, imported on first use and set up once. A warm question reads a cached parsed document
and never opens a PDF, so it need not pay pymupdf's import (~0.1 s of a CLI call); whoever opens
one first also turns MuPDF's repair chatter from stderr into warnings the caller collects."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType


@lru_cache(maxsize=1)
def mupdf() -> ModuleType:
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)
    pymupdf.TOOLS.mupdf_display_warnings(False)
    return pymupdf
