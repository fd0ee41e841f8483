"""A full rebuild of the derived indexes from the slice files (`previously weave`).

Every slice is read once; then the strands (shards and menu), the catalog (its month files +
timeline.md) and the
monthly indexes are rebuilt from what the slices say. No model runs and nothing is marked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.memory import paths
from core.memory.catalog.index import MetaReader, SliceMeta, coerce_list, read_or_none, slice_meta
from core.memory.catalog.monthly import monthly_entry_from_catalog, render_monthly
from core.memory.catalog.strand_shards import ShardWriter, put_strands, read_all_strands
from core.memory.catalog.strands import rebuild_strands
from core.memory.catalog.weave import Progress, WeaveResult, Writer, meta_loader, slice_ids_in, weave_catalog
from core.storage.base import prefetch

_FLAT = paths.PathKind.LEGACY_FLAT


@dataclass(frozen=True)
class RebuildReport:
    """What a rebuild found and queued."""

    slices: int
    unreadable: list[str]
    catalog: WeaveResult
    months: int
    strand_paths_added: int
    strand_phantoms_dropped: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "slices": self.slices,
            "unreadable": self.unreadable,
            "catalog": self.catalog.as_dict(),
            "months": self.months,
            "strand_paths_added": self.strand_paths_added,
            "strand_phantoms_dropped": self.strand_phantoms_dropped,
        }


def rebuild_indexes(
    batch: ShardWriter,
    now: datetime,
    locale: str = "en",
    progress: Progress | None = None,
    on_total: Callable[[int], None] | None = None,
    read_meta: MetaReader = slice_meta,
) -> RebuildReport:
    """Queue rebuilt strands (shards and menu), the catalog, timeline.md and monthly indexes into `batch`."""
    listing = batch.list(paths.SLICES)
    slice_ids = slice_ids_in(listing)
    if on_total:
        on_total(len(slice_ids))
    # Every slice and every file the rebuild compares with: one archive download on GitHub.
    derived = [p for p in listing if paths.classify(p).kind is paths.PathKind.MONTHLY_INDEX]
    derived += [paths.CATALOG_TOP_JSON, *batch.list(paths.CATALOG_MONTHS), paths.CATALOG_JSON]
    derived += [paths.TIMELINE_MD, paths.STRANDS_JSON, paths.STRANDS_MENU, *batch.list(paths.STRANDS_DIR)]
    prefetch(batch, [*(paths.core_md(sid) for sid in slice_ids), *derived])
    load = meta_loader(batch, read_meta, progress)
    metas: dict[str, SliceMeta | None] = {sid: load(sid) for sid in slice_ids}

    strands = read_all_strands(batch)
    existing = [(paths.slice_rel(sid), _tags(metas[sid])) for sid in slice_ids]
    flat_ids = [c.slice_id for p in listing if (c := paths.classify(p)).kind is _FLAT and c.slice_id]
    existing += [(sid.slash, []) for sid in flat_ids]
    rebuilt = rebuild_strands(strands, existing)
    had = read_or_none(batch, paths.STRANDS_JSON) is not None or bool(batch.list(paths.STRANDS_DIR))
    if rebuilt.strands or had:
        put_strands(batch, rebuilt.strands)

    doc, result = weave_catalog(
        batch,
        now,
        metas.__getitem__,
        slice_ids=slice_ids,
        force=True,
        reread_all=True,
        locale=locale,
        keep_time_if_unchanged=True,
    )
    months = _rebuild_months(batch, doc["slices"] if doc else [], listing)
    return RebuildReport(
        slices=len(slice_ids),
        unreadable=[sid for sid, meta in metas.items() if meta is None],
        catalog=result,
        months=months,
        strand_paths_added=rebuilt.paths_added,
        strand_phantoms_dropped=rebuilt.phantom_paths,
    )


def _tags(meta: SliceMeta | None) -> list[str]:
    return coerce_list(meta.frontmatter.get("tags")) if meta else []


def _rebuild_months(batch: Writer, entries: list[dict[str, Any]], listing: list[paths.MemoryPath]) -> int:
    """Write every month's index from the catalog; months left without slices become empty."""
    by_month: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for entry in entries:
        sid = paths.SliceId.parse(entry["id"])
        by_month.setdefault((sid.year, sid.month), []).append(monthly_entry_from_catalog(entry))
    for path in listing:
        if folder := paths.classify(path).month:
            by_month.setdefault(folder, [])
    for (year, month), month_entries in sorted(by_month.items()):
        batch.put(paths.monthly_index(year, month), render_monthly(f"{year}-{month}", month_entries))
    return len(by_month)
