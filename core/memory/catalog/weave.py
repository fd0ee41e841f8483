"""Weaving the timeline: reconcile the catalog with the slice folders, and upsert one slice.

The slice files win: entries for folders that vanished (phantoms) are dropped, folders the
catalog does not know are read and added, and entries that are still dry or dated today are
re-read. In a turn the weave is throttled to once per 5 minutes unless forced.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import datetime
from typing import Any, Protocol

from core.clock import iso
from core.errors import InvalidInput
from core.memory import paths
from core.memory.catalog import settled
from core.memory.catalog.damaged import render_damaged
from core.memory.catalog.entry import CatalogEntry, spread
from core.memory.catalog.head import head_of
from core.memory.catalog.index import (
    MetaReader,
    SliceMeta,
    build_index,
    entry_from_meta,
    entry_from_monthly,
    entry_from_slice,
    is_fresh,
    read_or_none,
    slice_meta,
    stored_catalog,
)
from core.memory.catalog.layout import has_catalog, queue_catalog, read_top
from core.memory.catalog.monthly import monthly_entry, monthly_path, parse_monthly, upsert_monthly
from core.memory.catalog.pending import drop_folded, overlay, parse_pending, upsert_pending
from core.memory.catalog.recent import read_entry
from core.memory.catalog.shas import Versions
from core.memory.catalog.strand_shards import ShardWriter, queue_weave, read_menu
from core.memory.catalog.timeline_md import render_timeline_md
from core.memory.owners.registry import update_derived
from core.memory.slice.model import Slice
from core.storage.base import Reader, blob_sha, prefetch, version_of

SEED_MONTHS = 24
_CATALOG_DIR = paths.MemoryPath(paths.CATALOG_TOP_JSON.parent)

Progress = Callable[[], None]  # called once per slice read


class Writer(Reader, Protocol):
    """A batch to queue writes into (a WriteBatch)."""

    def put(self, path: paths.MemoryPath, text: str) -> None: ...

    def delete(self, path: paths.MemoryPath) -> None: ...

    def update(self, path: paths.MemoryPath, fn: Callable[[str | None], str | None]) -> None: ...


@dataclass(frozen=True)
class WeaveResult:
    """What a weave did (the counters of the original's result)."""

    added: int = 0
    removed: int = 0
    newly_dry: int = 0
    needs_marking: int = 0
    total: int = 0
    skipped: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def list_slice_ids(reader: Reader) -> list[str]:
    """Ids of every slice folder (`YYYY/MM/DD/HHMM/` holding at least one file), ascending."""
    return slice_ids_in(reader.list(paths.SLICES))


def slice_ids_in(listing: Iterable[paths.MemoryPath]) -> list[str]:
    """The slice ids a listing of `memory/episodic/slices/` shows."""
    found: set[str] = set()
    for path in listing:
        if sid := paths.classify(path).folder_id:
            found.add(sid.dash)
    return sorted(found)


def seed_from_monthly(reader: Reader, now: datetime) -> dict[str, CatalogEntry]:
    """First-run projection: entries of the monthly indexes of the last 24 months."""
    year, month = now.year, now.month
    seeded: dict[str, CatalogEntry] = {}
    for _ in range(SEED_MONTHS):
        text = read_or_none(reader, paths.monthly_index(f"{year:04d}", f"{month:02d}"))
        for m in parse_monthly(text)[0]:
            if paths.is_slice_id(m["id"]):
                seeded.setdefault(m["id"], entry_from_monthly(m))
        year, month = (year, month - 1) if month > 1 else (year - 1, 12)
    return seeded


def may_be_stale(prior: CatalogEntry | None, today: str, reread_all: bool = False) -> bool:
    """Whether an entry must be made again from its slice: new, dry, dated today, or all asked."""
    return prior is None or reread_all or prior.needs_marking or prior.date == today


def reconcile(
    projected: Mapping[str, CatalogEntry],
    slice_ids: Iterable[str],
    read_meta: Callable[[str], SliceMeta | None],
    today: str,
    reread_all: bool = False,
    unchanged: Callable[[str], bool] = lambda sid: False,
    problems: Mapping[str, str] | None = None,
) -> tuple[list[CatalogEntry], WeaveResult]:
    """Entries for the slices on disk, reusing projected ones where they cannot be stale
    (`unchanged`: the slice's file is still the version its entry was made from).

    `problems` (slice id → what is wrong) marks the entries of slices found damaged since they
    were catalogued; an entry so marked is read again by every weave until its file reads.
    """
    entries: list[CatalogEntry] = []
    added = newly_dry = 0
    on_disk = set()
    for sid in slice_ids:
        on_disk.add(sid)
        prior = projected.get(sid)
        if prior is not None and problems and sid in problems:
            entries.append(replace(prior, problem=problems[sid]))
            continue
        if prior is not None and prior.problem:
            meta = read_meta(sid)
            entries.append(prior if meta is None else entry_from_meta(sid, meta))
            continue
        if prior is None:
            meta = read_meta(sid)
            if meta is not None:
                entries.append(entry_from_meta(sid, meta))
                added += 1
            continue
        if not may_be_stale(prior, today, reread_all) or (not reread_all and unchanged(sid)):
            entries.append(prior)
            continue
        meta = read_meta(sid)
        if meta is None:
            entries.append(prior)
            continue
        fresh = entry_from_meta(sid, meta)
        # A spread merge: keys the disk no longer has survive, as in the original.
        entry = fresh if reread_all else spread(prior, fresh)
        if not prior.needs_marking and entry.needs_marking:
            newly_dry += 1
        entries.append(entry)
    removed = sum(1 for sid in projected if sid not in on_disk)
    return entries, WeaveResult(added=added, removed=removed, newly_dry=newly_dry)


def resolve_strands(entries: Iterable[CatalogEntry], strand_keys: Iterable[str]) -> None:
    """Set each entry's `strands`: its tags that are exact strand keys."""
    keys = set(strand_keys)
    for entry in entries:
        entry.strands = [t for t in entry.tags if t in keys]


def weave_timeline(
    batch: Writer,
    now: datetime,
    *,
    read_meta: MetaReader = slice_meta,
    force: bool = False,
    reread_all: bool = False,
    locale: str = "en",
    progress: Progress | None = None,
) -> WeaveResult:
    """Reconcile the catalog with the slice folders and queue its files + timeline.md."""
    load = meta_loader(batch, read_meta, progress)
    return weave_catalog(batch, now, load, force=force, reread_all=reread_all, locale=locale)[1]


def weave_catalog(
    batch: Writer,
    now: datetime,
    load: Callable[[str], SliceMeta | None],
    *,
    slice_ids: list[str] | None = None,
    force: bool = False,
    reread_all: bool = False,
    locale: str = "en",
    keep_time_if_unchanged: bool = False,
    problems: Mapping[str, str] | None = None,
) -> tuple[dict[str, Any] | None, WeaveResult]:
    """`weave_timeline` with a given slice loader (and optionally the listed ids); also returns
    the new catalog document (None when the throttle skipped the weave)."""
    if slice_ids is None:
        slice_ids = list_slice_ids(batch)
    today = iso(now)[:10]
    if keep_time_if_unchanged and not reread_all and not problems:
        nothing = _settled_result(batch, slice_ids, today)
        if nothing is not None:  # a maintenance pass over an unchanged memory reads no month file
            return None, nothing
    stored = stored_catalog(batch)
    index = stored.doc  # a damaged month is left out: its slices are read again
    pending_text = read_or_none(batch, paths.PENDING_JSON) if index is not None else None
    if index is not None and not force and is_fresh(index, now):
        skipped = WeaveResult(
            needs_marking=int(index.get("needs_marking") or 0),
            total=int(index.get("slice_count") or 0),
            skipped=True,
        )
        return None, skipped
    current = overlay(index, parse_pending(pending_text))
    projected = (
        {e.id: e for e in map(CatalogEntry.from_json, current["slices"]) if e}
        if current is not None
        else seed_from_monthly(batch, now)
    )
    versions = Versions(stored.shas, lambda sid: version_of(batch, paths.core_md(sid)))
    unchanged = versions.unchanged if projected else (lambda sid: False)
    stale = [s for s in slice_ids if may_be_stale(projected.get(s), today, reread_all) and not unchanged(s)]
    prefetch(batch, [paths.core_md(sid) for sid in stale])  # fetched together (an archive when many)
    entries, counts = reconcile(projected, slice_ids, load, today, reread_all, unchanged, problems)
    resolve_strands(entries, read_menu(batch))
    doc = build_index([e.to_json() for e in entries], now)
    if keep_time_if_unchanged and index is not None and index.get("slices") == doc["slices"]:
        doc["updated_at"] = index.get("updated_at", doc["updated_at"])  # a no-op rebuild writes nothing
    # A full rebuild keeps the recorded versions: an unchanged file still gives the same entry.
    shas = stored.shas if reread_all else versions.record(doc["slices"], today)
    top_text = queue_catalog(batch, doc, shas, settled.settled_mark(doc["slices"], shas, slice_ids, batch))
    batch.put(paths.TIMELINE_MD, render_timeline_md(doc, locale))
    _record_unreadable(batch, slice_ids, {e.id for e in entries})
    folded = parse_pending(pending_text)  # a fresh copy: the entries above may have been changed
    active = [str(e["id"]) for e in doc["slices"] if e.get("status") == "active"]
    head = head_of(doc, blob_sha(top_text))
    update_derived(batch, paths.PENDING_JSON, lambda text: drop_folded(text, folded, active, head))
    result = WeaveResult(
        added=counts.added,
        removed=counts.removed,
        newly_dry=counts.newly_dry,
        needs_marking=doc["needs_marking"],
        total=doc["slice_count"],
    )
    return doc, result


def _settled_result(batch: Writer, slice_ids: list[str], today: str) -> WeaveResult | None:
    """The result of a weave that would change nothing, told from the top file and the listing
    (core/memory/catalog/settled.py); None when that cannot be told."""
    top = read_top(batch)
    pending = parse_pending(read_or_none(batch, paths.PENDING_JSON))
    if top is None or not settled.unchanged(batch, top, slice_ids, today, pending):
        return None
    counters = top.counters
    return WeaveResult(
        needs_marking=int(counters.get("needs_marking") or 0), total=int(counters.get("slice_count") or 0)
    )


def _record_unreadable(batch: Writer, slice_ids: Iterable[str], catalogued: set[str]) -> None:
    """Write damaged.json: the listed slices that got no entry because their file cannot be read
    (a folder without a core.md is no slice and stays out). Written only when it changes."""
    unreadable = [
        entry
        for sid in slice_ids
        if sid not in catalogued and (entry := read_entry(batch, sid)) is not None and entry.problem
    ]
    before = read_or_none(batch, paths.CATALOG_DAMAGED_JSON)
    text = render_damaged(unreadable)
    if before != text and (unreadable or before is not None):
        batch.put(paths.CATALOG_DAMAGED_JSON, text)


def meta_loader(
    reader: Reader, read_meta: MetaReader = slice_meta, progress: Progress | None = None
) -> Callable[[str], SliceMeta | None]:
    """Read one slice's metadata by id; None when its core.md is missing or unreadable."""

    def load(slice_id: str) -> SliceMeta | None:
        if progress:
            progress()
        try:
            text = reader.read(paths.core_md(slice_id))
            return None if text is None else read_meta(text)
        except InvalidInput:  # broken YAML, too large, not UTF-8: `check` names it; the weave skips it
            return None

    return load


def index_slice(
    batch: ShardWriter, s: Slice, now: datetime, locale: str = "en", created: bool = False
) -> None:
    """Queue the index updates for a slice just written: monthly entry, strands, and — for a
    newly created slice — its catalog entry (the throttled weave refreshes the others)."""
    upsert_monthly_entry(batch, s)
    weave_slice_strands(batch, s)
    if created:
        upsert_catalog_entry(batch, s, now, locale)


def upsert_monthly_entry(batch: Writer, s: Slice) -> None:
    """Queue the slice's entry into its month's `_index.json` (an Update: merges on conflict)."""
    update_derived(batch, monthly_path(s.slice_id), lambda text: upsert_monthly(text, monthly_entry(s)))


def weave_slice_strands(batch: ShardWriter, s: Slice) -> None:
    """Queue the slice's tags into the strands (only their shards; nothing when it has no tags)."""
    if s.tags:
        queue_weave(batch, s.tags, paths.slice_rel(s.slice_id))


def upsert_catalog_entry(batch: Writer, s: Slice, now: datetime, locale: str = "en") -> None:
    """Queue the slice's catalog entry (see `queue_catalog_entries`)."""
    queue_catalog_entries(batch, [s])


def queue_catalog_entries(
    batch: Writer, slices: Sequence[Slice], check: Callable[[list[dict[str, Any]]], None] | None = None
) -> None:
    """Queue these slices' catalog entries into `timeline/pending.json`; no-op without a catalog.

    The catalog and timeline.md are not rewritten here (megabytes at 10,000 slices): the next
    maintenance pass or weave folds the pending entries in, and `read_index` overlays them
    meanwhile. The entry's strands are its tags that are strand keys now, as a weave sets them.
    `check` sees the pending entries before each write (and may refuse with an error).
    """
    if not slices or not has_catalog(batch.list(_CATALOG_DIR)):
        return
    # Only tags can be strand keys: a slice without tags (one just opened) needs no strands read.
    keys = set(read_menu(batch)) if any(s.tags for s in slices) else set()
    entries = [entry_from_slice(s, [t for t in s.tags if t in keys]).to_json() for s in slices]

    def update(text: str | None) -> str:
        if check is not None:  # re-run against the current file on a conflict
            check(parse_pending(text))
        return upsert_pending(text, entries)

    update_derived(batch, paths.PENDING_JSON, update)
