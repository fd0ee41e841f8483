"""A minimal memory folder for the recall/maintain commands until `core.storage.local` lands.

Reads go straight to disk (so a snapshot is only as consistent as the folder); a commit writes
the changed files in place. Swap for `LocalStorage(root)` once the storage part is merged.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from core.errors import PathDenied
from core.memory.paths import MemoryPath
from core.storage.base import Change, CommitResult, Snapshot, resolve_changes


@dataclass
class FolderSnapshot:
    """Reads under one memory root (the folder that holds `memory/`)."""

    root: Path
    version: str | None = None

    def read(self, path: MemoryPath) -> str | None:
        file = self.root / path.value
        try:
            return file.read_text(encoding="utf-8")
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None

    def list(self, prefix: MemoryPath) -> list[MemoryPath]:
        base = self.root / prefix.value
        found = []
        for dirpath, _dirs, files in os.walk(base):
            for name in files:
                rel = Path(dirpath, name).relative_to(self.root).as_posix()
                try:
                    found.append(MemoryPath(rel))
                except PathDenied:
                    continue
        return sorted(found)


@dataclass
class FolderStorage:
    """A memory folder on disk, written file by file."""

    root: Path
    read_only: bool = False
    name: str = "folder"

    def snapshot(self) -> FolderSnapshot:
        return FolderSnapshot(self.root)

    def commit(self, changes: Sequence[Change], message: str, base: Snapshot | None = None) -> CommitResult:
        snap = self.snapshot()
        written = resolve_changes(changes, snap.read)
        for path, text in written.items():
            file = self.root / path.value
            file.parent.mkdir(parents=True, exist_ok=True)
            tmp = file.with_suffix(file.suffix + ".tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(file)
        return CommitResult(version=None, written=tuple(sorted(written)))
