"""Changing a memory file from outside the product, in a test."""

from __future__ import annotations

import os
from pathlib import Path


def save_as_an_editor(file: Path, data: bytes) -> None:
    """Write `data` to `file` the way git, sync tools and most editors save: a new file renamed
    into place, so its folder's time moves and the next `maintain` looks at it. (A rewrite in
    place is found by the hourly look instead: tests/unit/test_slice_files.py.)"""
    file.parent.mkdir(parents=True, exist_ok=True)
    staged = file.with_name(f".{file.name}.saving")
    staged.write_bytes(data)
    os.replace(staged, file)
