"""Evidence Workbench: auditable answers over PDFs."""

__version__ = "0.1.0"
