"""A demo persona's overlay in the run bucket, shared by every function and container of a stage.

Layout (docs/FORMAT.md "The demo overlay on AWS"), under `demo/<persona>/<visitor>/overlay/` for
each visitor (the cookie functions/api/guard.py sets; `demo/<persona>/overlay/` without one):

- `blobs/<sha>`: one object per overlaid file (its exact bytes), named by its git blob sha (write-once:
  the same text is the same object, so a retried write is harmless);
- `manifest.json`: which path holds which blob, when this overlay began (`started`), how many
  commits it took and how many bytes visitors wrote into it. A commit writes its blobs first,
  then replaces the manifest with the run store's compare-and-set (functions/aws/s3cas.py);
  a writer that loses the race re-evaluates its changes on the newer manifest.

The overlay is wiped `DEMO_OVERLAY_DAYS` after its first write: from then on readers see an
empty overlay and the next commit starts a new one. The bucket's lifecycle rule on `demo/`
deletes objects the same number of days after they were written, never sooner, so every blob
a live manifest names (written at or after its `started`) is still there. Each overlay takes at
most `DEMO_OVERLAY_MAX_BYTES` of writes; past that a commit is refused with TooLarge.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from core.clock import Clock, iso, parse_iso
from core.errors import ConflictError, InvalidInput, PathDenied, StorageError
from core.storage.base import Content, blob_sha, encoded
from core.storage.blobcache import BlobCache
from core.storage.demo import PERSONA_ID_RE, Resolve, check_overlay_room
from core.storage.paths import MemoryPath
from core.storage.visitor import visitor_id
from functions.aws.s3cas import put_if_unchanged, read_versioned

DEMO_PREFIX = "demo/"
DEMO_OVERLAY_DAYS = 1
DEMO_OVERLAY_MAX_BYTES = 20_000_000
_CAS_ATTEMPTS = 20
_SHA = re.compile(r"^[0-9a-f]{40}$")
WIPED = f"The demo wipes its changes {DEMO_OVERLAY_DAYS * 24} hours after the first one."


def overlay_prefix(persona: str, visitor: str | None = None) -> str:
    """Where a demo persona's overlay lives in the run bucket: one visitor's own under
    `demo/<persona>/<visitor>/overlay/`, the persona's shared one (no visitor) under
    `demo/<persona>/overlay/`. InvalidInput for an unsafe persona or visitor id."""
    if not PERSONA_ID_RE.fullmatch(persona):
        raise InvalidInput(f"Invalid demo persona id {persona!r}: lowercase letters, digits or '-' (<= 32).")
    if visitor is None:
        return f"{DEMO_PREFIX}{persona}/overlay/"
    if visitor_id(visitor) is None:
        raise InvalidInput(f"Invalid demo visitor id {visitor!r}: 32 lowercase hex digits.")
    return f"{DEMO_PREFIX}{persona}/{visitor}/overlay/"


def _sha(value: object) -> str:
    if not (isinstance(value, str) and _SHA.fullmatch(value)):
        raise ValueError(f"{value!r} is not a blob sha")
    return value


@dataclass(frozen=True)
class Manifest:
    """The overlay's index: path → blob sha, its start, commits and bytes written."""

    started: datetime
    commits: int = 0
    written_bytes: int = 0
    files: dict[MemoryPath, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, body: bytes, key: str) -> Manifest:
        try:
            raw = json.loads(body)
            return cls(
                parse_iso(str(raw["started"])),
                int(raw["commits"]),
                int(raw["written_bytes"]),
                {MemoryPath(str(p)): _sha(s) for p, s in dict(raw["files"]).items()},
            )
        except (ValueError, KeyError, TypeError, PathDenied) as exc:
            raise StorageError(
                f"The demo overlay's manifest {key} is damaged ({exc}); delete it to start the "
                "persona's overlay afresh (the bucket expires it within a day anyway)."
            ) from exc

    def render(self) -> bytes:
        raw = {
            "started": iso(self.started),
            "commits": self.commits,
            "written_bytes": self.written_bytes,
            "files": {p.value: s for p, s in sorted(self.files.items())},
        }
        return json.dumps(raw, ensure_ascii=False, indent=1).encode("utf-8")

    @property
    def version(self) -> str:
        """Changes with every commit; one value for every empty overlay (readers may cache by it)."""
        return f"demo-{int(self.started.timestamp())}-{self.commits}" if self.commits else "demo-0"


