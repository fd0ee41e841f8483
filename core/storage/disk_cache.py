"""A folder that keeps what GitHub sent across processes: blobs by sha, trees by tree sha, tree
listings by commit.

All are content-addressed (a blob or tree sha names exactly one content, a commit sha exactly
one tree), so nothing in here can ever be stale: a new `maintain`, CLI command or server start
reads the ref, finds its commit's listing and the blobs it needs here, and downloads only what
changed since. Every read checks what it found — a blob or a tree against its own sha, a
listing's JSON against its shape and version — and treats anything else as a miss (and
removes it), so a damaged or planted file is never served. Files are written whole
(temporary file, then rename), readable by the owner only. The folder is bounded: past
`max_bytes` the least recently used files go.

The folder holds copies of the memory's files: it lives with the user's other caches
(`$PREVIOUSLY_CACHE_DIR`, else `$XDG_CACHE_HOME/previously`, else `~/.cache/previously`),
one subfolder per repository; `PREVIOUSLY_CACHE_DIR=off` turns it off. On Lambda the same
cache lives in the run bucket (functions/aws/blob_cache.py): `SharedCache` is what both offer.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from core.storage.git_trees import answer_bytes, parse_answer
from core.storage.local import git_blob_sha

_SHA_RE = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?\Z")
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
_PRUNE_EVERY = 256  # writes between size checks


LISTING_VERSION = 2  # a kept listing of another version is a miss (never misread)
LISTINGS = f"listings-v{LISTING_VERSION}"  # older readers look elsewhere and never see these
_BRANCH_RE = re.compile(r"[^A-Za-z0-9._-]")


@dataclass(frozen=True)
class CachedListing:
    """A commit's files as tree listings gave them: path → (blob sha, size, mode), its root tree,
    its folders' tree shas, and the folders not fetched yet (`unlisted`: a partial listing)."""

    tree: str
    entries: dict[str, tuple[str, int, str]]
    trees: dict[str, str] = field(default_factory=dict)
    unlisted: tuple[str, ...] = ()


class SharedCache(Protocol):
    """Blobs by sha, tree answers by tree sha (one level, or `recursive`) and listings by
    commit, kept beyond one process (a folder, a bucket); also
    the commit a branch's last listing was of (`get_last`: only a hint, a listing to diff a new
    head against, so a stale or planted one costs requests, never a wrong file)."""

    def get_blob(self, sha: str) -> bytes | None: ...

    def get_blobs(self, shas: Iterable[str]) -> dict[str, bytes]: ...

    def put_blob(self, sha: str, data: bytes) -> None: ...

    def get_listing(self, commit: str) -> CachedListing | None: ...

    def put_listing(self, commit: str, listing: CachedListing) -> None: ...

    def get_tree(self, sha: str, recursive: bool) -> dict[str, Any] | None: ...

    def put_tree(self, sha: str, recursive: bool, answer: Mapping[str, Any]) -> None: ...

    def get_last(self, branch: str) -> str | None: ...

    def put_last(self, branch: str, commit: str) -> None: ...


def tree_kind(recursive: bool) -> str:
    """Where tree answers are kept: one level, or everything under the tree."""
    return "trees-all" if recursive else "trees"


def well_formed_sha(sha: object) -> bool:
    return isinstance(sha, str) and bool(_SHA_RE.match(sha))


def listing_bytes(listing: CachedListing) -> bytes | None:
    """A listing as it is kept (None for one that names no well-formed tree)."""
    if not _SHA_RE.match(listing.tree):
        return None
    body = {
        "v": LISTING_VERSION,
        "tree": listing.tree,
        "trees": listing.trees,
        "unlisted": list(listing.unlisted),
        "files": {p: list(e) for p, e in listing.entries.items()},
    }
    return json.dumps(body, separators=(",", ":")).encode("utf-8")


