"""Builds the bundled sample memory (`sample/memory/`) from its readable source (`sample/source/`)."""
