"""Who owns each memory file: the registry (`registry.py`) and the readers that never let a
damaged file stop the rest (`card.py`, `scan.py`)."""
