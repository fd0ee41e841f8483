"""The GitHub backend: memory in one repository, one commit per batch (PyGithub, Git Data API).

A snapshot costs one conditional ref read plus, when the head is new to this process, its
listing: the trees that changed since a listing kept earlier, else one recursive listing, or
with `lazy` the memory's slices a month at a time as reads need them
(core/storage/github_listing.py). File texts are fetched on demand and cached by blob sha, or
fetched ahead in bulk (`prefetch`: several blobs at a time, or the whole commit as one archive when
many are wanted). Every answer's rate-limit headers are kept (`budget`); once the budget is
spent we stop with `RateLimitSpent` before sending another request. A commit is
three requests (plus one `POST /git/blobs` per file of bytes, a picture, sent base64): a tree
with inline texts on top of the snapshot's tree, a commit whose
parent is the snapshot's head, and a non-forced ref update. When another writer moved the
branch first, GitHub refuses the ref update; we then take a new snapshot, re-evaluate every
change against it (an Update sees the other writer's text, so both writers' turns survive)
and try again, a bounded number of times. Only the configured repository is ever addressed.
"""

from __future__ import annotations

import base64
import logging
import tarfile
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar, cast
from urllib.parse import quote

import github.GitCommit
import github.GitRef
import github.GitTree
from github import Auth, Github, InputGitTreeElement

from core.errors import (
    BudgetSpent,
    BulkReadStopped,
    ConflictError,
    InvalidInput,
    PathDenied,
    PreviouslyError,
    RateLimitSpent,
    StorageError,
)
from core.ids import RepoName
from core.storage.base import (
    Budget,
    Change,
    CommitResult,
    Content,
    Snapshot,
    bytes_of,
    encoded,
    is_hidden,
    require_memory_path,
    resolve_batch,
    text_of,
)
from core.storage.blobcache import BlobCache
from core.storage.disk_cache import CachedListing, SharedCache
from core.storage.github_archive import download, matching_files
from core.storage.github_errors import GitHubRetry, RefConflict, Target, call, spent_message
from core.storage.github_listing import Assembler, Entry, LazyTrees, Listing
from core.storage.local import git_blob_sha
from core.storage.paths import MemoryPath, check_size, size_limit, too_large

log = logging.getLogger(__name__)
DEFAULT_API_URL = "https://api.github.com"
_LISTINGS_KEPT = 4
# Past this many unread files one archive download (two requests) beats fetching blob by blob.
ARCHIVE_OVER = 64
# When the archive cannot be had, at most this many files are read blob by blob; more would turn
# one pass into a request per file (10,000 slices: the hourly budget), so the pass stops instead.
BLOB_FALLBACK_MAX = 200
PARALLEL_READS = 8
T = TypeVar("T")


class ArchiveUnusable(Exception):
    """The repository archive could not be fetched or read (internal: prefetch falls back)."""


class GitHubSnapshot:
    """The repository at one commit; texts come from the storage's blob cache or one request."""

    def __init__(self, owner: GitHubStorage, listing: Listing) -> None:
        self.owner = owner
        self.listing = listing

    @property
    def version(self) -> str | None:
        return self.listing.commit

    def read(self, path: MemoryPath) -> str | None:
        return text_of(path, self.read_content(path))

    def read_bytes(self, path: MemoryPath) -> bytes | None:
        return bytes_of(self.read_content(path))

    def _entry(self, path: MemoryPath) -> Entry | None:
        """The file's entry, its folder fetched first when it has not been yet."""
        folder = self.listing.unlisted_over(path.value)
        while folder is not None:
            self.listing = self.owner.expand(self.listing, folder)
            folder = self.listing.unlisted_over(path.value)
        return self.listing.entries.get(path.value)

    def read_content(self, path: MemoryPath) -> Content | None:
        """The file as the blob cache holds it: text when it is UTF-8, else bytes."""
        entry = self._entry(require_memory_path(path))
        if entry is None:
            return None
        if entry.size > size_limit(path):
            raise too_large(path, entry.size)
        return self.owner.blob_content(entry, path)

    def list(self, prefix: MemoryPath) -> list[MemoryPath]:
        while folders := self.listing.unlisted_within(prefix.value):
            # The folder itself or several under it unfetched: all of it in one recursive request.
            whole = prefix.value in self.listing.trees and (len(folders) > 1 or folders[0] == prefix.value)
            self.listing = self.owner.expand(self.listing, prefix.value if whole else folders[0], whole)
        found: list[MemoryPath] = []
        for path in self.listing.under(prefix.value):
            if is_hidden(path):
                continue
            try:
                found.append(MemoryPath(path))
            except PathDenied:
                continue
        return found

    def version_of(self, path: MemoryPath) -> str | None:
        entry = self._entry(path)
        return entry.sha if entry else None

    def exists(self, path: MemoryPath) -> bool:
        """Whether the file is in this commit (without fetching it)."""
        return self._entry(path) is not None

    def prefetch(self, paths: Iterable[MemoryPath]) -> int:
        wanted = list(paths)
        for path in wanted:
            self._entry(path)
        return self.owner.prefetch(self.listing, wanted)

    def checked_version(self, path: MemoryPath) -> str | None:
        """`version_of`, refusing a stored file over its cap as reading it would."""
        entry = self._entry(path)
        if entry is not None and entry.size > size_limit(path):
            raise too_large(path, entry.size)
        return entry.sha if entry else None


