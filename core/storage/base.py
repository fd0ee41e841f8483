"""The storage protocol every backend implements, and the per-step write batch.

A step opens a `WriteBatch` over a `Snapshot` (one consistent read view: for GitHub one
recursive tree listing), reads through it (pending writes first: read-your-writes), queues
changes and commits them as one batch (one git commit). A change is a `Put` (this exact
text), a `PutBytes` (these exact bytes: a picture), an `Update` (a function of the file's current
text) or a `Delete`. A file is bytes; `read` is its UTF-8 text (InvalidInput for a file that is
not UTF-8, such as a picture) and `read_bytes` its bytes, whichever way it was written. On a
conflict the backend re-reads the new head and re-evaluates every `Update` against it, so two
writers appending turns to the same slice both survive; that is why turn-carrying files are
written as Updates.
An `Update` returning the text unchanged (or None) writes nothing, and a batch that changes
nothing makes no commit — which is what makes re-running a step harmless.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, cast, runtime_checkable

from core.errors import InvalidInput
from core.storage.changes import (
    Change,
    Content,
    Delete,
    Put,
    PutBytes,
    Resolved,
    Update,
    UpdateFn,
    blob_sha,
    bytes_of,
    encoded,
    require_memory_path,
    resolve_batch,
    resolve_changes,
    text_of,
)
from core.storage.paths import MemoryPath

__all__ = [
    "Change",
    "Content",
    "Delete",
    "Put",
    "PutBytes",
    "Resolved",
    "Update",
    "UpdateFn",
    "blob_sha",
    "bytes_of",
    "encoded",
    "require_memory_path",
    "resolve_batch",
    "resolve_changes",
    "text_of",
]


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
        """The file's text, or None when it does not exist (InvalidInput when not UTF-8)."""
        ...

    def read_bytes(self, path: MemoryPath) -> bytes | None:
        """The file's bytes, or None when it does not exist (the same size cap as `read`)."""
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


@runtime_checkable
class Stamped(Protocol):
    """A reader that can tell a file changed without reading or hashing it (a local folder)."""

    def stamp_of(self, path: MemoryPath) -> str | None: ...


class Browsable(Protocol):
    """A reader that lists one folder's own entries without walking below it (a local folder,
    where an unchanged folder costs one stat): a caller that knows which subfolders cannot
    hold what it looks for walks only the others (core/search/reader.py `slice_paths`)."""

    def entries(self, folder: MemoryPath) -> tuple[Sequence[MemoryPath], Sequence[MemoryPath]]:
        """(the folders, the files) directly in `folder`, sorted; dot-names and linked folders
        left out, as `list` does. Both empty when it does not exist."""
        ...


def folder_times(reader: object, prefix: MemoryPath) -> Mapping[str, int] | None:
    """Every folder below `prefix` → its mtime in ns (-1: not to be trusted this time), when the
    reader is a local folder (`LocalSnapshot.folder_times`); None when it cannot tell. A folder's
    time moves when a file in it is added, removed or renamed into place, not when one is
    rewritten in place: a caller relying on it also looks at every file now and then."""
    times = getattr(reader, "folder_times", None)
    return None if times is None else cast("Mapping[str, int] | None", times(prefix))


def change_token(reader: object, path: MemoryPath) -> str | None:
    """A token that changes whenever the file changes (it may also change when the file did
    not): the reader's cheap stamp when it has one, else the blob sha (free on GitHub, where
    it comes with the listing). None when the file does not exist or the reader cannot tell."""
    stamp = getattr(reader, "stamp_of", None)  # not isinstance(…, Stamped): called per file, and slow
    return stamp(path) if stamp is not None else version_of(reader, path)


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


class BytesReader(Reader, Protocol):
    """A reader that also reads a file's bytes (a Snapshot, a WriteBatch): pictures, export."""

    def read_bytes(self, path: MemoryPath) -> bytes | None: ...


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


def is_hidden(path: str) -> bool:
    """Whether any segment starts with a dot: never listed (editor state, our temp files)."""
    return any(seg.startswith(".") for seg in path.split("/"))


