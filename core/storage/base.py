"""The storage protocol every backend implements, and the per-step write batch.

A step opens a `WriteBatch` over a `Snapshot` (one consistent read view: for GitHub one
recursive tree listing), reads through it (pending writes first: read-your-writes), queues
changes and commits them as one batch (one git commit). A change is either a `Put` (this exact
text) or an `Update` (a function of the file's current text). On a conflict the backend
re-reads the new head and re-evaluates every `Update` against it, so two writers appending
turns to the same slice both survive; that is why turn-carrying files are written as Updates.
An `Update` returning the text unchanged (or None) writes nothing, and a batch that changes
nothing makes no commit — which is what makes re-running a step harmless.
"""

from __future__ import annotations

import builtins
import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from core.errors import InvalidInput, PathDenied
from core.storage.paths import MemoryPath, check_size

UpdateFn = Callable[[str | None], str | None]


@dataclass(frozen=True)
class Put:
    """Write exactly this text."""

    path: MemoryPath
    text: str

    def apply(self, base: str | None) -> str | None:
        return self.text


@dataclass(frozen=True)
class Update:
    """Write `fn(current text)`; `fn` returns None (or the same text) to leave the file alone."""

    path: MemoryPath
    fn: UpdateFn

    def apply(self, base: str | None) -> str | None:
        return self.fn(base)


@dataclass(frozen=True)
class Delete:
    """Remove the file (nothing happens when it does not exist). Only forgetting deletes."""

    path: MemoryPath

    def apply(self, base: str | None) -> str | None:
        return None


Change = Put | Update | Delete


@dataclass(frozen=True)
class CommitResult:
    """What a commit did: the new version (None when nothing changed) and the paths written."""

    version: str | None
    written: tuple[MemoryPath, ...] = ()
    attempts: int = 1
    deleted: tuple[MemoryPath, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.written or self.deleted)


class Snapshot(Protocol):
    """A read view of the memory at one version."""

    @property
    def version(self) -> str | None: ...

    def read(self, path: MemoryPath) -> str | None:
        """The file's text, or None when it does not exist."""
        ...

    def list(self, prefix: MemoryPath) -> list[MemoryPath]:
        """Every file under `prefix` (recursively), sorted by path."""
        ...

    def version_of(self, path: MemoryPath) -> str | None:
        """The file's git blob sha (see `blob_sha`), or None when it does not exist.

        Cheap on GitHub (it comes with the tree listing), so a cache keyed by it can tell
        which files changed without fetching them.
        """
        ...


@runtime_checkable
class Prefetching(Protocol):
    """A snapshot whose reads are remote: it can fetch many files at once before they are read."""

    def prefetch(self, paths: Iterable[MemoryPath]) -> int:
        """Fetch the texts of `paths` not held yet (several at a time, or one archive); returns
        how many were fetched. Reading them afterwards costs nothing."""
        ...


@runtime_checkable
class Versioned(Protocol):
    """A reader that knows a file's blob sha without reading it (snapshots, write batches)."""

    def version_of(self, path: MemoryPath) -> str | None: ...


def prefetch(reader: object, paths: Iterable[MemoryPath]) -> int:
    """Ask `reader` to fetch `paths` ahead when it can (remote snapshots); else do nothing."""
    return reader.prefetch(paths) if isinstance(reader, Prefetching) else 0


def version_of(reader: object, path: MemoryPath) -> str | None:
    """The file's blob sha when `reader` can tell without reading; None when it cannot."""
    return reader.version_of(path) if isinstance(reader, Versioned) else None


@dataclass(frozen=True)
class Budget:
    """What a remote backend may still ask of its server before the limit resets."""

    remaining: int
    limit: int
    reset_at: float  # epoch seconds


@runtime_checkable
class Budgeted(Protocol):
    """A backend with a request budget (GitHub's rate limit)."""

    def budget(self) -> Budget | None:
        """The budget the last answer reported; None before the first request."""
        ...


def request_budget(storage: object) -> Budget | None:
    """The storage's request budget, or None when it has none (local folders, memory)."""
    return storage.budget() if isinstance(storage, Budgeted) else None


class Reader(Protocol):
    """Anything that reads memory files: a Snapshot, or a WriteBatch (which sees its own writes)."""

    def read(self, path: MemoryPath) -> str | None: ...

    def list(self, prefix: MemoryPath) -> builtins.list[MemoryPath]: ...