@dataclass(frozen=True)
class S3Files:
    """The overlay's files at one manifest; texts are fetched (and cached) on first read."""

    manifest: Manifest
    overlay: S3Overlay

    @property
    def version(self) -> str:
        return self.manifest.version

    def paths(self) -> list[MemoryPath]:
        return list(self.manifest.files)

    def read(self, path: MemoryPath) -> Content | None:
        sha = self.manifest.files.get(path)
        return None if sha is None else self.overlay.blob(sha)

    def sha(self, path: MemoryPath) -> str | None:
        return self.manifest.files.get(path)


class S3Overlay:
    """The Overlay of one demo persona in the run bucket (with `visitor`: that visitor's own)."""

    def __init__(
        self,
        client: Any,
        bucket: str,
        persona: str,
        clock: Clock,
        *,
        visitor: str | None = None,
        days: int = DEMO_OVERLAY_DAYS,
        max_bytes: int = DEMO_OVERLAY_MAX_BYTES,
    ) -> None:
        self.client = client
        self.bucket = bucket
        self.prefix = overlay_prefix(persona, visitor)
        self.clock = clock
        self.lifetime = timedelta(days=days)
        self.max_bytes = max_bytes
        self._cache = BlobCache(max_bytes=max_bytes)

    @property
    def manifest_key(self) -> str:
        return f"{self.prefix}manifest.json"

    def files(self) -> S3Files:
        return S3Files(self._current()[1], self)

    def apply(self, resolve: Resolve) -> tuple[str, tuple[MemoryPath, ...]]:
        for _ in range(_CAS_ATTEMPTS):
            etag, manifest = self._current()
            written = resolve(S3Files(manifest, self))
            if not written:
                return manifest.version, ()
            adding = sum(len(encoded(content)) for content in written.values())
            check_overlay_room(manifest.written_bytes, adding, self.max_bytes, WIPED)
            shas = {path: self._put_blob(content) for path, content in written.items()}
            newer = Manifest(
                manifest.started,
                manifest.commits + 1,
                manifest.written_bytes + adding,
                {**manifest.files, **shas},
            )
            if put_if_unchanged(self.client, self.bucket, self.manifest_key, newer.render(), etag):
                return newer.version, tuple(sorted(written))
        raise ConflictError("Too many visitors are writing to this demo persona at once; try again.")

    def _current(self) -> tuple[str | None, Manifest]:
        """The manifest and its ETag; a fresh, empty one when none is stored or it has expired."""
        etag, body = read_versioned(self.client, self.bucket, self.manifest_key)
        now = self.clock.now()
        if body is None:
            return None, Manifest(now)
        manifest = Manifest.parse(body, self.manifest_key)
        if now - manifest.started >= self.lifetime:
            return etag, Manifest(now)  # the next commit replaces the expired one
        return etag, manifest

    def blob(self, sha: str) -> Content:
        """A file by its blob sha: its text, or bytes when not UTF-8 (write-once, so a cached
        copy is never stale)."""
        cached = self._cache.get(sha)
        if cached is not None:
            return cached
        _, body = read_versioned(self.client, self.bucket, f"{self.prefix}blobs/{sha}")
        if body is None:
            raise StorageError(
                f"The demo overlay lost {self.prefix}blobs/{sha} before its manifest expired; "
                f"delete {self.manifest_key} to start the persona's overlay afresh."
            )
        if blob_sha(body) != sha:  # never a visitor's text altered in transit or at rest
            raise StorageError(
                f"The demo overlay's {self.prefix}blobs/{sha} does not hold the text it names; "
                f"delete {self.manifest_key} to start the persona's overlay afresh."
            )
        content: Content
        try:
            content = body.decode("utf-8")
        except UnicodeDecodeError:
            content = body  # a picture
        self._cache.put(sha, content, len(body))
        return content

    def _put_blob(self, content: Content) -> str:
        sha = blob_sha(content)
        is_text = isinstance(content, str)
        # Written again even when it exists: that restarts its lifecycle clock.
        self.client.put_object(
            Bucket=self.bucket,
            Key=f"{self.prefix}blobs/{sha}",
            Body=encoded(content),
            ContentType="text/plain; charset=utf-8" if is_text else "application/octet-stream",
        )
        self._cache.put(sha, content)
        return sha
