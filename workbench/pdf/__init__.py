"""The PDF layer: open PDFs (errors users can act on), text with character offsets, word boxes,
segments and headings, quote anchoring, page images. See DESIGN.md."""

from workbench.pdf.document import Line, PageText, ParsedDocument, Segment, Word, open_pdf
from workbench.pdf.render import PageImages

__all__ = ["Line", "PageImages", "PageText", "ParsedDocument", "Segment", "Word", "open_pdf"]
