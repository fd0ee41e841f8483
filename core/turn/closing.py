"""Closing a slice (docs/ARCHITECTURE.md, step "close"): mark it, close it, and queue its indexes — for
prepare and maintain.

The close is a storage Update evaluated on the slice's current text, so a slice another writer
already closed is left alone and a retried step changes nothing twice. A slice that gets no
model marking gets the deterministic one, recorded as `marked_by: fallback`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.agent.workers.analyzer import CloseMarking
from core.clock import Clock, iso
from core.errors import ConflictError, NotFound
from core.memory.catalog.index import catalog_active, read_index
from core.memory.catalog.strand_shards import queue_strands, read_menu
from core.memory.catalog.strands import PRUNE_MIN_SLICES, prune
from core.memory.catalog.weave import (
    WeaveResult,
    meta_loader,
    queue_catalog_entries,
    upsert_monthly_entry,
    weave_catalog,
    weave_slice_strands,
)
from core.memory.paths import CATALOG_JSON, MemoryPath, core_md
from core.memory.slice.merge import SliceEdit, edit_slice
from core.memory.slice.model import Slice, parse_core_md
from core.memory.slice.slicer import (
    ActiveSlice,
    apply_close_marking,
    apply_fallback_mark,
    close_slice,
    find_active_slice,
)
from core.search import index_slice as index_for_search
from core.storage.base import Reader, WriteBatch

CATALOG_DIR = MemoryPath(CATALOG_JSON.parent)


def read_slice(reader: Reader, slice_id: str) -> Slice:
    """A slice as the reader sees it now; NotFound when it has no core.md."""
    text = reader.read(core_md(slice_id))
    if text is None:
        raise NotFound(f"Slice {slice_id} has no core.md.")
    return parse_core_md(text)


def recover_active(reader: Reader, now: datetime) -> ActiveSlice | None:
    """The active slice (docs/FORMAT.md "core.md": `status: active`); a legacy flat file already
    closed into the folder layout does not count (its closed copy wins). The catalog's active ids
    (timeline/pending.json) say which folders to read; without them the day folders are read."""
    active = find_active_slice(reader, now, catalog_active(reader))
    if active is not None and active.legacy and reader.read(core_md(active.slice.slice_id)) is not None:
        return None
    return active


def close_edit(signal: str, now: datetime, locale: str, marking: CloseMarking | None) -> SliceEdit:
    """The close as an edit of the slice's current state (None: it is already closed)."""

    def edit(s: Slice) -> Slice | None:
        if s.closed:
            return None
        if marking is not None:
            s = apply_close_marking(s, marking.focus, marking.summary, marking.tags, marking.tone)
        return close_slice(apply_fallback_mark(s, locale), signal, now)

    return edit


@dataclass(frozen=True)
class Closed:
    """A slice closed in this batch, as it now reads."""

    slice: Slice
    signal: str


def queue_close(
    batch: WriteBatch,
    active: ActiveSlice,
    signal: str,
    *,
    clock: Clock,
    locale: str,
    marking: CloseMarking | None = None,
) -> Closed:
    """Queue the close of `active` and its monthly entry, strands and search index (the catalog
    entry is the caller's: `upsert_catalog`, once for every slice the batch touches)."""
    now = clock.now()
    sid = active.slice.slice_id
    # A legacy flat file is closed into the folder layout (the flat file itself is never rewritten).
    create = active.slice if active.legacy else None
    edit_slice(close_edit(signal, now, locale, marking), iso(now), create=create).queue(batch, sid)
    closed = read_slice(batch, sid)
    upsert_monthly_entry(batch, closed)
    weave_slice_strands(batch, closed)
    index_for_search(batch, sid, clock)
    return Closed(closed, signal)


def active_ids(reader: Reader) -> set[str]:
    """The ids the catalog (with its pending entries) lists as active: from the pending file's
    list when it has one, else from the whole catalog (megabytes at 10,000 slices)."""
    listed = catalog_active(reader)
    if listed is not None:
        return set(listed)
    index = read_index(reader)
    return {str(e["id"]) for e in index["slices"] if e.get("status") == "active"} if index else set()


def upsert_catalog(
    batch: WriteBatch,
    slices: Sequence[Slice],
    now: datetime,
    locale: str,
    *,
    known_active: set[str] | None = None,
) -> None:
    """Queue the catalog entries of these slices (into timeline/pending.json: a small file;
    maintenance folds it into the catalog's month files). No-op without a catalog.

    With `known_active`, the update refuses (ConflictError) pending entries that list an active
    slice outside it and these slices: another writer opened one since the caller looked.
    """
    if known_active is None:
        queue_catalog_entries(batch, slices)
        return
    known = known_active | {s.slice_id for s in slices}
    queue_catalog_entries(batch, slices, check=lambda pending: _refuse_new_active(pending, known))


def _refuse_new_active(entries: Sequence[dict[str, Any]], known: set[str]) -> None:
    active = {str(e["id"]) for e in entries if e.get("status") == "active"}
    others = sorted(active - known)
    if others:
        raise ConflictError(f"Another writer opened slice {others[0]} meanwhile; saving the message again.")


def forced_weave(batch: WriteBatch, now: datetime, locale: str) -> WeaveResult:
    """Reconcile the catalog with the slice folders now (after a close)."""
    return weave_catalog(batch, now, meta_loader(batch), force=True, locale=locale)[1]


def ensure_catalog(batch: WriteBatch, now: datetime, locale: str) -> bool:
    """Build the catalog when the memory has none yet (first turn, imported slices); True if built.

    A turn never reconciles an existing catalog (that costs a listing of the whole archive):
    slices are upserted as they are created and closed, and maintenance reconciles the rest.
    """
    if batch.list(CATALOG_DIR):
        return False
    forced_weave(batch, now, locale)
    return True


def prune_strands(batch: WriteBatch, now: datetime) -> list[str]:
    """Queue the deterministic strand prune (docs/FORMAT.md "strands"); the keys it drops.

    The menu tells which strands the prune drops (a strand under two slices has all its paths
    in the menu's newest few), so only their shards are read and rewritten."""
    menu = read_menu(batch)
    few = {key: list(entry.latest) for key, entry in menu.items() if entry.count < PRUNE_MIN_SLICES}
    _, dropped = prune(few, now)
    if dropped:
        queue_strands(batch, lambda strands: prune(strands, now)[0], dropped)
    return dropped
