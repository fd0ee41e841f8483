"""A commit's file listing on GitHub, assembled tree by tree: folders by tree sha, and some
folders not fetched until a read or a list needs them.

A git tree with sha X never changes, so a listing of an earlier commit answers for every
folder whose sha is unchanged; a new head then costs its root tree (one level) and the folders
whose sha changed. A folder that was small in the earlier listing comes back in one recursive
request, a large one one level at a time. `LazyTrees` names a folder whose subfolders are not
fetched until needed (memory's slices: a turn reads the newest month, not ten years). A
recursive answer GitHub truncates is completed by walking its subtrees one level at a time.
After a commit the listing is computed, not fetched: the changed folders' tree shas are
hashed here as git does and checked against the root sha GitHub answered.
"""

from __future__ import annotations

import functools
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.storage.base import Content, encoded
from core.storage.git_trees import git_tree_sha
from core.storage.local import git_blob_sha
from core.storage.paths import MemoryPath

FILE_MODES = ("100644", "100755")
# A changed folder with at most this many files and folders in the earlier listing is fetched
# recursively (one request); a larger one a level at a time (a request per changed folder).
SMALL_TREE = 300
Fetch = Callable[[str, bool], Mapping[str, Any]]


@dataclass(frozen=True)
class Entry:
    """One file of a tree listing."""

    sha: str
    size: int
    mode: str


@dataclass(frozen=True)
class LazyTrees:
    """Folders under `root` are fetched when a read or list needs them: `depth` levels one at a
    time (years, then months), below that a whole folder recursively (a month)."""

    root: str
    depth: int = 2

    def holds(self, folder: str) -> bool:
        return folder == self.root or folder.startswith(self.root + "/")

    def above(self, folder: str) -> bool:
        """`folder` is an ancestor of the lazy root (the root of the repository is "")."""
        return folder == "" or self.root.startswith(folder + "/")

    def one_level(self, folder: str) -> bool:
        """A lazy folder fetched one level at a time (its subfolders stay unfetched)."""
        return self.holds(folder) and folder[len(self.root) :].count("/") < self.depth


def _parent(path: str) -> str:
    return path.rpartition("/")[0]


def _under(prefix: str) -> str:
    return prefix + "/" if prefix else ""


