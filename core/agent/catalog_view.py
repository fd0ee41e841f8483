"""The timeline catalog as the agent reads it: the stored catalog, never older than the slices say.

The catalog is derived and may lag: it can be missing (a young memory), stale (a slice closed
minutes ago while the weave is throttled) or unreadable. Readers here never write. They rebuild
a missing or too-old catalog in memory and re-read the few entries that still say "active"
for slices before the current one, so a just-closed slice reads as closed everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from core.clock import try_parse_iso
from core.errors import InvalidInput
from core.memory import paths
from core.memory.catalog.entry import CatalogEntry, spread
from core.memory.catalog.head import head_catalog
from core.memory.catalog.index import entry_from_meta, read_index, slice_meta
from core.memory.catalog.weave import meta_loader, weave_catalog
from core.storage.base import Reader

REFRESH_LIMIT = 5
Entry = dict[str, Any]


class _Scratch:
    """A throw-away writer over a read view: lets the weave run without writing anything."""

    def __init__(self, view: Reader) -> None:
        self.view = view
        self.files: dict[paths.MemoryPath, str] = {}

    def read(self, path: paths.MemoryPath) -> str | None:
        return self.files[path] if path in self.files else self.view.read(path)

    def list(self, prefix: paths.MemoryPath) -> list[paths.MemoryPath]:
        return self.view.list(prefix)

    def put(self, path: paths.MemoryPath, text: str) -> None:
        self.files[path] = text

    def update(self, path: paths.MemoryPath, fn: Callable[[str | None], str | None]) -> None:
        new = fn(self.read(path))
        if new is not None:
            self.files[path] = new

    def delete(self, path: paths.MemoryPath) -> None:
        self.files.pop(path, None)


def rebuilt_catalog(view: Reader, now: datetime) -> dict[str, Any] | None:
    """The catalog woven in memory from the slice folders (nothing is written)."""
    doc, _ = weave_catalog(_Scratch(view), now, meta_loader(view), force=True)
    return doc


def read_catalog(view: Reader, now: datetime, max_age: timedelta | None = None) -> dict[str, Any] | None:
    """The stored catalog; rebuilt in memory when missing, unreadable, or older than `max_age`."""
    try:
        index = read_index(view)
    except InvalidInput:
        index = None
    if index is not None and max_age is not None:
        updated = try_parse_iso(index.get("updated_at"))
        if updated is None or now - updated > max_age:
            index = None
    return index if index is not None else rebuilt_catalog(view, now)


def read_recent_catalog(view: Reader, now: datetime, before: str, enough: int) -> dict[str, Any] | None:
    """Enough of the catalog for the `enough` newest closed slices before `before` and the
    counts of the rest: timeline/head.json with the pending entries when that is exact (a
    few kilobytes), else `read_catalog` (the whole catalog)."""
    return head_catalog(view, before, enough) or read_catalog(view, now)


def settle_before(view: Reader, index: Mapping[str, Any] | None, current_id: str) -> dict[str, Any] | None:
    """The catalog with entries before `current_id` that still say "active" re-read from their files."""
    if index is None:
        return None
    slices: list[Entry] = list(index.get("slices") or [])
    entries = [CatalogEntry.from_json(e) for e in slices]
    lagging = [i for i, e in enumerate(entries) if e and not e.closed and e.id < current_id]
    for i in sorted(lagging, key=lambda i: slices[i]["id"], reverse=True)[:REFRESH_LIMIT]:
        prior = entries[i]
        fresh = _entry_from_disk(view, slices[i]["id"])
        if prior is not None and fresh is not None:
            slices[i] = spread(prior, fresh).to_json()
    return {**index, "slices": slices}


def _entry_from_disk(view: Reader, slice_id: str) -> CatalogEntry | None:
    try:
        text = view.read(paths.core_md(slice_id))
        return None if text is None else entry_from_meta(slice_id, slice_meta(text))
    except InvalidInput:  # a broken core.md keeps its catalog entry; `check` names it
        return None


def known_ids(index: Mapping[str, Any] | None) -> set[str] | None:
    """Every slice id the catalog lists; None when there is no catalog to ask."""
    if index is None:
        return None
    return {str(e.get("id")) for e in index.get("slices") or [] if isinstance(e, Mapping)}
