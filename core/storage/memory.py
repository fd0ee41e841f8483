"""An in-memory storage backend: the demo overlay's write side and the tests' plain fake."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.errors import ReadOnly
from core.storage.base import (
    Change,
    CommitResult,
    Content,
    Snapshot,
    blob_sha,
    bytes_of,
    is_hidden,
    require_memory_path,
    resolve_batch,
    text_of,
)
from core.storage.paths import MemoryPath, check_size


@dataclass
class MemorySnapshot:
    """A frozen copy of the files at one version."""

    files: dict[MemoryPath, Content]
    version: str | None

    def read(self, path: MemoryPath) -> str | None:
        return text_of(path, self._content(path))

    def read_bytes(self, path: MemoryPath) -> bytes | None:
        return bytes_of(self._content(path))

    def _content(self, path: MemoryPath) -> Content | None:
        content = self.files.get(require_memory_path(path))
        if content is not None:
            check_size(path, content)
        return content

    def list(self, prefix: MemoryPath) -> list[MemoryPath]:
        return sorted(p for p in self.files if p.is_under(prefix) and p != prefix and not is_hidden(p.value))

    def version_of(self, path: MemoryPath) -> str | None:
        text = self.files.get(path)
        return None if text is None else blob_sha(text)


@dataclass
class InMemoryStorage:
    """Files in a dict (text or bytes); each commit bumps a counter and is recorded in `commits`."""

    files: dict[MemoryPath, Content] = field(default_factory=dict)
    read_only: bool = False
    name: str = "memory"
    demo: bool = False
    commits: list[tuple[str, tuple[MemoryPath, ...]]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def snapshot(self) -> MemorySnapshot:
        with self._lock:
            return MemorySnapshot(dict(self.files), str(len(self.commits)))

    def commit(self, changes: Sequence[Change], message: str, base: Snapshot | None = None) -> CommitResult:
        if self.read_only:
            raise ReadOnly("This memory is read-only.")
        with self._lock:
            resolved = resolve_batch(changes, self.files.get, self.files.__contains__)
            if not resolved:
                return CommitResult(version=str(len(self.commits)))
            written = resolved.written
            self.files.update(written)
            for path in resolved.deleted:
                del self.files[path]
            self.commits.append((message, tuple(sorted([*written, *resolved.deleted]))))
            return CommitResult(
                version=str(len(self.commits)), written=tuple(sorted(written)), deleted=resolved.deleted
            )

    @classmethod
    def from_texts(cls, files: dict[str, str]) -> InMemoryStorage:
        return cls({MemoryPath(k): v for k, v in files.items()})
