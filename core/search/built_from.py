"""The manifest's `built_from` record: which slice versions the stored search index was built from.

A refresh compares every slice's blob sha with the index, which means loading every segment
(about one file per 500 slices). This record in `search/manifest.json` (read anyway) lets it
skip that when nothing changed: a digest of every listed slice's id and blob sha (free on
GitHub: the tree listing carries them) and one over the blob shas of the index's segment
files as written with it. Both equal → the index is current.
Any change — a slice, another writer's index update, a damaged file — fails the comparison and
the refresh takes its ordinary path, so a stale or unreadable record costs nothing but time.
(Older versions kept it in `search/built-from.json`; that file is ignored.)

The record also keeps one `Part` per segment: the blob sha of the segment file as written and a
digest of the slice versions it holds. When the whole index is not current, a segment whose file
is unchanged and whose slices (the listed slices the manifest routes to it) have the versions it
was built from needs no change, and the refresh leaves it unread: a new slice or a turn's
re-index costs the one segment it touches, not every segment.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace

from core.errors import InvalidInput
from core.memory.paths import SEARCH_DIR, MemoryPath
from core.search.segment import FINGERPRINT_LEN
from core.search.store import MANIFEST, load_manifest, segment_path
from core.storage.base import WriteBatch

LEGACY_FILE = SEARCH_DIR / "built-from.json"
RECORD_KEY = "built_from"


@dataclass(frozen=True)
class Part:
    """One segment as the record saw it: its file's blob sha, its slices' digest, its size."""

    version: str
    digest: str
    bytes: int


@dataclass(frozen=True)
class BuiltFrom:
    """The versions an index was built from, and its size (for the refresh report)."""

    index: str  # digest of the index files' versions
    digest: str  # digest of the slices' versions
    slices: int
    segments: int
    bytes: int
    parts: dict[str, Part] = field(default_factory=dict)  # by segment name


def slices_digest(batch: WriteBatch, listed: Mapping[str, MemoryPath]) -> str | None:
    """SHA-1 over `<id> <blob sha>` of every listed slice; None when a version is unknown."""
    h = hashlib.sha1()
    for sid in sorted(listed):
        version = batch.version_of(listed[sid])
        if version is None:
            return None
        h.update(f"{sid} {version}\n".encode())
    return h.hexdigest()


def part_digest(pairs: Iterable[tuple[str, str]]) -> str:
    """SHA-1 over `<id> <fingerprint>` of a segment's slices, by id (a fingerprint is the first
    16 hex digits of the core.md's blob sha, as the segment stores it)."""
    h = hashlib.sha1()
    for sid, fp in sorted(pairs):
        h.update(f"{sid} {fp}\n".encode())
    return h.hexdigest()


def index_digest(batch: WriteBatch) -> str | None:
    """SHA-1 over `<path> <blob sha>` of every segment file; None when one is unknown."""
    h = hashlib.sha1()
    for path in batch.list(SEARCH_DIR):
        if path in (MANIFEST, LEGACY_FILE):
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
            _parts(raw.get("parts")),
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _parts(raw: object) -> dict[str, Part]:
    """The per-segment records; an unreadable one is left out (its segment is simply read)."""
    out: dict[str, Part] = {}
    for name, row in raw.items() if isinstance(raw, dict) else ():
        try:
            out[str(name)] = Part(str(row["version"]), str(row["digest"]), int(row["bytes"]))
        except (KeyError, TypeError, ValueError):
            continue
    return out


def read_record(batch: WriteBatch) -> BuiltFrom | None:
    """The record in the manifest; None when there is none or it is unreadable."""
    try:
        raw = json.loads(batch.read(MANIFEST) or "")
    except (ValueError, InvalidInput):  # not JSON, too large, not UTF-8: treated as missing
        return None
    record = raw.get(RECORD_KEY) if isinstance(raw, dict) else None
    found = parse_built_from(json.dumps(record)) if isinstance(record, dict) else None
    manifest = load_manifest(batch)
    if found is None or manifest.problems:  # another version's, or an unreadable segment list
        return None
    if set(found.parts) != set(manifest.names):  # the list changed since: parts only
        return replace(found, digest="")
    return found


def current(
    batch: WriteBatch, listed: Mapping[str, MemoryPath], recorded: BuiltFrom | None
) -> BuiltFrom | None:
    """The record when the stored index was built from exactly these slices, else None."""
    if recorded is None or recorded.index != index_digest(batch):
        return None
    return recorded if recorded.digest == slices_digest(batch, listed) else None


def clean_parts(
    batch: WriteBatch,
    recorded: BuiltFrom | None,
    groups: Mapping[str, list[str]],
    listed: Mapping[str, MemoryPath],
) -> dict[str, int]:
    """The segments (name → bytes) that need no change: file and slices as the record saw them.

    `groups` maps each segment named by the manifest to the listed slice ids routed to it.
    """
    if recorded is None:
        return {}
    out: dict[str, int] = {}
    for name, ids in groups.items():
        part = recorded.parts.get(name)
        if part is None or batch.version_of(segment_path(name)) != part.version:
            continue
        versions = [(sid, batch.version_of(listed[sid])) for sid in ids]
        known = all(v for _, v in versions)
        if known and part_digest((sid, str(v)[:FINGERPRINT_LEN]) for sid, v in versions) == part.digest:
            out[name] = part.bytes
    return out


def record(
    batch: WriteBatch,
    listed: Mapping[str, MemoryPath],
    slices: int,
    size: int,
    parts: Mapping[str, Part],
) -> None:
    """Queue the record into the manifest as this batch leaves it (call after its writes)."""
    digest, index = slices_digest(batch, listed), index_digest(batch)
    if digest is None or index is None:
        return
    row = asdict(BuiltFrom(index, digest, slices, len(parts), size))
    row["parts"] = {name: asdict(part) for name, part in sorted(parts.items())}

    def apply(text: str | None) -> str | None:
        try:
            data = json.loads(text or "")
        except ValueError:
            return None
        if not isinstance(data, dict) or data.get(RECORD_KEY) == row:
            return None
        data[RECORD_KEY] = row
        return json.dumps(data, indent=2) + "\n"

    batch.update(MANIFEST, apply)