class Storage(Protocol):
    """A memory repository: local folder, GitHub repository, or the demo persona."""

    name: str
    read_only: bool
    # True for the demo persona: writes land in an in-memory overlay and are never saved.
    demo: bool

    def snapshot(self) -> Snapshot:
        """A fresh read view at the current head."""
        ...

    def commit(self, changes: Sequence[Change], message: str, base: Snapshot | None = None) -> CommitResult:
        """Apply `changes` as one batch; re-evaluate Updates and retry on a conflict.

        Raises ConflictError when retries are exhausted, TooLarge for a file over the cap,
        ReadOnly for read-only storage (the demo overlay accepts writes in memory instead).
        """
        ...


def blob_sha(text: str) -> str:
    """Git's blob id of a UTF-8 text: the version every backend reports for a file."""
    data = text.encode("utf-8")
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def resolve_changes(
    changes: Sequence[Change],
    read: Callable[[MemoryPath], str | None],
    version: Callable[[MemoryPath], str | None] | None = None,
) -> dict[MemoryPath, str]:
    """Evaluate changes in order against `read`, returning only files whose text changes.

    Several changes to one path compose (each sees the previous one's result). A file whose
    first change is a Put is not read to compute it; with `version` (the stored blob sha, free
    on GitHub) it is not read to compare either — a 5 MB index rewritten unchanged costs nothing.
    Sizes are checked here, so no backend can write a file over the cap. A backend that can
    delete calls `resolve_batch` instead; here a Delete is refused rather than silently skipped.
    """
    if any(isinstance(c, Delete) for c in changes):
        raise InvalidInput("This storage backend cannot delete files.")
    return resolve_batch(changes, read, version=version).written


@dataclass(frozen=True)
class Resolved:
    """A batch evaluated against the current files: texts to write and files to remove."""

    written: dict[MemoryPath, str]
    deleted: tuple[MemoryPath, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.written or self.deleted)


def resolve_batch(
    changes: Sequence[Change],
    read: Callable[[MemoryPath], str | None],
    exists: Callable[[MemoryPath], bool] | None = None,
    version: Callable[[MemoryPath], str | None] | None = None,
) -> Resolved:
    """`resolve_changes` with deletions: a path whose last change leaves no text is deleted
    when it exists now (`exists`, else `read`; a Delete never reads the file it removes)."""
    current: dict[MemoryPath, str | None] = {}
    for change in changes:
        require_memory_path(change.path)
        if isinstance(change, Delete):
            current[change.path] = None
            continue
        if change.path in current:
            base = current[change.path]
        else:
            base = None if isinstance(change, Put) else read(change.path)
        new = change.apply(base)
        current[change.path] = base if new is None else new
    written: dict[MemoryPath, str] = {}
    deleted: list[MemoryPath] = []
    for path, text in current.items():
        if text is None:
            if exists(path) if exists else read(path) is not None:
                deleted.append(path)
            continue
        if _unchanged(path, text, read, version):
            continue
        check_size(path, text)
        written[path] = text
    return Resolved(written, tuple(sorted(deleted)))


def _unchanged(
    path: MemoryPath,
    text: str,
    read: Callable[[MemoryPath], str | None],
    version: Callable[[MemoryPath], str | None] | None,
) -> bool:
    if version is not None:
        return blob_sha(text) == version(path)
    try:
        return text == read(path)
    except PathDenied:  # a link out of the folder is refused, never written through
        raise
    except InvalidInput:  # a damaged file being replaced whole (a derived file rebuilt): a change
        return False


def is_hidden(path: str) -> bool:
    """Whether any segment starts with a dot: never listed (editor state, our temp files)."""
    return any(seg.startswith(".") for seg in path.split("/"))


def require_memory_path(path: object) -> MemoryPath:
    """Refuse anything but a validated `MemoryPath` (a raw string never reaches a backend)."""
    if not isinstance(path, MemoryPath):
        raise PathDenied(f"Storage accepts only validated memory paths, not {path!r}.")
    return path