class GitHubStorage:
    """Memory in the GitHub repository `repo` (owner/name), on `branch` (default: the repo's)."""

    name = "github"
    read_only = False
    demo = False

    def __init__(
        self,
        repo: str,
        token: str,
        *,
        branch: str | None = None,
        api_url: str = DEFAULT_API_URL,
        timeout: int = 20,
        retry: GitHubRetry | None = None,
        blob_cache_bytes: int = 128 * 1024 * 1024,
        disk_cache: SharedCache | None = None,
        lazy: LazyTrees | None = None,
    ) -> None:
        if not RepoName.matches(repo):
            raise InvalidInput(f'GITHUB_REPO must look like owner/name, not "{repo}".')
        if not token:
            raise StorageError("GITHUB_TOKEN is empty: set it to a token with access to GITHUB_REPO.")
        self.repo_name = repo
        self.retry = retry or GitHubRetry()
        self.blobs = BlobCache(blob_cache_bytes)
        # Blobs and listings kept across processes: a folder (core/storage/disk_cache.py), or
        # on Lambda the run bucket (functions/aws/blob_cache.py).
        self.disk = disk_cache
        self.lazy = lazy  # a folder listed as reads need it (the memory's slices), not up front
        self._timeout = timeout
        self._gh = Github(
            base_url=api_url.rstrip("/"),
            auth=Auth.Token(token),
            retry=None,  # we classify and retry ourselves (github_errors)
            lazy=True,
            timeout=timeout,
            seconds_between_requests=None,
            seconds_between_writes=None,
            user_agent="previously-memory",
            pool_size=PARALLEL_READS,
        )
        self._repo = self._gh.get_repo(repo)
        self._branch = branch or None
        self._ref: github.GitRef.GitRef | None = None
        self._listings: OrderedDict[str, Listing] = OrderedDict()
        self._posted: set[str] = set()  # blobs this process created (a retried commit reuses them)
        self._lock = threading.RLock()

    @property
    def branch(self) -> str:
        """The configured branch, else the repository's default branch (one request, once)."""
        with self._lock:
            if self._branch is None:
                self._branch = self._call(lambda: self._repo.default_branch, "read the repository")
            return self._branch

    def snapshot(self) -> GitHubSnapshot:
        """The branch head: a conditional ref read, plus a tree listing when the head is new."""
        head, listing = self._head()
        if listing is None:
            listing = self._fetch_listing(head)
        return GitHubSnapshot(self, listing)

    def commit(self, changes: Sequence[Change], message: str, base: Snapshot | None = None) -> CommitResult:
        """One commit for the batch, rebuilt on the new head and retried when the branch moved."""
        snap = base if isinstance(base, GitHubSnapshot) and base.owner is self else self.snapshot()
        attempts = self.retry.conflicts.max_attempts
        for attempt in range(1, attempts + 1):
            resolved = resolve_batch(changes, snap.read_content, snap.exists, snap.checked_version)
            if not resolved:
                return CommitResult(version=snap.version, attempts=attempt)
            written = resolved.written
            sha = self._try_commit(snap.listing, written, message, resolved.deleted)
            if sha is not None:
                return CommitResult(
                    version=sha, written=tuple(sorted(written)), attempts=attempt, deleted=resolved.deleted
                )
            if attempt < attempts:
                self.retry.sleep(self.retry.conflicts.backoff(attempt, self.retry.rng.random()))
                snap = self.snapshot()
        raise ConflictError(
            f"Another writer kept changing {self.repo_name}@{self.branch}; gave up after {attempts} "
            "attempts and wrote nothing. Try again."
        )

    def blob_content(self, entry: Entry, path: MemoryPath) -> Content:
        """One blob: from the cache, else one request (then cached; text when it is UTF-8)."""
        content = self._cached(entry.sha)
        if content is None:
            blob = self._call(lambda: self._repo.get_git_blob(entry.sha), f"read {path}")
            raw = blob.content or ""
            data = base64.b64decode(raw) if blob.encoding == "base64" else raw.encode("utf-8")
            content = self._keep(entry.sha, data)
        return content

    def _cached(self, sha: str) -> Content | None:
        """A blob from this process's cache, else from the disk cache (then kept in memory too)."""
        content = self.blobs.get(sha)
        if content is None and self.disk is not None:
            data = self.disk.get_blob(sha)
            if data is not None:
                content = _as_stored(data)
                self.blobs.put(sha, content, len(data))
        return content

    def _keep(self, sha: str, data: bytes) -> Content:
        """A fetched blob into both caches; returns it as stored."""
        content = _as_stored(data)
        self.blobs.put(sha, content, len(data))
        if self.disk is not None:
            self.disk.put_blob(sha, data)
        return content

    def prefetch(self, listing: Listing, paths: Iterable[MemoryPath]) -> int:
        """Fetch the uncached files among `paths`: one archive when there are many, else
        several blobs at a time. Returns how many files were fetched."""
        missing: dict[MemoryPath, Entry] = {}
        for path in paths:
            entry = listing.entries.get(path.value)
            if entry is not None and entry.size <= size_limit(path) and self.blobs.get(entry.sha) is None:
                missing[path] = entry
        if missing and self.disk is not None:  # asked together: a bucket answers them side by side
            for sha, data in self.disk.get_blobs({e.sha for e in missing.values()}).items():
                self.blobs.put(sha, _as_stored(data), len(data))
            missing = {p: e for p, e in missing.items() if self.blobs.get(e.sha) is None}
        fetched = 0
        if len(missing) > ARCHIVE_OVER:
            problem = "its files differ from the stored blobs"
            try:
                fetched = self._from_archive(listing, missing)
            except ArchiveUnusable as exc:  # a few files are read blob by blob instead
                problem = str(exc)
            missing = {p: e for p, e in missing.items() if self.blobs.get(e.sha) is None}
            if len(missing) > BLOB_FALLBACK_MAX:
                raise BulkReadStopped(
                    f"Could not download the memory archive of {self.repo_name} ({problem}); reading "
                    f"its {len(missing)} files one by one would spend {len(missing)} requests, so "
                    "nothing more was read and nothing was written. Try again later."
                )
            if missing:
                log.warning("reading %d files as blobs: not in the archive (%s)", len(missing), problem)
        if missing:
            with ThreadPoolExecutor(PARALLEL_READS) as pool:
                list(pool.map(lambda item: self.blob_content(item[1], item[0]), missing.items()))
        return fetched + len(missing)

    def budget(self) -> Budget | None:
        """GitHub's primary rate budget as the last answer reported it (None before any)."""
        remaining, limit = self._gh.requester.rate_limiting
        if limit < 0:
            return None
        return Budget(remaining, limit, float(self._gh.requester.rate_limiting_resettime))

    # ------------------------------------------------------------------ internals

    def _from_archive(self, listing: Listing, wanted: Mapping[MemoryPath, Entry]) -> int:
        """Cache the wanted files from the commit's archive (those whose blob sha matches)."""
        what = "download the memory archive"
        try:
            url = self._call(lambda: self._repo.get_archive_link("tarball", listing.commit), what)
            data = self._call(lambda: download(url, self._timeout), what)
            files = list(matching_files(data, shas := {p.value: e.sha for p, e in wanted.items()}))
        except BudgetSpent:
            raise
        except (PreviouslyError, tarfile.TarError, OSError, EOFError, zlib.error) as exc:
            raise ArchiveUnusable(str(exc)) from exc
        count = 0
        for path, raw in files:
            self._keep(shas[path], raw)
            count += 1
        return count

    def _head(self) -> tuple[str, Listing | None]:
        with self._lock:
            if self._ref is None:
                self._ref = self._repo.get_git_ref(f"heads/{self.branch}")
            ref = self._ref
            self._call(ref.update, f"read branch {self.branch}")  # If-None-Match: a 304 is free
            if ref.object.type != "commit":
                raise StorageError(f"Branch {self.branch} of {self.repo_name} does not point at a commit.")
            head = ref.object.sha
            listing = self._listings.get(head)
            if listing is not None:
                self._listings.move_to_end(head)
            return head, listing

    def _fetch_listing(self, head: str) -> Listing:
        """The head's listing: kept, else assembled from what changed since a kept one."""
        listing = self._kept_listing(head)
        if listing is None:
            listing = Assembler(self._get_tree, self.lazy, self._base()).listing(head)
            self._keep_listing(listing)
        self._remember(listing)
        return listing

    def _kept_listing(self, commit: str) -> Listing | None:
        kept = self.disk.get_listing(commit) if self.disk is not None else None
        if kept is None:
            return None
        entries = {p: Entry(*e) for p, e in kept.entries.items()}
        return Listing.of(commit, kept.tree, entries, kept.trees, kept.unlisted)

    def _base(self) -> Listing | None:
        """An earlier listing to diff a new head against: this process's last, else the one the
        shared cache kept last for the branch."""
        with self._lock:
            if self._listings:
                return next(reversed(self._listings.values()))
        last = self.disk.get_last(self.branch) if self.disk is not None else None
        return self._kept_listing(last) if last is not None else None

    def expand(self, listing: Listing, folder: str, whole: bool = False) -> Listing:
        """`listing` with its unfetched `folder` fetched (`whole`: all under it, in one request);
        kept for the next snapshot too."""
        with self._lock:
            known = self._listings.get(listing.commit)
            fuller = known is not None and len(known.paths) >= len(listing.paths)
            if known is not None and fuller and not known.unlisted_within(folder):
                return known  # another snapshot of this commit fetched it already
            grown = Assembler(self._get_tree, self.lazy, None).expand(listing, folder, whole)
            self._remember(grown)
        self._keep_listing(grown)
        return grown

    def _keep_listing(self, listing: Listing) -> None:
        if self.disk is not None:
            files = {p: (e.sha, e.size, e.mode) for p, e in listing.entries.items()}
            kept = CachedListing(listing.tree, files, dict(listing.trees), tuple(sorted(listing.unlisted)))
            self.disk.put_listing(listing.commit, kept)
            self.disk.put_last(self.branch, listing.commit)

    def _get_tree(self, sha: str, recursive: bool) -> Mapping[str, Any]:
        """One tree answer as plain JSON (for tens of thousands of entries, dicts beat objects):
        from the shared cache when another process fetched that tree, else one request."""
        kept = self.disk.get_tree(sha, recursive) if self.disk is not None else None
        if kept is not None:
            return kept
        url = f"{self._repo.url}/git/trees/{quote(sha, safe='')}"
        params = {"recursive": 1} if recursive else None
        _, data = self._call(
            lambda: self._gh.requester.requestJsonAndCheck("GET", url, parameters=params),
            "list the memory files",
        )
        answer = cast(dict[str, Any], data)
        if self.disk is not None and answer.get("sha") == sha:  # a tree, not a commit, was asked
            self.disk.put_tree(sha, recursive, answer)
        return answer

    def _try_commit(
        self,
        listing: Listing,
        written: Mapping[MemoryPath, Content],
        message: str,
        deleted: Sequence[MemoryPath] = (),
    ) -> str | None:
        """Create tree and commit on `listing` and move the branch; None when it moved first."""
        for path, content in written.items():
            check_size(path, content)
        listing = self._fetched(listing, [*written, *deleted])
        elements = [self._tree_element(listing, p, content) for p, content in sorted(written.items())]
        # A null sha removes the path from the base tree.
        elements += [
            InputGitTreeElement(p.value, listing.mode_of(p.value), "blob", sha=None) for p in deleted
        ]
        requester = self._gh.requester
        base_tree = github.GitTree.GitTree(
            requester, url=f"{self._repo.url}/git/trees/{listing.tree}", attributes={"sha": listing.tree}
        )
        parent = github.GitCommit.GitCommit(
            requester,
            url=f"{self._repo.url}/git/commits/{listing.commit}",
            attributes={"sha": listing.commit},
        )
        tree = self._call(lambda: self._repo.create_git_tree(elements, base_tree=base_tree), "write the tree")
        new = self._call(lambda: self._repo.create_git_commit(message, tree, [parent]), "create the commit")
        ref = github.GitRef.GitRef(
            requester,
            url=f"{self._repo.url}/git/refs/heads/{quote(self.branch)}",
            attributes={"ref": f"refs/heads/{self.branch}"},
        )
        try:
            self._call(lambda: ref.edit(new.sha, force=False), f"move branch {self.branch}", conflicts=True)
        except RefConflict:
            return None
        after = listing.with_files(new.sha, tree.sha, written, deleted)
        self._remember(after)
        self._keep_listing(after)
        if self.disk is not None:  # the next process reads what this one wrote without asking
            for content in written.values():
                data = encoded(content)
                self.disk.put_blob(git_blob_sha(data), data)
        for content in written.values():
            data = encoded(content)
            self.blobs.put(git_blob_sha(data), content, len(data))
        return new.sha

    def _tree_element(self, listing: Listing, path: MemoryPath, content: Content) -> InputGitTreeElement:
        """A text goes inline in the tree; bytes (a picture) first become a blob of their own
        (`POST /git/blobs`, base64: one request, not repeated when a conflict retries)."""
        mode = listing.mode_of(path.value)
        if isinstance(content, str):
            return InputGitTreeElement(path.value, mode, "blob", content=content)
        sha = git_blob_sha(content)
        if sha not in self._posted:
            payload = base64.b64encode(content).decode("ascii")
            blob = self._call(lambda: self._repo.create_git_blob(payload, "base64"), f"write {path}")
            if blob.sha != sha:
                message = f"GitHub stored {path} as blob {blob.sha}, not {sha}; nothing was committed."
                raise StorageError(message)
            with self._lock:
                self._posted.add(sha)
        return InputGitTreeElement(path.value, mode, "blob", sha=sha)

    def _fetched(self, listing: Listing, paths: Iterable[MemoryPath]) -> Listing:
        """`listing` with the folders holding `paths` fetched (the new tree's shas need them)."""
        for path in paths:
            while (folder := listing.unlisted_over(path.value)) is not None:
                listing = self.expand(listing, folder)
        return listing

    def _remember(self, listing: Listing) -> None:
        with self._lock:
            self._listings[listing.commit] = listing
            self._listings.move_to_end(listing.commit)
            while len(self._listings) > _LISTINGS_KEPT:
                self._listings.popitem(last=False)

    def _call(self, fn: Callable[[], T], what: str, conflicts: bool = False) -> T:
        self._refuse_when_spent(what)
        target = Target(self.repo_name, self._branch)
        return call(fn, what, target, self.retry, conflicts=conflicts)

    def _refuse_when_spent(self, what: str) -> None:
        """Stop before a request GitHub would refuse: the budget is known to be spent."""
        budget = self.budget()
        now = self.retry.clock.now().timestamp()
        if budget is not None and budget.remaining <= 0 and budget.reset_at > now:
            message = spent_message(what, budget.limit, budget.reset_at, self.retry.clock)
            raise RateLimitSpent(message, budget.reset_at - now, budget.reset_at)


def _as_stored(data: bytes) -> Content:
    """A fetched blob as the cache keeps it: its text when it is UTF-8 (read most), else bytes."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data
