"""Which memory folder a command works on, opened as storage."""

from __future__ import annotations

import os
from pathlib import Path

from functions.cli.app import fail
from functions.cli.folder import FolderStorage


def memory_root(option: Path | None) -> Path:
    """`--memory`, else $PREVIOUSLY_MEMORY, else ./memory-data."""
    return option or Path(os.environ.get("PREVIOUSLY_MEMORY") or "memory-data")


def open_folder(option: Path | None, must_exist: bool = True) -> FolderStorage:
    """The memory folder as storage; a clear error when it does not hold a memory."""
    root = memory_root(option)
    if must_exist and not (root / "memory").is_dir():
        raise fail(
            f"no memory at {root} (expected {root / 'memory'}/); "
            "pass --memory DIR, the folder that holds memory/"
        )
    return FolderStorage(root)