@dataclass
class _Pending:
    """What the batch's reads see of one path it changes: the text as of the changes applied
    so far (`known` once the snapshot was read or a Put / Delete set it), the changes queued
    since, and whether any Delete was queued (a listing must ask whether the file is gone)."""

    text: str | None = None
    known: bool = False
    queued: list[Change] = field(default_factory=list)
    deleted: bool = False

    def add(self, change: Change) -> None:
        if isinstance(change, Put | Delete):  # last write wins: earlier changes no longer matter
            self.text, self.known, self.queued = change.apply(None), True, []
            self.deleted = self.deleted or isinstance(change, Delete)
        else:
            self.queued.append(change)

    def resolve(self, snapshot: Snapshot, path: MemoryPath) -> str | None:
        """Apply what was queued since the last read, each change once (a raising Update stays
        queued, so the next read raises again)."""
        if not self.known:
            self.text, self.known = snapshot.read(path), True
        while self.queued:
            new = self.queued[0].apply(self.text)
            self.text = self.text if new is None else new
            self.queued.pop(0)
        return self.text


@dataclass
class WriteBatch:
    """A step's pending writes over one snapshot, with read-your-writes.

    `changes` is what the commit sends; the reads go through an overlay of the paths changed,
    kept as changes are queued, so a read costs the same however many changes are pending and
    evaluates each Update once (against the text the batch saw at that read), not once per read.
    """

    storage: Storage
    _snapshot: Snapshot | None
    changes: list[Change] = field(default_factory=list)
    _overlay: dict[MemoryPath, _Pending] = field(default_factory=dict, init=False, repr=False)
    _synced: int = field(default=0, init=False, repr=False)
    _last: Change | None = field(default=None, init=False, repr=False)

    @classmethod
    def open(cls, storage: Storage) -> WriteBatch:
        return cls(storage, storage.snapshot())

    @property
    def snapshot(self) -> Snapshot:
        """The state the batch reads; after a commit it is taken again only when next read."""
        if self._snapshot is None:
            self._snapshot = self.storage.snapshot()
        return self._snapshot

    def _pending(self) -> dict[MemoryPath, _Pending]:
        """The overlay, caught up with `changes` (which callers may also extend directly)."""
        n = self._synced
        if n and (n > len(self.changes) or self.changes[n - 1] is not self._last):
            self._overlay, self._synced = {}, 0  # the list was cleared or replaced: start again
        for change in self.changes[self._synced :]:
            self._overlay.setdefault(change.path, _Pending()).add(change)
        self._synced = len(self.changes)
        self._last = self.changes[-1] if self.changes else None
        return self._overlay

    def read(self, path: MemoryPath) -> str | None:
        entry = self._pending().get(path)
        # A pending Delete hides the file: it is not read (it may be too large to read).
        return self.snapshot.read(path) if entry is None else entry.resolve(self.snapshot, path)

    def list(self, prefix: MemoryPath) -> list[MemoryPath]:
        listed = self.snapshot.list(prefix)
        touched = [p for p in self._pending() if p.is_under(prefix)]
        if not touched:
            return list(listed)
        # Only a pending change can add a file; reading every listed file would cost one read
        # per file (10,000 slices → 10,000 reads) just to list them.
        present = set(listed)
        created = [p for p in touched if p not in present and self.read(p) is not None]
        gone = {p for p in touched if p in present and self._overlay[p].deleted and self.read(p) is None}
        if gone:
            listed = [p for p in listed if p not in gone]
        return sorted([*listed, *created]) if created else list(listed)

    def version_of(self, path: MemoryPath) -> str | None:
        """The file's blob sha as this batch sees it (a pending change is hashed, not fetched)."""
        if path in self._pending():
            text = self.read(path)
            return None if text is None else blob_sha(text)
        return self.snapshot.version_of(path)

    def prefetch(self, paths: Iterable[MemoryPath]) -> int:
        """Let a remote snapshot fetch these files at once (no-op for local backends)."""
        snap = self.snapshot
        return snap.prefetch(paths) if isinstance(snap, Prefetching) else 0

    def put(self, path: MemoryPath, text: str) -> None:
        self.changes.append(Put(path, text))

    def update(self, path: MemoryPath, fn: UpdateFn) -> None:
        self.changes.append(Update(path, fn))

    def delete(self, path: MemoryPath) -> None:
        self.changes.append(Delete(path))

    @property
    def pending_paths(self) -> builtins.list[MemoryPath]:
        return sorted({c.path for c in self.changes})

    def commit(self, message: str) -> CommitResult:
        """Commit the pending changes as one batch; the batch is empty afterwards on success."""
        if not self.changes:
            return CommitResult(version=self.snapshot.version)
        result = self.storage.commit(list(self.changes), message, base=self.snapshot)
        self.changes.clear()
        self._overlay, self._synced, self._last = {}, 0, None
        # Most batches end at their commit: a fresh snapshot (a ref read on GitHub) waits for a read.
        self._snapshot = None
        return result
