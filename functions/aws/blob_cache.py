"""GitHub's blobs and listings kept in the run bucket, so every Lambda container shares them.

The Lambda side of core/storage/disk_cache.py (a folder there, the run bucket here), with the
same rules: keys are content addresses (`cache/github/<repo>/blobs/<sha>`, a blob's own git
sha; `…/trees/<sha>` and `…/trees-all/<sha>`, a tree's answer one level or whole;
`…/listings-v2/<commit>`, a commit's tree listing), so nothing kept can be stale (only
`…/last/<branch>`, the commit last listed, changes: a hint to diff a new head against), and what is
read back is checked — a blob against its sha, a listing against its shape — and anything
else is a miss, never served. A cold container then reads the ref, its commit's listing and
the blobs it needs from the bucket, and from GitHub only what no container has fetched yet.

Writes go out on a few background threads and are dropped past a byte budget (a cache that
cannot keep up is only slower; a container frozen mid-write finishes at its next request).
Objects under `cache/` expire by the bucket's lifecycle (infra/run_store.py): a blob still in
use is fetched once more from GitHub after that.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from core.storage.disk_cache import (
    LISTINGS,
    CachedListing,
    blob_if_sound,
    listing_bytes,
    parse_listing,
    tree_kind,
    well_formed_sha,
)
from core.storage.git_trees import answer_bytes, parse_answer

log = logging.getLogger(__name__)
CACHE_PREFIX = "cache/"  # the lifecycle rule's prefix
PARALLEL = 16  # reads and writes in flight at once
PENDING_MAX_BYTES = 64 * 1024 * 1024  # queued writes past this are dropped
_OFF = ("off", "none", "0", "false")


class S3BlobCache:
    """`SharedCache` over one bucket and prefix; safe to share between threads."""

    def __init__(self, client: Any, bucket: str, repo: str) -> None:
        self.client, self.bucket = client, bucket
        self.prefix = f"{CACHE_PREFIX}github/{re.sub(r'[^A-Za-z0-9._-]', '_', repo.replace('/', '__'))}/"
        self._pool = ThreadPoolExecutor(PARALLEL, thread_name_prefix="blob-cache")
        self._lock = threading.Lock()
        self._pending: set[Future[None]] = set()
        self._pending_bytes = 0
        self.dropped = 0  # writes left out past the budget (for tests and logs)

    # ------------------------------------------------------------------ blobs

    def get_blob(self, sha: str) -> bytes | None:
        return blob_if_sound(sha, self._get("blobs", sha)) if well_formed_sha(sha) else None

    def get_blobs(self, shas: Iterable[str]) -> dict[str, bytes]:
        wanted = [sha for sha in dict.fromkeys(shas) if well_formed_sha(sha)]
        if len(wanted) <= 1:
            return {sha: data for sha in wanted if (data := self.get_blob(sha)) is not None}
        found = dict(zip(wanted, self._pool.map(self.get_blob, wanted), strict=True))
        return {sha: data for sha, data in found.items() if data is not None}

    def put_blob(self, sha: str, data: bytes) -> None:
        if well_formed_sha(sha) and blob_if_sound(sha, data) is not None:
            self._put_later(self._key("blobs", sha), data)

    # ------------------------------------------------------------------ listings

    def get_listing(self, commit: str) -> CachedListing | None:
        data = self._get(LISTINGS, commit) if well_formed_sha(commit) else None
        return parse_listing(data) if data is not None else None

    def put_listing(self, commit: str, listing: CachedListing) -> None:
        """Kept unless the bucket holds a listing of the commit at least as full (longer)."""
        body = listing_bytes(listing)
        if well_formed_sha(commit) and body is not None:
            self._put_later(self._key(LISTINGS, commit), body, unless_as_long=True)

    # ------------------------------------------------------------------ trees

    def get_tree(self, sha: str, recursive: bool) -> dict[str, Any] | None:
        if not well_formed_sha(sha):
            return None
        return parse_answer(sha, self._get(tree_kind(recursive), sha), recursive)

    def put_tree(self, sha: str, recursive: bool, answer: Mapping[str, Any]) -> None:
        body = answer_bytes(answer) if well_formed_sha(sha) and answer.get("sha") == sha else None
        if body is not None:
            self._put_later(self._key(tree_kind(recursive), sha), body)

    def get_last(self, branch: str) -> str | None:
        data = self._get("last", re.sub(r"[^A-Za-z0-9._-]", "_", branch))
        sha = data.decode("ascii", "replace").strip() if data is not None else None
        return sha if well_formed_sha(sha) else None

    def put_last(self, branch: str, commit: str) -> None:
        if well_formed_sha(commit):
            self._put_later(self._key("last", re.sub(r"[^A-Za-z0-9._-]", "_", branch)), commit.encode())

    # ------------------------------------------------------------------ writes

    def flush(self) -> None:
        """Wait for the queued writes (tests; a handler may call it before it returns)."""
        with self._lock:
            pending = list(self._pending)
        for future in pending:
            future.exception()

    def _put_later(self, key: str, body: bytes, unless_as_long: bool = False) -> None:
        with self._lock:
            if self._pending_bytes + len(body) > PENDING_MAX_BYTES:
                self.dropped += 1
                return
            self._pending_bytes += len(body)
            future = self._pool.submit(self._put, key, body, unless_as_long)
            self._pending.add(future)
        size = len(body)
        future.add_done_callback(lambda f: self._done(f, size))

    def _done(self, future: Future[None], size: int) -> None:
        with self._lock:
            self._pending.discard(future)
            self._pending_bytes -= size

    def _put(self, key: str, body: bytes, unless_as_long: bool = False) -> None:
        try:
            if unless_as_long and self._size(key) >= len(body):
                return
            self.client.put_object(Bucket=self.bucket, Key=key, Body=body)
        except Exception as exc:  # a cache that cannot write is only slower
            log.warning("could not keep %s in the run bucket: %s", key, exc)

    # ------------------------------------------------------------------ reads

    def _size(self, key: str) -> int:
        """The object's length, -1 when there is none."""
        try:
            return int(self.client.head_object(Bucket=self.bucket, Key=key)["ContentLength"])
        except Exception:  # absent (a 404 here is a ClientError, not NoSuchKey) or unreadable
            return -1

    def _key(self, kind: str, sha: str) -> str:
        return f"{self.prefix}{kind}/{sha}"

    def _get(self, kind: str, sha: str) -> bytes | None:
        try:
            got = self.client.get_object(Bucket=self.bucket, Key=self._key(kind, sha))
            return bytes(got["Body"].read())
        except self.client.exceptions.NoSuchKey:
            return None
        except Exception as exc:  # a cache that cannot read is a miss
            log.warning("could not read %s from the run bucket: %s", self._key(kind, sha), exc)
            return None


def run_bucket_cache(
    setting: str | None, repo: str, client: Any = None, env: Mapping[str, str] | None = None
) -> S3BlobCache | None:
    """The run bucket's cache for `repo` inside a deployed Lambda (RUN_BUCKET set), unless
    `PREVIOUSLY_CACHE_DIR` turns caching off; None anywhere else."""
    env = os.environ if env is None else env
    if setting is not None and setting.strip().lower() in _OFF:
        return None
    bucket = env.get("RUN_BUCKET", "")
    if not (env.get("AWS_LAMBDA_FUNCTION_NAME") and bucket and repo):
        return None
    if client is None:
        from functions.aws.environment import boto_client

        client = boto_client("s3")
    return S3BlobCache(client, bucket, repo)
