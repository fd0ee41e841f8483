"""The newest slices at a glance, for the arrival briefing and `GET /api/state`.

Read from the timeline catalog (`memory/episodic/timeline/`, core/memory/catalog/layout.py)
when it exists, kept by version, whatever the size of the archive. Without a readable catalog
(a young memory, or one written by hand) the slice files themselves are listed and the newest read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from core.errors import DamagedFile, SliceFormatError
from core.memory.catalog.entry import CatalogEntry
from core.memory.catalog.kept import kept_damaged, kept_index, kept_strand, kept_strands
from core.memory.catalog.layout import catalog_version
from core.memory.catalog.strand_shards import read_menu
from core.memory.catalog.window import month_counts
from core.memory.damage import read_text
from core.memory.formats.memo import TextMemo
from core.memory.paths import (
    CATALOG_DAMAGED_JSON,
    PENDING_JSON,
    SLICES,
    MemoryPath,
    PathKind,
    SliceId,
    classify,
    core_md,
)
from core.memory.slice.model import as_text, count_turns, parse_core_frontmatter, salvage_turns
from core.storage.base import Versioned


class Lister(Protocol):
    """A read view that can also list (a Snapshot or a WriteBatch)."""

    def read(self, path: MemoryPath) -> str | None: ...

    def list(self, prefix: MemoryPath) -> list[MemoryPath]: ...


def catalog_entries(view: Lister) -> list[dict[str, Any]] | None:
    """The catalog's entries as stored (valid ids only); None when there is no readable catalog."""
    index = kept_index(view)
    return None if index is None else [dict(e) for e in index["slices"]]


_CATALOGS: TextMemo[list[dict[str, Any]]] = TextMemo(4)


def sorted_catalog(view: Lister) -> list[dict[str, Any]] | None:
    """The catalog's entries as stored, oldest first (by start, then id); None without a readable
    catalog. Sorted once per version of the catalog and pending.json and shared: do not change."""
    key = _versions(view, PENDING_JSON)
    found = _CATALOGS.get(key) if key else None
    if found is not None:
        return found
    entries = catalog_entries(view)
    if entries is None:
        return None
    entries.sort(key=lambda e: (as_text(e.get("start")), e["id"]))
    return _CATALOGS.put(key, entries) if key else entries


def catalog_slices(view: Lister) -> list[CatalogEntry] | None:
    """Every catalog entry, oldest first; None when there is no readable catalog."""
    entries = sorted_catalog(view)
    if entries is None:
        return None
    return [info for e in entries if (info := CatalogEntry.from_json(e))]


def catalog_entry(view: Lister, slice_id: str) -> CatalogEntry | None:
    """One slice's catalog entry (None when the catalog has none), without building the others."""
    for e in reversed(sorted_catalog(view) or []):
        if e.get("id") == slice_id:
            return CatalogEntry.from_json(e)
    return None


def _listed_ids(view: Lister) -> dict[str, str | None]:
    """slice id → legacy flat path (None for the directory layout), from one listing."""
    found: dict[str, str | None] = {}
    for path in view.list(SLICES):
        kind = classify(path)
        if kind.slice_id is None:
            continue
        if kind.kind is PathKind.CORE_MD:
            found[kind.slice_id.dash] = None
        elif kind.kind is PathKind.LEGACY_FLAT and kind.slice_id.dash not in found:
            found[kind.slice_id.dash] = path.value
    return found


def read_entry(view: Lister, sid: str, legacy: str | None = None) -> CatalogEntry | None:
    """The entry a slice's own file gives (a `problem` entry when it is damaged); None without one."""
    return _read_info(view, sid, legacy)


def _read_info(view: Lister, sid: str, legacy: str | None) -> CatalogEntry | None:
    path = MemoryPath(legacy) if legacy else core_md(sid)
    try:
        text = read_text(view, path)
    except DamagedFile as exc:
        return CatalogEntry(
            id=sid, date=SliceId.parse(sid).date, start=_folder_start(sid), problem=exc.damage.problem
        )
    if text is None:
        return None
    try:
        s = parse_core_frontmatter(text)
    except SliceFormatError as exc:
        start = _folder_start(sid)
        return CatalogEntry(
            id=sid,
            date=SliceId.parse(sid).date,
            start=start,
            turn_count=len(salvage_turns(text)),
            problem=str(exc),
        )
    return CatalogEntry(
        id=sid,
        date=SliceId.parse(sid).date,
        start=s.start,
        end=s.end,
        status=s.status,
        focus=s.focus,
        summary=s.summary,
        open_loops=list(s.open_loops),
        decisions=list(s.decisions),
        tags=list(s.tags),
        turn_count=count_turns(text),
        timezone=s.timezone,
    )