@dataclass(frozen=True)
class Listing:
    """The files of one commit: path → entry, the folders' tree shas, the sorted paths, and the
    folders not fetched yet (`unlisted`: their sha is known, their contents are not)."""

    commit: str
    tree: str
    entries: Mapping[str, Entry]
    paths: tuple[str, ...]
    trees: Mapping[str, str] = field(default_factory=dict)
    unlisted: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls,
        commit: str,
        tree: str,
        entries: Mapping[str, Entry],
        trees: Mapping[str, str] | None = None,
        unlisted: Iterable[str] = (),
    ) -> Listing:
        """A listing from its entries (sorts the paths once); folder "" is the root tree."""
        folders = {**(trees or {}), "": tree}
        return cls(commit, tree, entries, tuple(sorted(entries)), folders, frozenset(unlisted))

    @functools.cached_property
    def folders(self) -> tuple[str, ...]:
        return tuple(sorted(self.trees))

    def mode_of(self, path: str) -> str:
        """The file's git mode, kept when we rewrite it (new files are 100644)."""
        entry = self.entries.get(path)
        return entry.mode if entry else "100644"

    def unlisted_over(self, path: str) -> str | None:
        """The unfetched folder that holds `path` (or is it), if any."""
        if not self.unlisted:
            return None
        while path:
            if path in self.unlisted:
                return path
            path = _parent(path)
        return None

    def unlisted_within(self, prefix: str) -> list[str]:
        """The unfetched folders a list of `prefix` needs: the one holding it, those under it."""
        over = self.unlisted_over(prefix)
        if over is not None:
            return [over]
        start = _under(prefix)
        return sorted(f for f in self.unlisted if f.startswith(start))

    def under(self, prefix: str) -> Iterable[str]:
        """The file paths under folder `prefix`, in order."""
        start = _under(prefix)
        for i in range(bisect_left(self.paths, start), len(self.paths)):
            if not self.paths[i].startswith(start):
                break
            yield self.paths[i]

    def folders_under(self, prefix: str) -> Iterable[str]:
        start = _under(prefix)
        names = self.folders
        for i in range(bisect_left(names, start), len(names)):
            if not names[i].startswith(start):
                break
            if names[i]:
                yield names[i]

    def weight(self, folder: str) -> int | None:
        """Files and folders under `folder` in this listing (None: unknown or not all fetched)."""
        if folder not in self.trees or any(True for _ in self.unlisted_within(folder)):
            return None
        count = 0
        for _ in self.under(folder):
            count += 1
            if count > SMALL_TREE:
                return count
        return count + sum(1 for _ in self.folders_under(folder))

    def with_files(
        self, commit: str, tree: str, files: Mapping[MemoryPath, Content], deleted: Sequence[MemoryPath] = ()
    ) -> Listing:
        """The listing of a commit that wrote `files` (and removed `deleted`) on top of this one
        (computed, not fetched). The changed folders' shas are hashed here; when the root's does
        not come out as `tree`, they are left unknown (a later listing fetches them again)."""
        entries = dict(self.entries)
        for path in deleted:
            entries.pop(path.value, None)
        for path, content in files.items():
            data = encoded(content)
            entries[path.value] = Entry(git_blob_sha(data), len(data), self.mode_of(path.value))
        changed = {""}
        for p in [*files, *deleted]:
            folder = _parent(p.value)
            while folder not in changed:
                changed.add(folder)
                folder = _parent(folder)
        computed = _hash_folders(entries, self.trees, changed, self.unlisted)
        trees = {f: s for f, s in self.trees.items() if f not in changed}
        if computed.get("") == tree:
            trees.update((f, s) for f, s in computed.items() if s)
        return Listing.of(commit, tree, entries, trees, self.unlisted)


def _hash_folders(
    entries: Mapping[str, Entry], trees: Mapping[str, str], changed: set[str], unlisted: frozenset[str]
) -> dict[str, str | None]:
    """The git tree sha of each changed folder, deepest first ("" when it came out empty,
    None when it cannot be known here)."""
    kids: dict[str, list[tuple[str, str, str]]] = {f: [] for f in changed}
    for path, entry in entries.items():
        parent = _parent(path)
        if parent in kids:
            kids[parent].append((path.rpartition("/")[2], entry.mode, entry.sha))
    out: dict[str, str | None] = {}
    for folder in sorted(changed, key=lambda f: -f.count("/") - bool(f)):
        if folder in unlisted:
            out[folder] = None
            continue
        items = list(kids[folder])
        known = True
        for sub, sha in _subfolders(trees, folder, changed, out):
            if sha is None:
                known = False
            elif sha:
                items.append((sub.rpartition("/")[2], "40000", sha))
        out[folder] = git_tree_sha(items) if known and items else (None if not known else "")
    return out


def _subfolders(
    trees: Mapping[str, str], folder: str, changed: set[str], computed: Mapping[str, str | None]
) -> Iterable[tuple[str, str | None]]:
    seen = set()
    for sub in changed:
        if sub and _parent(sub) == folder:
            seen.add(sub)
            yield sub, computed.get(sub)
    start = _under(folder)
    for sub, sha in trees.items():
        if sub and sub not in seen and sub.startswith(start) and "/" not in sub[len(start) :]:
            yield sub, sha


