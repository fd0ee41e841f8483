"""The local-folder backend: memory files under a root folder (the one holding `memory/`).

Reads are a live view of the disk. A commit evaluates its changes against the disk under an
inter-process lock (so two processes, or two threads, writing the same slice both keep their
turns), stages every file to a temporary sibling first and only then renames them into place
(a failed batch leaves nothing half-written), and, when the root is a git repository, makes
one git commit of exactly those files with the batch message. POSIX only (fcntl).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import stat
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import PathDenied, StorageError
from core.storage.base import (
    Change,
    CommitResult,
    Content,
    Snapshot,
    encoded,
    require_memory_path,
    resolve_batch,
    text_of,
)
from core.storage.folder_memo import FolderMemo, Folders
from core.storage.localgit import LOCK_NAME, GitCommitter, is_git_repository
from core.storage.paths import MemoryPath, size_limit, too_large
from core.storage.staging import STAGING_JOURNAL, sweep_staged, write_journal

_NEW_FILE_MODE = 0o644
_RACY_NS = 2_000_000_000
_DIR, _FILE, _OTHER = 0, 1, 2  # a listed entry: a plain folder, a regular file, anything else
Entries = list[tuple[str, int]]
Stamps = tuple[tuple[str, int], ...]  # (folder, mtime) of every folder a listing entered
Entered = list[tuple[str, int]]
Browsed = tuple[int, tuple[MemoryPath, ...], tuple[MemoryPath, ...], tuple[str, ...], tuple[str, ...]]
KEPT_TREES = 4_096  # listings of whole prefixes remembered (a search lists ~30 on every question)


@dataclass
class Listings:
    """What a storage's views remember of its folders, each entry checked by folder times.

    `folders`: folder → (mtime, entries), so a listing scans only the folders that changed;
    `trees`: prefix → (every folder entered with its mtime, the sorted paths found), so a
    prefix listed again with no folder moved costs one stat per folder and nothing else.
    """

    folders: dict[str, tuple[int, Entries]] = field(default_factory=dict)
    trees: dict[str, tuple[Stamps, tuple[MemoryPath, ...]]] = field(default_factory=dict)
    browsed: dict[str, Browsed] = field(default_factory=dict)


class LocalSnapshot:
    """A live read view of a memory folder (it has no fixed version: `version` is None)."""

    version: str | None = None

    def __init__(
        self,
        root: Path,
        versions: dict[str, tuple[tuple[int, int, int], str]] | None = None,
        listings: Listings | None = None,
        memo: FolderMemo | None = None,
    ) -> None:
        self.root = root
        self._real_root = root.resolve()
        self._plain_dirs: set[str] = set()  # folders under the root known not to be links
        self._plain_files: set[str] = set()  # regular files (not links) seen by a listing
        # Shared by a storage's views: a 5 MB index.json is hashed once, not once per batch.
        self._versions = {} if versions is None else versions
        self._listings = Listings() if listings is None else listings
        self._memo = memo  # folder times kept between processes, for `folder_times`
        self._entered: dict[str, Entered] = {}  # prefix → the folders its last walk by this view entered

    def read(self, path: MemoryPath) -> str | None:
        data = self._read_bytes(path)
        return None if data is None else decode_text(path, data)

    def read_bytes(self, path: MemoryPath) -> bytes | None:
        return self._read_bytes(path)

    def list(self, prefix: MemoryPath) -> list[MemoryPath]:
        if _mtime(f"{self.root}/{require_memory_path(prefix).value}") < 0:
            return []  # nothing there, through a link or not (a search asks for years to come)
        base = self._file(prefix)
        top = str(base)
        held = self._listings.trees.get(top)
        if held is not None and all(_mtime(folder) == mtime for folder, mtime in held[0]):
            self._entered[top] = list(held[0])
            return list(held[1])
        if not base.is_dir():
            return []
        found: list[MemoryPath] = []
        skip = len(str(self.root)) + 1
        entered: Entered = []
        for file in self._walk(top, entered):
            with contextlib.suppress(PathDenied):
                found.append(MemoryPath(file[skip:].replace(os.sep, "/")))
        found.sort()
        self._entered[top] = entered
        trees = self._listings.trees
        if all(0 <= mtime < time.time_ns() - _RACY_NS for _, mtime in entered):
            if len(trees) >= KEPT_TREES:
                trees.clear()
            trees[top] = (tuple(entered), tuple(found))
        return found

    def folder_times(self, prefix: MemoryPath) -> dict[str, int]:
        """Every folder below `prefix` (itself included), as a memory path → its mtime in ns
        (`base.FolderTimed`); -1 for one changed in the last two seconds, whose time a later
        change could keep. A folder's time moves when an entry in it is added, removed or
        renamed — every write here is a rename into place — but not when a file in it is
        rewritten in place. Free after `list(prefix)` (that walk's own folder times); else a
        walk of the folders alone (no file's path is built)."""
        base = self._file(prefix)
        top = str(base)
        if top not in self._entered and _mtime(top) >= 0 and base.is_dir():
            if self._memo is not None:
                self._entered[top] = self._walk_with_memo(top, self._memo)
            else:
                walked: Entered = []
                for _ in self._walk(top, walked):
                    pass
                self._entered[top] = walked
        entered = self._entered.get(top, [])
        skip = len(str(self.root)) + 1
        racy = time.time_ns() - _RACY_NS
        return {
            folder[skip:].replace(os.sep, "/"): (mtime if 0 <= mtime < racy else -1)
            for folder, mtime in entered
        }

    def _walk_with_memo(self, top: str, memo: FolderMemo) -> Entered:
        """The folders below `top` with their times, scanning only those whose time is not the
        one the memo kept (core/storage/folder_memo.py), and the memo brought up to date."""
        held = memo.load()
        skip = len(str(self.root)) + 1
        racy = time.time_ns() - _RACY_NS
        inside = top[skip:] + "/"
        kept: Folders = {k: v for k, v in held.items() if not (k == top[skip:] or k.startswith(inside))}
        entered: Entered = []
        stack = [top]
        while stack:
            folder = stack.pop()
            mtime = _mtime(folder)
            entered.append((folder, mtime))
            if mtime < 0:
                continue
            known = held.get(folder[skip:])
            if known is not None and known[0] == mtime and mtime < racy:
                names = known[1]
            else:
                names = tuple(p[len(folder) + 1 :] for p, kind in self._entries(folder)[1] if kind == _DIR)
            if mtime < racy:
                kept[folder[skip:]] = (mtime, names)
            stack.extend(f"{folder}/{name}" for name in names)
        if kept != held:
            memo.save(kept)
        return entered

    def entries(self, folder: MemoryPath) -> tuple[tuple[MemoryPath, ...], tuple[MemoryPath, ...]]:
        """The folders and files directly in `folder` (`base.Browsable`): one stat when it has not
        changed since a view of this storage last read it (its paths are not built again)."""
        top = f"{self.root}/{require_memory_path(folder).value}"
        if top not in self._plain_dirs:  # not met as a plain subfolder by this view: check the way
            if _mtime(top) < 0:
                return (), ()
            if not self._file(folder).is_dir():  # PathDenied when a link leads outside the root
                return (), ()
        mtime, found = self._entries(top)
        held = self._listings.browsed.get(top)
        if held is None or held[0] != mtime or mtime < 0:
            skip = len(str(self.root)) + 1
            dirs: list[MemoryPath] = []
            files: list[MemoryPath] = []
            for path, kind in found:
                with contextlib.suppress(PathDenied):
                    (dirs if kind == _DIR else files).append(MemoryPath(path[skip:].replace(os.sep, "/")))
            plain = tuple(p for p, kind in found if kind == _DIR)
            regular = tuple(p for p, kind in found if kind == _FILE)
            held = (mtime, tuple(sorted(dirs)), tuple(sorted(files)), plain, regular)
            if 0 <= mtime < time.time_ns() - _RACY_NS:
                self._listings.browsed[top] = held
        self._plain_dirs.update(held[3])
        self._plain_files.update(held[4])
        return held[1], held[2]

    def _walk(self, top: str, entered: Entered | None = None) -> Iterator[str]:
        """Every file below `top` (what os.walk lists), without entering linked folders.

        A scandir loop rather than os.walk, which lstat's every folder a second time; a
        10,000-slice memory has 20,000 of them. Folders entered are remembered as plain, and
        appended to `entered` with their mtime (-1: gone before it could be read).
        """
        stack = [top]
        while stack:
            folder = stack.pop()
            mtime, entries = self._entries(folder)
            if entered is not None:
                entered.append((folder, mtime))
            for path, kind in entries:
                if kind == _DIR:
                    self._plain_dirs.add(path)
                    stack.append(path)
                    continue
                if kind == _FILE:
                    self._plain_files.add(path)
                yield path

    def _entries(self, folder: str) -> tuple[int, Entries]:
        """A folder's entries as (path, kind), dot-names left out; read again only once it changed.

        A folder's mtime moves whenever an entry is added, removed or renamed in it (a write
        here is a rename into place), so an unchanged folder is not scanned again: a search that
        lists the newest months on every question stats each folder instead. As for file
        versions, a folder changed in the last two seconds is not remembered.
        """
        mtime = _mtime(folder)
        if mtime < 0:
            return mtime, []
        held = self._listings.folders.get(folder)
        if held is not None and held[0] == mtime:
            return held
        try:
            scan = os.scandir(folder)
        except OSError:
            return -1, []
        found: Entries = []
        with scan:
            for entry in scan:
                # Dot-folders (.git, editor state) are not memory; dot-files include our temp files.
                if entry.name.startswith("."):
                    continue
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                if is_dir:
                    if not entry.is_symlink():
                        found.append((entry.path, _DIR))
                else:
                    found.append((entry.path, _FILE if entry.is_file(follow_symlinks=False) else _OTHER))
        if mtime < time.time_ns() - _RACY_NS:
            self._listings.folders[folder] = (mtime, found)
        return mtime, found

    def stamp_of(self, path: MemoryPath) -> str | None:
        """A change token without reading the file (`base.change_token`): its size, mtime and
        inode, or — modified in the last two seconds, when a later edit could keep the same
        stamp — its blob sha. None when it does not exist."""
        try:
            info = os.stat(f"{self.root}/{require_memory_path(path).value}")
        except OSError:
            return None
        if info.st_mtime_ns >= time.time_ns() - _RACY_NS:
            return self.version_of(path)
        return f"stat:{info.st_size}:{info.st_mtime_ns}:{info.st_ino}"

    def version_of(self, path: MemoryPath) -> str | None:
        # Hashing means reading the file; a file whose size, mtime and inode did not move since
        # it was last hashed has the same sha (several passes of a refresh ask for every slice,
        # every turn asks for index.json). As in git, a file modified in the last two seconds is
        # not remembered: an in-place edit within the clock's resolution would keep its stamp.
        listed = f"{self.root}/{require_memory_path(path).value}"
        try:
            info = os.stat(listed)
            stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
        except OSError:
            stamp = None
        known = self._versions.get(listed)
        if stamp is not None and known is not None and known[0] == stamp:
            return known[1]
        data = self._read_bytes(path, limit=False)
        if data is None:
            return None
        sha = git_blob_sha(data)
        if stamp is not None and stamp[0] < time.time_ns() - _RACY_NS:
            self._versions[listed] = (stamp, sha)
        return sha

    def _read_bytes(self, path: MemoryPath, limit: bool = True) -> bytes | None:
        listed = f"{self.root}/{require_memory_path(path).value}"
        if listed in self._plain_files:  # no link on the way: skip the checks (a weave reads 10,000)
            return self._read_plain(path, listed, limit)
        file, info = self._stat(path)
        if info is None or not stat.S_ISREG(info.st_mode):
            return None
        if limit and info.st_size > size_limit(path):
            raise too_large(path, info.st_size)
        try:
            return file.read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None

    def _read_plain(self, path: MemoryPath, file: str, limit: bool) -> bytes | None:
        try:
            with open(file, "rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                if limit and size > size_limit(path):
                    raise too_large(path, size)
                return fh.read()
        except (FileNotFoundError, NotADirectoryError):
            return None

    def _file(self, path: MemoryPath) -> Path:
        """The file for `path`; PathDenied when a symlink would lead outside the root."""
        return self._stat(path)[0]

    def _stat(self, path: MemoryPath) -> tuple[Path, os.stat_result | None]:
        """The file for `path` and its status (None when missing); PathDenied through a link out.

        A validated path has no `..`, so only a symbolic link can lead outside the root.
        Resolving every read costs a syscall per path segment (on a 10,000-slice weave, more
        than parsing), so each segment is lstat'ed instead — folders known to be plain are
        skipped — and only a path that does pass through a link is resolved.
        """
        parts = require_memory_path(path).value.split("/")
        file = self.root.joinpath(*parts)
        folder = str(self.root)
        for part in parts[:-1]:
            folder = f"{folder}/{part}"
            if folder in self._plain_dirs:
                continue
            try:
                info = os.lstat(folder)
            except OSError:
                return file, None
            if stat.S_ISLNK(info.st_mode):
                return file, self._through_link(path, file)
            self._plain_dirs.add(folder)
        try:
            info = os.lstat(file)
        except OSError:
            return file, None
        return (file, self._through_link(path, file)) if stat.S_ISLNK(info.st_mode) else (file, info)

    def _through_link(self, path: MemoryPath, file: Path) -> os.stat_result | None:
        if not file.resolve().is_relative_to(self._real_root):
            raise PathDenied(f'Path "{path}" leads outside the memory folder (a symbolic link).')
        try:
            return file.stat()
        except OSError:
            return None


class LocalStorage:
    """Memory in a folder on this machine; a git commit per batch when the folder is a git repo."""

    name = "local"
    read_only = False
    demo = False

    def __init__(self, root: Path, folder_memo: Path | None = None) -> None:
        """`folder_memo`: a file (in the user's cache folder) where the folder times a walk
        found are kept for the next process (core/storage/folder_memo.py); None keeps none."""
        self.root = Path(root).expanduser().absolute()
        self._memo = None if folder_memo is None else FolderMemo(folder_memo, str(self.root))
        self._lock = threading.Lock()
        self._git: GitCommitter | None = None
        self._versions: dict[str, tuple[tuple[int, int, int], str]] = {}  # path → (stat stamp, sha)
        self._listings = Listings()  # a listing reads only changed folders

    def snapshot(self) -> LocalSnapshot:
        """A live view of the folder (which may not exist yet: then every read is None)."""
        return LocalSnapshot(self.root, self._versions, self._listings, self._memo)

    def commit(self, changes: Sequence[Change], message: str, base: Snapshot | None = None) -> CommitResult:
        """Write the batch atomically under the lock; `version` is the git commit sha, if any."""
        with self._lock, self._interprocess_lock():
            view = LocalSnapshot(self.root)
            resolved = resolve_batch(changes, view.read_bytes, lambda p: view.version_of(p) is not None)
            if not resolved:
                return CommitResult(version=None)
            written = resolved.written
            sweep_staged(self.root)  # what a killed earlier commit staged and never renamed
            write_files(self.root, written, journal=self.root / STAGING_JOURNAL)
            delete_files(self.root, resolved.deleted)
            version = None
            if is_git_repository(self.root):
                self._git = self._git or GitCommitter(self.root)
                paths = [p.value for p in sorted(written)]
                version = self._git.commit(paths, message, deleted=[p.value for p in resolved.deleted])
        return CommitResult(version=version, written=tuple(sorted(written)), deleted=resolved.deleted)

    def clean_temp(self) -> int:
        """Remove the staged files a crash left mid-commit (none can be in use under the lock)."""
        removed = 0
        with self._lock, self._interprocess_lock():
            for folder, dirs, files in os.walk(self.root / "memory"):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                for name in files:
                    if name.startswith(".") and name.endswith(".tmp"):
                        with contextlib.suppress(OSError):
                            os.unlink(os.path.join(folder, name))
                            removed += 1
        return removed

    @contextlib.contextmanager
    def _interprocess_lock(self) -> Iterator[None]:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.root / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StorageError(f"Cannot use the memory folder {self.root}: {exc}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the flock


def write_files(root: Path, files: dict[MemoryPath, Content], journal: Path | None = None) -> None:
    """Stage every file next to its target, then rename all into place (nothing half-written).

    With `journal`, the folders staged into are written there first and the journal removed
    once every file is in place: a process killed in between leaves the journal, and the next
    writer removes exactly those folders' temporary files (`sweep_staged`) without a walk.
    """
    staged: list[tuple[str, Path]] = []
    if journal is not None:
        folders = sorted({str(root.joinpath(*path.value.split("/")).parent) for path in files})
        write_journal(journal, folders)
    try:
        for path, content in files.items():
            target = root.joinpath(*path.value.split("/"))
            staged.append((_stage(target, encoded(content)), target))
    except BaseException as exc:
        for tmp, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if journal is not None:  # nothing staged is left to sweep
            with contextlib.suppress(OSError):
                journal.unlink()
        if isinstance(exc, OSError):
            raise StorageError(f"Could not write to the memory folder {root}: {exc}") from exc
        raise
    for tmp, target in staged:
        os.replace(tmp, target)
    for folder in {target.parent for _, target in staged}:
        _fsync_dir(folder)
    if journal is not None:
        with contextlib.suppress(FileNotFoundError):
            journal.unlink()


def delete_files(root: Path, paths: Sequence[MemoryPath]) -> None:
    """Remove files, then every folder they leave empty (up to, not including, `memory/`)."""
    folders: set[Path] = set()
    for path in paths:
        target = root.joinpath(*path.value.split("/"))
        try:
            target.unlink()
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise StorageError(f"Could not delete {path} in the memory folder {root}: {exc}") from exc
        folders.add(target.parent)
    top = {root / r for r in ("memory", "tasks", "sessions")} | {root}
    for folder in sorted(folders, key=lambda f: len(f.parts), reverse=True):
        while folder not in top and folder.is_relative_to(root):
            try:
                folder.rmdir()  # only succeeds when empty
            except OSError:
                break
            folder = folder.parent
        _fsync_dir(folder)


def _stage(target: Path, data: bytes) -> str:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = _NEW_FILE_MODE
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def decode_text(path: MemoryPath, data: bytes) -> str:
    """UTF-8 text of a memory file; InvalidInput (never a lossy decode) for anything else."""
    return str(text_of(path, data))


def git_blob_sha(data: bytes) -> str:
    """Git's blob id of raw bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _mtime(folder: str) -> int:
    """A folder's mtime in ns, -1 when it cannot be read (gone, or not a folder any more)."""
    try:
        return os.stat(folder).st_mtime_ns
    except OSError:
        return -1
