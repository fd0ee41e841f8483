"""`search/built-from.json`: which slice versions the stored search index was built from.

A refresh compares every slice's blob sha with the index, which means loading every segment
(about one file per 500 slices). This one small file lets it skip that when nothing changed:
a digest of every listed slice's id and blob sha (free on GitHub: the tree listing carries
them) and one over the blob shas of the index's own files (manifest and segments) as written
with it. Both equal → the index is current.
Any change — a slice, another writer's index update, a damaged file — fails the comparison and
the refresh takes its ordinary path, so a stale or unreadable file costs nothing but time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass

from core.memory.formats import jsjson
from core.memory.paths import SEARCH_DIR, MemoryPath
from core.storage.base import WriteBatch

BUILT_FROM = SEARCH_DIR / "built-from.json"
SCHEMA = 1


@dataclass(frozen=True)
class BuiltFrom:
    """The versions an index was built from, and its size (for the refresh report)."""

    index: str  # digest of the index files' versions
    digest: str  # digest of the slices' versions
    slices: int
    segments: int
    bytes: int


def slices_digest(batch: WriteBatch, listed: Mapping[str, MemoryPath]) -> str | None:
    """SHA-1 over `<id> <blob sha>` of every listed slice; None when a version is unknown."""
    h = hashlib.sha1()
    for sid in sorted(listed):
        version = batch.version_of(listed[sid])
        if version is None:
            return None
        h.update(f"{sid} {version}\n".encode())
    return h.hexdigest()


def index_digest(batch: WriteBatch) -> str | None:
    """SHA-1 over `<path> <blob sha>` of every index file but this one; None when one is unknown."""
    h = hashlib.sha1()
    for path in batch.list(SEARCH_DIR):
        if path == BUILT_FROM:
            continue
        version = batch.version_of(path)
        if version is None:
            return None
        h.update(f"{path} {version}\n".encode())
    return h.hexdigest()


def parse_built_from(text: str | None) -> BuiltFrom | None:
    """The recorded versions; None when missing or unreadable (the refresh just checks fully)."""
    if not text:
        return None
    try:
        raw = json.loads(text)
        return BuiltFrom(
            str(raw["index"]),
            str(raw["digest"]),
            int(raw["slices"]),
            int(raw["segments"]),
            int(raw["bytes"]),
        )
    except (ValueError, KeyError, TypeError):
        return None


def current(batch: WriteBatch, listed: Mapping[str, MemoryPath]) -> BuiltFrom | None:
    """The record when the stored index was built from exactly these slices, else None."""
    try:
        recorded = parse_built_from(batch.read(BUILT_FROM))
    except ValueError:  # too large, not UTF-8: treated as missing
        return None
    if recorded is None or recorded.index != index_digest(batch):
        return None
    return recorded if recorded.digest == slices_digest(batch, listed) else None


def record(
    batch: WriteBatch, listed: Mapping[str, MemoryPath], slices: int, segments: int, size: int
) -> None:
    """Queue the record for the index as this batch leaves it (call after its writes are queued)."""
    digest, index = slices_digest(batch, listed), index_digest(batch)
    if digest is None or index is None:
        return
    row = BuiltFrom(index, digest, slices, segments, size)
    batch.put(BUILT_FROM, jsjson.dumps({"_schema": SCHEMA, **asdict(row)}))
