"""The owner of the catalog's derived files — timeline/index.json and timeline.md rendered from
it, the pending and head files, the monthly `_index.json` — for the operations over one slice:
forget takes its entries out, edit and take-back refresh them.

Every change is queued on the batch over the current text; a damaged (unreadable) file is never
edited but rebuilt from the slice folders (`update_derived`, `weave_timeline`), so a broken
derived file never stops a forget or an edit.
"""

from __future__ import annotations

from datetime import datetime

from core.memory import paths
from core.memory.catalog.index import build_index, parse_index, read_or_none, render_files
from core.memory.catalog.monthly import monthly_path, remove_monthly
from core.memory.catalog.pending import remove_pending
from core.memory.catalog.weave import upsert_catalog_entry, upsert_monthly_entry, weave_timeline
from core.memory.owners.registry import update_derived
from core.memory.slice.model import Slice
from core.storage.base import WriteBatch


def queue_entries(batch: WriteBatch, s: Slice, now: datetime, locale: str) -> None:
    """Queue the slice's monthly and catalog entries as it now reads (edit, take-back, forget of
    one exchange)."""
    upsert_monthly_entry(batch, s)
    upsert_catalog_entry(batch, s, now, locale)


def queue_removal(batch: WriteBatch, slice_id: str, now: datetime, locale: str) -> None:
    """Queue the slice's removal from its monthly index, the catalog (timeline.md follows), and
    the active list and pending entries (a forgotten open slice must not come back from them)."""
    update_derived(batch, monthly_path(slice_id), lambda text: remove_monthly(text, slice_id))
    _queue_catalog_removal(batch, slice_id, now, locale)
    update_derived(batch, paths.PENDING_JSON, lambda text: remove_pending(text, slice_id))


def _queue_catalog_removal(batch: WriteBatch, slice_id: str, now: datetime, locale: str) -> None:
    """The catalog without the entry, timeline.md rendered from it; an unreadable catalog (which
    cannot be edited) is rebuilt from the slice folders, which no longer include this one."""
    if parse_index(read_or_none(batch, paths.CATALOG_JSON))[0] is None:
        md = read_or_none(batch, paths.TIMELINE_MD)
        if md is not None and slice_id in md:
            weave_timeline(batch, now, force=True, locale=locale)
        return
    state: dict[str, str | None] = {}

    def index_fn(text: str | None) -> str | None:
        state["md"] = None
        index, _ = parse_index(text)
        if index is None or all(e["id"] != slice_id for e in index["slices"]):
            return None
        doc = build_index([e for e in index["slices"] if e["id"] != slice_id], now)
        index_text, state["md"] = render_files(doc, locale)
        return index_text

    def md_fn(_: str | None) -> str | None:
        if "md" not in state:  # evaluate the catalog change first
            batch.read(paths.CATALOG_JSON)
        return state.get("md")

    batch.update(paths.CATALOG_JSON, index_fn)
    update_derived(batch, paths.TIMELINE_MD, md_fn)  # an unreadable timeline.md is written afresh