@dataclass
class _Pending:
    """What the batch's reads see of one path it changes: the text as of the changes applied
    so far (`known` once the snapshot was read or a Put / Delete set it), the changes queued
    since, and whether any Delete was queued (a listing must ask whether the file is gone)."""

    text: Content | None = None
    known: bool = False
    queued: list[Change] = field(default_factory=list)
    deleted: bool = False

    def add(self, change: Change) -> None:
        if isinstance(change, Put | PutBytes | Delete):  # last write wins: earlier ones no longer matter
            self.text, self.known, self.queued = change.apply(None), True, []
            self.deleted = self.deleted or isinstance(change, Delete)
        else:
            self.queued.append(change)

    def resolve(self, snapshot: Snapshot, path: MemoryPath) -> Content | None:
        """Apply what was queued since the last read, each change once (a raising Update stays
        queued, so the next read raises again)."""
        if not self.known:
            self.text, self.known = snapshot.read(path), True  # only Updates are queued: text
        while self.queued:
            new = self.queued[0].apply(text_of(path, self.text))
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
        if entry is None:
            return self.snapshot.read(path)
        return text_of(path, entry.resolve(self.snapshot, path))

    def read_bytes(self, path: MemoryPath) -> bytes | None:
        entry = self._pending().get(path)
        if entry is None:
            return self.snapshot.read_bytes(path)
        return bytes_of(entry.resolve(self.snapshot, path))

    def list(self, prefix: MemoryPath) -> list[MemoryPath]:
        listed = self.snapshot.list(prefix)
        touched = [p for p in self._pending() if p.is_under(prefix)]
        if not touched:
            return list(listed)
        # Only a pending change can add a file; reading every listed file would cost one read
        # per file (10,000 slices → 10,000 reads) just to list them.
        present = set(listed)
        created = [p for p in touched if p not in present and self._content(p) is not None]
        gone = {p for p in touched if p in present and self._overlay[p].deleted and self._content(p) is None}
        if gone:
            listed = [p for p in listed if p not in gone]
        return sorted([*listed, *created]) if created else list(listed)

    def version_of(self, path: MemoryPath) -> str | None:
        """The file's blob sha as this batch sees it (a pending change is hashed, not fetched)."""
        if path in self._pending():
            content = self._content(path)
            return None if content is None else blob_sha(content)
        return self.snapshot.version_of(path)

    def folder_times(self, prefix: MemoryPath) -> Mapping[str, int] | None:
        """`folder_times` of the snapshot, with every folder holding a queued change (or
        about to) marked -1: its time says nothing of what this batch will write there."""
        times = folder_times(self.snapshot, prefix)
        if times is None:
            return None
        marked = dict(times)
        for path in self._pending():
            if path.is_under(prefix):
                folder = path.value
                while "/" in folder and len(folder) > len(prefix.value):
                    folder = folder.rsplit("/", 1)[0]
                    marked[folder] = -1
        return marked

    def stamp_of(self, path: MemoryPath) -> str | None:
        """`change_token` as this batch sees it (a pending change: its blob sha; one that cannot
        be evaluated over a damaged file, which then stays as it is: the file's own token)."""
        if path in self._pending():
            try:
                return self.version_of(path)
            except InvalidInput:
                pass
        return change_token(self.snapshot, path)

    def _content(self, path: MemoryPath) -> Content | None:
        """A pending path's content as queued (text or bytes)."""
        return self._overlay[path].resolve(self.snapshot, path)

    def prefetch(self, paths: Iterable[MemoryPath]) -> int:
        """Let a remote snapshot fetch these files at once (no-op for local backends)."""
        snap = self.snapshot
        return snap.prefetch(paths) if isinstance(snap, Prefetching) else 0

    def put(self, path: MemoryPath, text: str) -> None:
        self.changes.append(Put(path, text))

    def put_bytes(self, path: MemoryPath, data: bytes) -> None:
        self.changes.append(PutBytes(path, data))

    def update(self, path: MemoryPath, fn: UpdateFn, needed: Callable[[], bool] | None = None) -> None:
        """Queue `fn` over the file's text at the commit (`needed`: see `Update`)."""
        self.changes.append(Update(path, fn, needed))

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
