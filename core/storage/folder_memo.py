"""The folders of a local memory as the last walk found them, kept between processes.

A folder's mtime moves whenever an entry in it is added, removed or renamed, so a folder whose
time is the one kept here still holds the same subfolders: a walk that trusts it costs one stat
per folder instead of a directory scan (10,000 slices: ~20,000 folders). `LocalSnapshot.
folder_times` uses it; a time from the last two seconds is never kept (a later change could
leave it the same). It is a cache: a missing, unreadable or foreign file is an empty memo, and a
file that cannot be written is skipped.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

SCHEMA = 1
MAX_BYTES = 64 * 1024 * 1024  # a memo past this is not read (10,000 slices: ~2 MB)
Folders = dict[str, tuple[int, tuple[str, ...]]]  # folder (under the memory root) → (mtime, subfolder names)


@dataclass(frozen=True)
class FolderMemo:
    """One memory folder's kept folder times, in `path` (a file in the user's cache folder)."""

    path: Path
    root: str  # the memory folder it describes: a memo of another folder is not used

    def load(self) -> Folders:
        try:
            if self.path.stat().st_size > MAX_BYTES:
                return {}
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(raw, dict) or raw.get("_schema") != SCHEMA or raw.get("root") != self.root:
            return {}
        folders = raw.get("folders")
        found: Folders = {}
        if isinstance(folders, dict):
            for key, row in folders.items():
                if (
                    isinstance(row, list)
                    and len(row) == 2
                    and isinstance(row[0], int)
                    and isinstance(row[1], list)
                    and all(_is_name(n) for n in row[1])
                ):
                    found[str(key)] = (row[0], tuple(row[1]))
        return found

    def save(self, folders: Mapping[str, tuple[int, tuple[str, ...]]]) -> None:
        data = {
            "_schema": SCHEMA,
            "root": self.root,
            "folders": {k: [m, list(n)] for k, (m, n) in folders.items()},
        }
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".folders-")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(data, handle, separators=(",", ":"))
                os.replace(tmp, self.path)
            except OSError:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)


def _is_name(name: object) -> bool:
    """One folder name as a directory scan gives it: never a path, a parent or a dot-name (a
    memo naming `../x` must not lead a walk out of the memory)."""
    return (
        isinstance(name, str)
        and bool(name)
        and "/" not in name
        and "\0" not in name
        and not name.startswith(".")
    )
