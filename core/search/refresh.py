"""Bringing the stored search index in line with the slice files (maintenance, imports).

A refresh compares every slice's blob sha (from the listing: no read) with the one it was
indexed from. The manifest's `built_from` record says which versions the index was built
from, as a whole and per segment, so an unchanged index costs one small read and a change
costs the segments it touches (core/search/built_from.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.clock import Clock
from core.memory.damage import frontmatter_problem as slice_damage_of
from core.memory.damage import read_or_skip
from core.memory.paths import MemoryPath
from core.search import built_from
from core.search.built_from import BuiltFrom, Part
from core.search.reader import Readable, read_slice, slice_paths
from core.search.segment import FINGERPRINT_LEN, DocMeta, DocTerms, Segment, analyze, fingerprint
from core.search.store import (
    MANIFEST,
    NeedsLoad,
    Router,
    SegmentInfo,
    StoredIndex,
    Unloaded,
    apply_changes,
    info_of,
    layout,
    load_manifest,
    load_stored,
    manifest_text,
    segment_path,
)
from core.storage.base import WriteBatch, blob_sha


@dataclass
class RefreshReport:
    """What a refresh changed in the stored index."""

    rebuilt: bool
    added: int = 0
    updated: int = 0
    removed: int = 0
    slices: int = 0
    segments: int = 0
    bytes: int = 0
    reasons: list[str] = field(default_factory=list)
    # Slices changed since they were indexed that are now damaged (unreadable ones leave the
    # index; broken frontmatter stays searchable by its turns): maintenance names them.
    damaged: list[str] = field(default_factory=list)


def analyze_file(snapshot: Readable, slice_id: str, path: MemoryPath) -> DocTerms | None:
    """One slice file analysed; None when it is missing or unreadable."""
    text = read_or_skip(snapshot, path)
    if text is None:
        return None
    return analyze(read_slice(slice_id, text), fingerprint(text))


def part_of(seg: Segment, version: str | None = None) -> Part:
    """The built-from record of a segment as it is now encoded."""
    text = seg.encode()
    digest = built_from.part_digest((d.slice_id, d.fingerprint) for d in seg.docs)
    return Part(version or blob_sha(text), digest, len(text))


def write_segments(
    batch: WriteBatch,
    segments: list[Segment | Unloaded],
    changed: set[str],
    old_names: list[str],
    clock: Clock,
) -> dict[str, Part]:
    """Queue the changed segments and the manifest; the parts of the index as it is left."""
    parts: dict[str, Part] = {}
    for seg in segments:
        if isinstance(seg, Unloaded):
            continue
        if seg.name in changed:
            batch.put(segment_path(seg.name), seg.encode())
        parts[seg.name] = part_of(seg, batch.version_of(segment_path(seg.name)))
    size = sum(s.bytes if isinstance(s, Unloaded) else len(s.encode()) for s in segments)
    finish(batch, [info_of(s) for s in segments], old_names, size, clock)
    return parts


def finish(
    batch: WriteBatch, infos: list[SegmentInfo], old_names: list[str], size: int, clock: Clock
) -> None:
    """Empty the segments no longer listed and queue the manifest for `infos`."""
    live = {i.name for i in infos}
    for name in old_names:
        if name not in live:
            # Storage has no delete: an orphaned segment is emptied so it costs nothing.
            batch.put(segment_path(name), Segment(name).encode())
    batch.put(MANIFEST, manifest_text(infos, clock.now(), size))


def refresh_index(batch: WriteBatch, clock: Clock, full: bool = False) -> RefreshReport:
    """Bring the stored index in line with the slice files (queued on `batch`, not committed).

    Only changed slices are read, fetched together; only the segments they belong to are
    loaded. `full` (or a missing, damaged or outdated index) rebuilds from scratch.
    """
    listed = slice_paths(batch)
    recorded = None if full else built_from.read_record(batch)
    same = built_from.current(batch, listed, recorded)
    if same is not None:  # built from exactly these slice versions: no segment is loaded
        return RefreshReport(False, slices=same.slices, segments=same.segments, bytes=same.bytes)
    report, parts = _refresh(batch, clock, full, listed, recorded)
    built_from.record(batch, listed, report.slices, report.bytes, parts)
    return report


def _refresh(
    batch: WriteBatch, clock: Clock, full: bool, listed: dict[str, MemoryPath], recorded: BuiltFrom | None
) -> tuple[RefreshReport, dict[str, Part]]:
    manifest = load_manifest(batch)
    if full or not manifest.present or manifest.problems:
        reasons = ["--full"] if full else manifest.problems or ([] if manifest.present else ["no index yet"])
        return _rebuild(batch, listed, manifest.names, reasons, clock)
    groups = _groups(manifest, listed)
    clean = built_from.clean_parts(batch, recorded, groups, listed)
    if clean and recorded is not None:
        owned = {sid for name in clean for sid in groups[name]}
        kept = {name: recorded.parts[name] for name in clean}
        try:
            return _incremental(batch, manifest, listed, clock, clean, owned, kept)
        except NeedsLoad:  # a change reaches a segment left unread: read them all
            manifest = load_manifest(batch)
    return _incremental(batch, manifest, listed, clock, {}, set(), {})


def _groups(manifest: StoredIndex, listed: dict[str, MemoryPath]) -> dict[str, list[str]]:
    """The listed slice ids each segment of the manifest owns (by the writers' routing)."""
    router = Router(manifest.infos)
    groups: dict[str, list[str]] = {i.name: [] for i in manifest.infos}
    for sid in listed:
        name = router(sid)
        if name in groups:
            groups[name].append(sid)
    return groups


def _rebuild(
    batch: WriteBatch, listed: dict[str, MemoryPath], old_names: list[str], reasons: list[str], clock: Clock
) -> tuple[RefreshReport, dict[str, Part]]:
    """Index every slice from scratch, a segment at a time: each is encoded and queued as soon
    as its run of slices is complete, so the build holds one segment's entries, not the memory's."""
    batch.prefetch(listed.values())  # a cold build reads everything: one archive on GitHub
    docs = (d for sid in sorted(listed) if (d := analyze_file(batch, sid, listed[sid])))
    infos: list[SegmentInfo] = []
    parts: dict[str, Part] = {}
    size = 0
    for seg in layout(docs):
        text = seg.encode()
        batch.put(segment_path(seg.name), text)
        infos.append(SegmentInfo.of(seg))
        parts[seg.name] = part_of(seg)
        size += len(text)
    finish(batch, infos, old_names, size, clock)
    count = sum(i.slices for i in infos)
    return RefreshReport(True, count, 0, 0, count, len(infos), size, reasons), parts


def _incremental(
    batch: WriteBatch,
    manifest: StoredIndex,
    listed: dict[str, MemoryPath],
    clock: Clock,
    clean: dict[str, int],
    owned: set[str],
    kept: dict[str, Part],
) -> tuple[RefreshReport, dict[str, Part]]:
    """Upsert the changed slices into the segments that are not `clean` (name → bytes; those
    stay unread, with the slices they own and their recorded parts)."""
    stored = load_stored(batch, manifest, skip=clean)
    if stored.problems:
        return _rebuild(batch, listed, stored.names, stored.problems, clock)
    loaded = {s.name: s for s in stored.segments}
    current: list[Segment | Unloaded] = [
        Unloaded(i, clean[i.name]) if i.name in clean else loaded[i.name] for i in manifest.infos
    ]
    indexed = {m.slice_id: m for seg in stored.segments for m in seg.docs}
    candidates = [sid for sid in sorted(listed) if sid not in owned]
    changed_ids = [sid for sid in candidates if not _unchanged(batch, indexed.get(sid), listed[sid])]
    upserts, added, unreadable, broken = _upserts(batch, changed_ids, indexed, listed)
    # A slice damaged since it was indexed leaves the index (a damaged file is never indexed),
    # so maintenance sees the gap and names it.
    removals = (set(indexed) - set(listed)) | (unreadable & set(indexed))
    segments, changed = apply_changes(current, upserts, removals)
    report = RefreshReport(
        False, added, len(upserts) - added, len(removals), damaged=sorted(unreadable | broken)
    )
    report.slices = sum(s.info.slices if isinstance(s, Unloaded) else len(s.docs) for s in segments)
    report.segments = len(segments)
    report.bytes = sum(s.bytes if isinstance(s, Unloaded) else len(s.encode()) for s in segments)
    if changed:
        parts = write_segments(batch, segments, changed, stored.names, clock)
    else:
        parts = {s.name: part_of(s, batch.version_of(segment_path(s.name))) for s in stored.segments}
    return report, {**parts, **kept}


def _upserts(
    batch: WriteBatch, changed_ids: list[str], indexed: dict[str, DocMeta], listed: dict[str, MemoryPath]
) -> tuple[list[DocTerms], int, set[str], set[str]]:
    """The changed slices analysed (fetched together), how many are new to the index, and the
    ids of those that can no longer be read and of those whose frontmatter is broken."""
    batch.prefetch(listed[sid] for sid in changed_ids)
    upserts: list[DocTerms] = []
    added = 0
    unreadable: set[str] = set()
    broken: set[str] = set()
    for sid in changed_ids:
        text = read_or_skip(batch, listed[sid])
        if text is None:
            unreadable.add(sid)
            continue
        meta = indexed.get(sid)
        if meta is not None and meta.fingerprint == fingerprint(text):
            continue
        added += int(meta is None)
        if slice_damage_of(text) is not None:
            broken.add(sid)
        upserts.append(analyze(read_slice(sid, text), fingerprint(text)))
    return upserts, added, unreadable, broken


def _unchanged(batch: WriteBatch, meta: DocMeta | None, path: MemoryPath) -> bool:
    """Whether the stored document was built from the file's current version (no read)."""
    version = batch.version_of(path)
    return meta is not None and version is not None and meta.fingerprint == version[:FINGERPRINT_LEN]