def blob_if_sound(sha: str, data: bytes | None) -> bytes | None:
    """`data` when it is the blob `sha` names, else None (damaged or planted: never served)."""
    return data if data is not None and git_blob_sha(data) == sha else None


class DiskCache:
    """Blobs and listings under `root` (created on first write, mode 0700)."""

    def __init__(self, root: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self._writes = 0
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ blobs

    def get_blob(self, sha: str) -> bytes | None:
        """The blob's bytes when they are here and hash to `sha`; None otherwise."""
        path = self._path("blobs", sha)
        if path is None:
            return None
        data = _read(path)
        if data is None:
            return None
        if git_blob_sha(data) != sha:
            _remove(path)  # damaged or planted: never served
            return None
        _touch(path)
        return data

    def get_blobs(self, shas: Iterable[str]) -> dict[str, bytes]:
        """The blobs among `shas` that are here (each checked as by `get_blob`)."""
        return {sha: data for sha in shas if (data := self.get_blob(sha)) is not None}

    def put_blob(self, sha: str, data: bytes) -> None:
        """Keep a blob (only under its own sha: a mismatch is not written)."""
        path = self._path("blobs", sha)
        if path is not None and not path.exists() and git_blob_sha(data) == sha:
            self._write(path, data)

    # ------------------------------------------------------------------ listings

    def get_listing(self, commit: str) -> CachedListing | None:
        """The commit's listing when it is here and well formed; None otherwise."""
        path = self._path(LISTINGS, commit)
        if path is None:
            return None
        data = _read(path)
        if data is None:
            return None
        listing = parse_listing(data)
        if listing is None:
            _remove(path)
            return None
        _touch(path)
        return listing

    def put_listing(self, commit: str, listing: CachedListing) -> None:
        """Keep a listing, unless one of the same commit at least as full is here already (of
        one commit, the listing with more fetched holds more: its body is longer)."""
        path = self._path(LISTINGS, commit)
        body = listing_bytes(listing)
        if path is None or body is None or _size(path) >= len(body):
            return
        self._write(path, body)

    # ------------------------------------------------------------------ trees

    def get_tree(self, sha: str, recursive: bool) -> dict[str, Any] | None:
        """A tree answer kept by its sha, when it hashes to that sha; None otherwise."""
        path = self._path(tree_kind(recursive), sha)
        if path is None or (data := _read(path)) is None:
            return None
        answer = parse_answer(sha, data, recursive)
        if answer is None:
            _remove(path)  # damaged or planted: never served
        else:
            _touch(path)
        return answer

    def put_tree(self, sha: str, recursive: bool, answer: Mapping[str, Any]) -> None:
        path = self._path(tree_kind(recursive), sha)
        body = answer_bytes(answer) if answer.get("sha") == sha else None
        if path is not None and body is not None and not path.exists():
            self._write(path, body)

    def get_last(self, branch: str) -> str | None:
        """The commit of the branch's last kept listing (a hint), if any."""
        data = _read(self.root / "last" / _BRANCH_RE.sub("_", branch))
        sha = data.decode("ascii", "replace").strip() if data is not None else None
        return sha if well_formed_sha(sha) else None

    def put_last(self, branch: str, commit: str) -> None:
        if well_formed_sha(commit):
            self._write(self.root / "last" / _BRANCH_RE.sub("_", branch), commit.encode("ascii"))

    # ------------------------------------------------------------------ internals

    def _path(self, kind: str, sha: str) -> Path | None:
        if not isinstance(sha, str) or not _SHA_RE.match(sha):
            return None
        return self.root / kind / sha[:2] / sha

    def _write(self, path: Path, data: bytes) -> None:
        try:
            if not path.parent.is_dir():
                path.parent.mkdir(parents=True, exist_ok=True)
                for folder in (self.root, path.parent.parent, path.parent):
                    folder.chmod(0o700)  # copies of the memory: the owner's alone
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                os.replace(tmp, path)
            except BaseException:
                _remove(Path(tmp))
                raise
        except OSError:
            return  # a cache that cannot write is only slower
        with self._lock:
            self._writes += 1
            due = self._writes % _PRUNE_EVERY == 0
        if due:
            self.prune()

    def prune(self) -> int:
        """Remove the least recently used files until the folder is under 80% of `max_bytes`;
        returns how many went (stray temporary files of killed writers go too)."""
        files: list[tuple[float, int, Path]] = []
        for kind in ("blobs", "listings", LISTINGS, tree_kind(False), tree_kind(True)):
            for path in (self.root / kind).glob("*/*"):
                with contextlib.suppress(OSError):
                    st = path.stat()
                    if path.name.startswith(".tmp-"):
                        _remove(path)
                        continue
                    files.append((st.st_mtime, st.st_size, path))
        total = sum(size for _, size, _ in files)
        removed = 0
        for _, size, path in sorted(files):
            if total <= self.max_bytes * 0.8:
                break
            _remove(path)
            total -= size
            removed += 1
        return removed


def parse_listing(data: bytes) -> CachedListing | None:
    """A kept listing read back; None for anything not of its shape."""
    try:
        body = json.loads(data)
    except ValueError:
        return None
    if not isinstance(body, dict) or body.get("v") != LISTING_VERSION:
        return None
    files, trees, unlisted = body.get("files"), body.get("trees"), body.get("unlisted")
    if not (isinstance(files, dict) and isinstance(trees, dict) and isinstance(unlisted, list)):
        return None
    tree = body.get("tree")
    if not isinstance(tree, str) or not _SHA_RE.match(tree):
        return None
    if not all(isinstance(f, str) and well_formed_sha(s) for f, s in trees.items()):
        return None
    if not all(isinstance(f, str) and f in trees for f in unlisted):
        return None
    entries: dict[str, tuple[str, int, str]] = {}
    for path, entry in files.items():
        if not (isinstance(entry, list) and len(entry) == 3):
            return None
        sha, size, mode = entry
        well_formed = isinstance(sha, str) and _SHA_RE.match(sha) and isinstance(size, int)
        if not (well_formed and isinstance(mode, str)):
            return None
        entries[path] = (sha, size, mode)
    return CachedListing(tree, entries, trees, tuple(unlisted))


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def _touch(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.utime(path)


def folder_memo_file(setting: str | None, root: Path, env: dict[str, str] | None = None) -> Path | None:
    """Where a local memory folder's kept folder times live (core/storage/folder_memo.py): under
    the same cache folder as a repository's, one file per memory folder (None: off or no home)."""
    base = _cache_base(setting, dict(os.environ) if env is None else env)
    if base is None:
        return None
    key = hashlib.sha256(str(root.expanduser().absolute()).encode()).hexdigest()[:24]
    return base / "local" / key / "folders.json"


def cache_root(setting: str | None, repo: str, env: dict[str, str] | None = None) -> Path | None:
    """Where a repository's cache lives, from `PREVIOUSLY_CACHE_DIR` (None: off or no home)."""
    base = _cache_base(setting, dict(os.environ) if env is None else env)
    return (
        None if base is None else base / "github" / re.sub(r"[^A-Za-z0-9._-]", "_", repo.replace("/", "__"))
    )


def _cache_base(setting: str | None, env: dict[str, str]) -> Path | None:
    if setting is not None and setting.strip().lower() in ("off", "none", "0", "false"):
        return None
    if setting and setting.strip():
        base = Path(setting.strip()).expanduser()
    elif env.get("AWS_LAMBDA_FUNCTION_NAME"):
        return None  # a Lambda keeps its cache in memory while it is warm; its home is read-only
    elif env.get("XDG_CACHE_HOME"):
        base = Path(env["XDG_CACHE_HOME"]) / "previously"
    elif env.get("HOME"):
        base = Path(env["HOME"]) / ".cache" / "previously"
    else:
        return None
    return base
