"""A real bare git repository (dulwich) with the few operations the fake GitHub server needs."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from dulwich.index import commit_tree
from dulwich.object_store import iter_tree_contents
from dulwich.objects import Blob, Commit, ShaFile, Tree
from dulwich.repo import Repo

FILE_MODE = 0o100644
TREE_MODE = 0o040000
IDENT = b"Fake GitHub <noreply@fake-github.test>"

# A value for `commit_files`: the new text (or raw bytes), a function of the old text, or None
# to delete the file.
FileChange = str | bytes | Callable[[str | None], str] | None


class GitDataError(Exception):
    """A request GitHub would answer with 422 (or 404 when `missing`)."""

    def __init__(self, message: str, missing: bool = False) -> None:
        super().__init__(message)
        self.missing = missing


@dataclass(frozen=True)
class CommitInfo:
    """One commit of the branch history."""

    sha: str
    message: str
    parents: tuple[str, ...]
    tree: str


class BareRepo:
    """A bare repository on disk; every mutation happens under one re-entrant lock."""

    def __init__(self, path: Path, branch: str) -> None:
        path.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.repo = Repo.init_bare(str(path))
        self.branch = branch
        self.lock = threading.RLock()
        self._walks: dict[tuple[str, bool], list[tuple[str, int, str]]] = {}  # trees never change
        self.repo.refs.set_symbolic_ref(b"HEAD", self.ref_name(branch))

    @staticmethod
    def ref_name(branch: str) -> bytes:
        return b"refs/heads/" + branch.encode()

    # ---------------------------------------------------------------- objects

    def get(self, sha: str) -> ShaFile | None:
        try:
            return self.repo.object_store[sha.encode()]
        except (KeyError, ValueError, AssertionError):
            return None

    def head(self, branch: str | None = None) -> str | None:
        try:
            return self.repo.refs[self.ref_name(branch or self.branch)].decode()
        except KeyError:
            return None

    def add_blob(self, data: bytes) -> str:
        blob = Blob.from_string(data)
        self.repo.object_store.add_object(blob)
        return blob.id.decode()

    def resolve_tree(self, ref: str) -> str | None:
        """A tree sha from a commit sha, a tree sha or a branch name (as GitHub accepts)."""
        obj = self.get(ref) if len(ref) == 40 else None
        if obj is None and self.head(ref):
            obj = self.get(self.head(ref) or "")
        if isinstance(obj, Commit):
            return obj.tree.decode()
        if isinstance(obj, Tree):
            return obj.id.decode()
        return None

    def walk(self, tree_sha: str, recursive: bool) -> list[tuple[str, int, str]]:
        """(path, mode, sha) of every entry under a tree (one level unless recursive)."""
        key = (tree_sha, recursive)
        if key not in self._walks:
            self._walks[key] = list(self._walk(tree_sha, recursive))
        return self._walks[key]

    def _walk(self, tree_sha: str, recursive: bool) -> Iterator[tuple[str, int, str]]:
        if not recursive:
            tree = self.get(tree_sha)
            assert isinstance(tree, Tree)
            for item in tree.items():
                yield item.path.decode(), item.mode, item.sha.decode()
            return
        for entry in iter_tree_contents(self.repo.object_store, tree_sha.encode(), include_trees=True):
            if entry.path:
                yield entry.path.decode(), entry.mode, entry.sha.decode()

    def flat(self, tree_sha: str) -> dict[str, tuple[str, int]]:
        """path → (blob sha, mode) for every file under a tree."""
        return {p: (s, m) for p, m, s in self.walk(tree_sha, True) if m != TREE_MODE}

    def build_tree(self, files: Mapping[str, tuple[str, int]]) -> str:
        blobs = [(p.encode(), s.encode(), m) for p, (s, m) in files.items()]
        return commit_tree(self.repo.object_store, blobs).decode()

    def make_commit(self, tree: str, parents: list[str], message: str) -> str:
        commit = Commit()
        commit.tree = tree.encode()
        commit.parents = [p.encode() for p in parents]
        commit.author = commit.committer = IDENT
        commit.author_time = commit.commit_time = int(time.time())
        commit.author_timezone = commit.commit_timezone = 0
        commit.encoding = b"UTF-8"
        commit.message = message.encode("utf-8")
        self.repo.object_store.add_object(commit)
        return commit.id.decode()

    def is_ancestor(self, ancestor: str, sha: str) -> bool:
        seen: set[str] = set()
        todo = [sha]
        while todo:
            cur = todo.pop()
            if cur == ancestor:
                return True
            if cur in seen:
                continue
            seen.add(cur)
            obj = self.get(cur)
            if isinstance(obj, Commit):
                todo.extend(p.decode() for p in obj.parents)
        return False

    def move_branch(self, branch: str, old: str | None, new: str) -> bool:
        return self.repo.refs.set_if_equals(
            self.ref_name(branch), old.encode() if old else None, new.encode()
        )

    # ---------------------------------------------------------------- test helpers

    def commit_files(self, changes: Mapping[str, FileChange], message: str) -> str:
        """Commit directly on the branch, as another writer would (None deletes a file)."""
        with self.lock:
            head = self.head()
            files = self.flat(self.resolve_tree(head)) if head else {}
            for path, change in changes.items():
                if change is None:
                    files.pop(path, None)
                    continue
                if callable(change):
                    change = change(self._text(files, path))
                data = change if isinstance(change, bytes) else change.encode("utf-8")
                files[path] = (self.add_blob(data), files.get(path, ("", FILE_MODE))[1])
            sha = self.make_commit(self.build_tree(files), [head] if head else [], message)
            if not self.move_branch(self.branch, head, sha):
                raise RuntimeError("branch moved during a direct commit")
            return sha

    def read(self, path: str, ref: str | None = None) -> str | None:
        """A file's text at `ref` (default: the branch head)."""
        tree = self.resolve_tree(ref or self.head() or "")
        return self._text(self.flat(tree), path) if tree else None

    def read_bytes(self, path: str, ref: str | None = None) -> bytes | None:
        """A file's exact bytes at `ref` (default: the branch head)."""
        tree = self.resolve_tree(ref or self.head() or "")
        files = self.flat(tree) if tree else {}
        if path not in files:
            return None
        blob = self.get(files[path][0])
        assert isinstance(blob, Blob)
        return blob.as_raw_string()

    def files(self, ref: str | None = None) -> dict[str, str]:
        tree = self.resolve_tree(ref or self.head() or "")
        flat = self.flat(tree) if tree else {}
        return {p: self._text(flat, p) or "" for p in flat}

    def log(self) -> list[CommitInfo]:
        """First-parent history of the branch, newest first."""
        out: list[CommitInfo] = []
        sha = self.head()
        while sha:
            c = self.get(sha)
            assert isinstance(c, Commit)
            parents = tuple(p.decode() for p in c.parents)
            out.append(CommitInfo(sha, c.message.decode("utf-8"), parents, c.tree.decode()))
            sha = parents[0] if parents else None
        return out

    def _text(self, files: Mapping[str, tuple[str, int]], path: str) -> str | None:
        if path not in files:
            return None
        blob = self.get(files[path][0])
        assert isinstance(blob, Blob)
        return blob.as_raw_string().decode("utf-8")
