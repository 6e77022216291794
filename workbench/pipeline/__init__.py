"""See DESIGN.md for this layer."""
