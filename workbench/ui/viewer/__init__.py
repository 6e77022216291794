"""The lazy PDF viewer with exact highlight overlays."""

from workbench.ui.viewer.component import (
    ViewerDocument,
    evidence_highlights,
    highlights_for,
    pdf_viewer,
    viewer_documents,
)

__all__ = ["ViewerDocument", "evidence_highlights", "highlights_for", "pdf_viewer", "viewer_documents"]
