"""Exports, one module per format, each a pure function of an ExportBundle.

`render(bundle, fmt, ...)` is the one entry point: hash re-check, safety gate, then the format.
It returns an `ExportResult` (bytes, media type, file extension) that the CLI writes to disk and
the UI offers as a download."""

from __future__ import annotations

from pydantic import BaseModel

from workbench.export.bundle import ExportBundle, ForcedExport, GateDecision, RunBundle
from workbench.export.gate import GATED_FORMATS, apply_gate
from workbench.export.integrity import recheck_hashes

FORMATS: dict[str, tuple[str, str]] = {  # name → (extension, media type)
    "json": ("json", "application/json"),
    "csv": ("csv", "text/csv"),
    "md": ("md", "text/markdown"),
    "html": ("html", "text/html"),
    "bibtex": ("bib", "application/x-bibtex"),
    "csljson": ("csl.json", "application/vnd.citationstyles.csl+json"),  # not .json: the audit trail's name
    "webannotation": ("jsonld", 'application/ld+json; profile="http://www.w3.org/ns/anno.jsonld"'),
    "pdf": ("pdf", "application/pdf"),
    "jsonl": ("jsonl", "application/x-ndjson"),
}


class ExportResult(BaseModel):
    format: str
    data: bytes
    media_type: str
    extension: str
    gate: list[GateDecision] = []
    forced: ForcedExport | None = None
    hashes_checked: int = 0

    @property
    def is_zip(self) -> bool:
        return self.media_type == "application/zip"


def render(bundle: ExportBundle, fmt: str, *, min_coverage: float, min_support: float, force: bool = False,
           reason: str | None = None, by: str | None = None) -> ExportResult:
    """Check hashes, apply the gate, then write `fmt`. Raises HashMismatchError or
    ExportBlockedError (both WorkbenchError) before anything is produced."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    checked = recheck_hashes(bundle)
    apply_gate(bundle, fmt, min_coverage=min_coverage, min_support=min_support, force=force, reason=reason, by=by)
    ext, media = FORMATS[fmt]
    data = _write(bundle, fmt)
    if isinstance(data, tuple):
        data, media = data
        ext = "zip" if media == "application/zip" else ext
    return ExportResult(format=fmt, data=data, media_type=media, extension=ext, gate=bundle.gate,
                        forced=bundle.forced, hashes_checked=checked)


def _write(bundle: ExportBundle, fmt: str):
    if fmt == "json":
        from workbench.export.audit_json import to_json
        return to_json(bundle)
    if fmt == "csv":
        from workbench.export.csv_rows import to_csv
        return to_csv(bundle)
    if fmt == "md":
        from workbench.export.report import to_markdown
        return to_markdown(bundle)
    if fmt == "html":
        from workbench.export.report import to_html
        return to_html(bundle)
    if fmt == "bibtex":
        from workbench.export.bibliography import to_bibtex
        return to_bibtex(bundle)
    if fmt == "csljson":
        from workbench.export.bibliography import to_csljson
        return to_csljson(bundle)
    if fmt == "webannotation":
        from workbench.export.web_annotation import to_webannotation
        return to_webannotation(bundle)
    if fmt == "pdf":
        from workbench.export.annotated_pdf import to_annotated_pdf
        return to_annotated_pdf(bundle)
    from workbench.export.relabel_jsonl import to_jsonl
    return to_jsonl(bundle)


__all__ = ["FORMATS", "GATED_FORMATS", "ExportBundle", "ExportResult", "RunBundle", "render"]
