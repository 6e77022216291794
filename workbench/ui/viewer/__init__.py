"""The lazy PDF viewer with exact highlight overlays."""

from workbench.ui.viewer.component import highlights_for, pdf_viewer

__all__ = ["highlights_for", "pdf_viewer"]
