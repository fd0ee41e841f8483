"""The deterministic full-text recall floor: an index derived from the slice files."""