def recent_slices(view: Lister, limit: int = 8) -> list[CatalogEntry]:
    """The `limit` newest slices, newest first (catalog first, the slice files as a fallback)."""
    catalog = sorted_catalog(view)
    if catalog is not None:
        newest = reversed(catalog[-limit:]) if limit > 0 else iter(())
        return [info for e in newest if (info := CatalogEntry.from_json(e))]
    listed = _listed_ids(view)
    picked = sorted(listed, reverse=True)[: max(0, limit)]
    return [info for sid in picked if (info := _read_info(view, sid, listed[sid]))]


def _folder_start(sid: str) -> str:
    """The UTC minute a slice's folder names: its start, when the file cannot say."""
    return SliceId.parse(sid).start_iso


@dataclass(frozen=True)
class TimelineView:
    """Every slice, oldest first, with the month counts the wheel draws its scale from.

    `entries` is shared between requests (kept by the catalog files' versions): do not change
    it; `open_at` are the positions of slices still open, whose turn counts are read fresh.
    """

    entries: list[dict[str, Any]]
    months: list[tuple[str, int]]
    open_at: tuple[int, ...] = ()


_VIEWS: TextMemo[TimelineView] = TextMemo(4)


def timeline(view: Lister) -> list[dict[str, Any]]:
    """Every slice, oldest first: the catalog's entries, else one entry per slice file (copies
    the caller may change; `timeline_view` shares them)."""
    return [dict(e) for e in timeline_view(view).entries]


def timeline_view(view: Lister) -> TimelineView:
    """`timeline` with its month counts; sorted once per version of the catalog files.

    With a catalog no slice folder is listed: the slices the weave could not read come from
    damaged.json (`core.memory.catalog.damaged`), so a request costs the same at 100 slices as
    at 10,000 once the catalog's parse is kept. Without a catalog every slice file is listed.
    """
    key = _view_key(view)
    found = _VIEWS.get(key) if key else None
    if found is None:
        built = _build_view(view)
        if built is None:
            listed = _listed_ids(view)
            infos = [info for sid in sorted(listed) if (info := _read_info(view, sid, listed[sid]))]
            entries = [i.to_json() for i in infos]
            return TimelineView(entries, month_counts(entries))
        found = _VIEWS.put(key, built) if key else built
    if not found.open_at:
        return found
    fresh = list(found.entries)
    _count_open_turns(view, fresh, found.open_at)
    return replace(found, entries=fresh)


def _view_key(view: Lister) -> str | None:
    return _versions(view, PENDING_JSON, CATALOG_DAMAGED_JSON)


def _versions(view: Lister, *rest: MemoryPath) -> str | None:
    """A key of the catalog's and the files' versions ("-": absent); None when the reader cannot
    tell or there is no stored catalog (then nothing is kept)."""
    if not isinstance(view, Versioned):
        return None
    first = catalog_version(view)
    if first is None:
        return None
    return "|".join((first, *(view.version_of(p) or "-" for p in rest)))


def _build_view(view: Lister) -> TimelineView | None:
    catalog = sorted_catalog(view)
    if catalog is None:
        return None
    # A damaged slice the weave could not read still shows, with its problem, so it cannot vanish.
    known = {e["id"] for e in catalog}
    damaged = [dict(e) for e in kept_damaged(view) if e["id"] not in known]
    entries = list(catalog)
    if damaged:
        entries = sorted(entries + damaged, key=lambda e: (as_text(e.get("start")), e["id"]))
    open_at = tuple(i for i, e in enumerate(entries) if e.get("status") != "closed" and not e.get("problem"))
    return TimelineView(entries, month_counts(entries), open_at)


def _count_open_turns(view: Lister, entries: list[dict[str, Any]], at: Sequence[int]) -> None:
    """Refresh `turn_count` of slices still open: the catalog counts a slice when it is written
    whole, while turns keep arriving in its core.md (only the open ones, so one or two reads)."""
    for i in at:
        entry = CatalogEntry.from_json(entries[i])
        if entry is None or entry.closed or entry.problem:
            continue
        try:
            text = read_text(view, core_md(entry.id))
        except DamagedFile:
            continue
        if text is not None:
            entry.turn_count = count_turns(text)
            entries[i] = entry.to_json()


def strand_slices(view: Lister, name: str | None = None) -> dict[str, list[str]]:
    """The strands as strand → slice ids (dash form, file order); {} when absent or unreadable.
    With `name`, only that strand, from its shard alone ({} when there is none by that name)."""
    if name is not None:
        ids = kept_strand(view, name)
        return {} if ids is None else {name: list(ids)}
    return {key: list(ids) for key, ids in kept_strands(view).items()}


def strand_counts(view: Lister) -> dict[str, int]:
    """strand → how many slices it names (what the wheel's toolbar shows before a filter), from
    the menu (a few KB, not every strand's paths)."""
    return {key: entry.count for key, entry in read_menu(view).items()}