class Assembler:
    """Builds one commit's listing from GitHub tree answers (`fetch(sha, recursive)`), reusing
    what an earlier listing (`base`) holds for every folder whose sha is unchanged."""

    def __init__(self, fetch: Fetch, lazy: LazyTrees | None, base: Listing | None) -> None:
        self.fetch, self.lazy, self.base = fetch, lazy, base
        self.entries: dict[str, Entry] = {}
        self.trees: dict[str, str] = {}
        self.unlisted: set[str] = set()

    def listing(self, commit: str) -> Listing:
        """The commit's listing: one recursive request when there is nothing to go by or the
        earlier listing was small, else its root tree and what changed."""
        weight = self.base.weight("") if self.base is not None else None
        if (self.base is None and self.lazy is None) or (weight is not None and weight <= SMALL_TREE):
            root = self.fetch(commit, True)
            self.add_recursive("", root)
        else:
            root = self.fetch(commit, False)
            self.add_level("", root)
        return Listing.of(commit, str(root["sha"]), self.entries, self.trees, self.unlisted)

    def expand(self, listing: Listing, folder: str, whole: bool = False) -> Listing:
        """`listing` with the unfetched `folder` fetched: one level, or all of it (`whole`, or a
        folder below the lazy levels) in one recursive request."""
        inside = _under(folder)
        self.entries = {p: e for p, e in listing.entries.items() if not (whole and p.startswith(inside))}
        self.trees = {f: s for f, s in listing.trees.items() if not (whole and f.startswith(inside))}
        self.unlisted = {f for f in listing.unlisted if f != folder and not (whole and f.startswith(inside))}
        sha = listing.trees[folder]
        if not whole and self.lazy is not None and self.lazy.one_level(folder):
            for e in self.fetch(sha, False)["tree"]:
                path = f"{folder}/{e['path']}"
                if e["type"] == "tree":
                    self.trees[path] = e["sha"]
                    self.unlisted.add(path)
                else:
                    self.add_file(path, e)
        else:
            self.add_recursive(folder, self.fetch(sha, True))
        return Listing.of(listing.commit, listing.tree, self.entries, self.trees, self.unlisted)

    def add_file(self, path: str, e: Mapping[str, Any]) -> None:
        if e["type"] == "blob" and e["mode"] in FILE_MODES:
            self.entries[path] = Entry(e["sha"], e.get("size") or 0, e["mode"])

    def add_recursive(self, folder: str, answer: Mapping[str, Any]) -> None:
        """Everything under `folder` from its recursive answer; a truncated one is walked."""
        self.trees[folder] = str(answer["sha"])
        prefix = _under(folder)
        if answer.get("truncated"):
            for e in self.fetch(str(answer["sha"]), False)["tree"]:
                if e["type"] == "tree":
                    self.add_recursive(prefix + e["path"], self.fetch(e["sha"], True))
                else:
                    self.add_file(prefix + e["path"], e)
            return
        for e in answer["tree"]:
            if e["type"] == "tree":
                self.trees[prefix + e["path"]] = e["sha"]
            else:
                self.add_file(prefix + e["path"], e)

    def add_level(self, folder: str, answer: Mapping[str, Any]) -> None:
        """One level of `folder`, then each subfolder as it needs (reused, unfetched, whole or
        a level at a time)."""
        self.trees[folder] = str(answer["sha"])
        prefix = _under(folder)
        for e in answer["tree"]:
            path = prefix + e["path"]
            if e["type"] != "tree":
                self.add_file(path, e)
            elif not self.reuse(path, e["sha"]):
                self.add_folder(path, e["sha"])

    def add_folder(self, path: str, sha: str) -> None:
        lazy, base = self.lazy, self.base
        fetched_before = base is not None and path in base.trees and base.unlisted_over(path) is None
        if lazy is not None and lazy.holds(path) and not fetched_before:
            self.trees[path] = sha
            self.unlisted.add(path)
            return
        weight = base.weight(path) if base is not None else None
        one_level = lazy is not None and (lazy.above(path) or lazy.one_level(path))
        if one_level or (weight is not None and weight > SMALL_TREE):
            self.add_level(path, self.fetch(sha, False))
        else:
            self.add_recursive(path, self.fetch(sha, True))

    def reuse(self, folder: str, sha: str) -> bool:
        """Take `folder` from the earlier listing when its tree sha is the same."""
        base = self.base
        if base is None or base.trees.get(folder) != sha:
            return False
        self.trees[folder] = sha
        for path in base.under(folder):
            self.entries[path] = base.entries[path]
        for sub in base.folders_under(folder):
            self.trees[sub] = base.trees[sub]
        self.unlisted.update(f for f in base.unlisted if f == folder or f.startswith(folder + "/"))
        return True
