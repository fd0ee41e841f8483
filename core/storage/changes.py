"""A batch's changes (`Put`, `PutBytes`, `Update`, `Delete`), a file's content (text or bytes),
and how a batch is evaluated against the current files (`resolve_batch`): shared by every
backend through `core/storage/base.py`, which re-exports all of it."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.errors import InvalidInput, PathDenied
from core.storage.paths import MemoryPath, check_size

UpdateFn = Callable[[str | None], str | None]
# A file's content as a backend holds it: text (stored as UTF-8) or raw bytes.
Content = str | bytes


@dataclass(frozen=True)
class Put:
    """Write exactly this text."""

    path: MemoryPath
    text: str

    def apply(self, base: str | None) -> str | None:
        return self.text


@dataclass(frozen=True)
class PutBytes:
    """Write exactly these bytes (a picture: the one kind of file that is not text)."""

    path: MemoryPath
    data: bytes

    def apply(self, base: str | None) -> bytes:
        return self.data


@dataclass(frozen=True)
class Update:
    """Write `fn(current text)`; `fn` returns None (or the same text) to leave the file alone.

    `needed`, when given, is asked at the commit before the file is read: False leaves the file
    alone unread (a slice's appendix.md when the core.md change before it moved nothing out, so
    a damaged appendix never stops a message from being saved).
    """

    path: MemoryPath
    fn: UpdateFn
    needed: Callable[[], bool] | None = None

    def apply(self, base: str | None) -> str | None:
        return self.fn(base)

    def skipped(self) -> bool:
        return self.needed is not None and not self.needed()


@dataclass(frozen=True)
class Delete:
    """Remove the file (nothing happens when it does not exist). Only forgetting deletes."""

    path: MemoryPath

    def apply(self, base: str | None) -> str | None:
        return None


Change = Put | PutBytes | Update | Delete


def encoded(content: Content) -> bytes:
    """The bytes a backend stores for `content`."""
    return content.encode("utf-8") if isinstance(content, str) else content


def text_of(path: MemoryPath, content: Content | None) -> str | None:
    """`content` as text: InvalidInput (never a lossy decode) when its bytes are not UTF-8."""
    if content is None or isinstance(content, str):
        return content
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f'File "{path}" is not UTF-8 text; memory files must be UTF-8 (a picture is read as bytes).'
        ) from exc


def bytes_of(content: Content | None) -> bytes | None:
    """`content` as bytes (None stays None)."""
    return None if content is None else encoded(content)


def require_memory_path(path: object) -> MemoryPath:
    """Refuse anything but a validated `MemoryPath` (a raw string never reaches a backend)."""
    if not isinstance(path, MemoryPath):
        raise PathDenied(f"Storage accepts only validated memory paths, not {path!r}.")
    return path


def blob_sha(content: Content) -> str:
    """Git's blob id of a file (text as UTF-8): the version every backend reports for it."""
    data = encoded(content)
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def resolve_changes(
    changes: Sequence[Change],
    read: Callable[[MemoryPath], Content | None],
    version: Callable[[MemoryPath], str | None] | None = None,
) -> dict[MemoryPath, Content]:
    """Evaluate changes in order against `read`, returning only files whose content changes.

    `read` gives a file's content as the backend holds it (text or bytes). Several changes to
    one path compose (each sees the previous one's result; an Update sees text, so an Update of
    a file that is not UTF-8 raises InvalidInput). A file whose first change is a Put is not read
    to compute it; with `version` (the stored blob sha, free on GitHub) it is not read to compare
    either — a 5 MB index rewritten unchanged costs nothing. Sizes are checked here, so no
    backend can write a file over the cap. A backend that can delete calls `resolve_batch`
    instead; here a Delete is refused rather than silently skipped.
    """
    if any(isinstance(c, Delete) for c in changes):
        raise InvalidInput("This storage backend cannot delete files.")
    return resolve_batch(changes, read, version=version).written


@dataclass(frozen=True)
class Resolved:
    """A batch evaluated against the current files: contents to write and files to remove."""

    written: dict[MemoryPath, Content]
    deleted: tuple[MemoryPath, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.written or self.deleted)


def resolve_batch(
    changes: Sequence[Change],
    read: Callable[[MemoryPath], Content | None],
    exists: Callable[[MemoryPath], bool] | None = None,
    version: Callable[[MemoryPath], str | None] | None = None,
) -> Resolved:
    """`resolve_changes` with deletions: a path whose last change leaves no content is deleted
    when it exists now (`exists`, else `read`; a Delete never reads the file it removes)."""
    current: dict[MemoryPath, Content | None] = {}
    for change in changes:
        require_memory_path(change.path)
        if isinstance(change, Delete):
            current[change.path] = None
            continue
        if isinstance(change, Update) and change.skipped():
            continue
        if change.path in current:
            base = current[change.path]
        else:
            base = None if isinstance(change, Put | PutBytes) else read(change.path)
        new = change.apply(text_of(change.path, base)) if isinstance(change, Update) else change.apply(None)
        current[change.path] = base if new is None else new
    written: dict[MemoryPath, Content] = {}
    deleted: list[MemoryPath] = []
    for path, content in current.items():
        if content is None:
            if exists(path) if exists else read(path) is not None:
                deleted.append(path)
            continue
        if _unchanged(path, content, read, version):
            continue
        check_size(path, content)
        written[path] = content
    return Resolved(written, tuple(sorted(deleted)))


def _unchanged(
    path: MemoryPath,
    content: Content,
    read: Callable[[MemoryPath], Content | None],
    version: Callable[[MemoryPath], str | None] | None,
) -> bool:
    if version is not None:
        return blob_sha(content) == version(path)
    try:
        stored = read(path)
    except PathDenied:  # a link out of the folder is refused, never written through
        raise
    except InvalidInput:  # a damaged file being replaced whole (a derived file rebuilt): a change
        return False
    if stored is None or type(stored) is type(content):
        return content == stored
    return encoded(content) == encoded(stored)
