"""The owner of the catalog's derived files — the month files and top file under timeline/
(core/memory/catalog/layout.py) and timeline.md rendered from them, the pending and head files,
the monthly `_index.json` — for the operations over one slice: forget takes its entries out,
edit and take-back refresh them.

Every change is queued on the batch over the current text; a damaged (unreadable) file is never
edited but rebuilt from the slice folders (`update_derived`, `weave_timeline`), so a broken
derived file never stops a forget or an edit.
"""

from __future__ import annotations

from datetime import datetime

from core.memory import paths
from core.memory.catalog.index import build_index, read_or_none, stored_catalog
from core.memory.catalog.layout import (
    TOP,
    month_of,
    parse_month,
    queue_catalog,
    read_months,
    render_month,
    split,
)
from core.memory.catalog.monthly import monthly_path, remove_monthly
from core.memory.catalog.pending import remove_pending
from core.memory.catalog.timeline_md import render_timeline_md
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
    """The catalog without the entry — only its month file and the top file change —
    timeline.md rendered from it; an unreadable catalog (which cannot be edited) is rebuilt from
    the slice folders, which no longer include this one. The single index.json of earlier
    versions is written in the month layout."""
    stored = stored_catalog(batch)
    if stored.doc is None or stored.damaged:
        md = read_or_none(batch, paths.TIMELINE_MD)
        if stored.damaged or (md is not None and slice_id in md):
            weave_timeline(batch, now, force=True, locale=locale)
        return
    if all(e["id"] != slice_id for e in stored.doc["slices"]):
        return
    if stored.legacy:
        doc = build_index([e for e in stored.doc["slices"] if e["id"] != slice_id], now)
        queue_catalog(batch, doc, stored.shas)
        batch.put(paths.TIMELINE_MD, render_timeline_md(doc, locale))
        return
    month = month_of(slice_id)
    state: dict[str, str | None] = {}

    def month_fn(text: str | None) -> str | None:
        entries = parse_month(month, text)
        if entries is None or all(e["id"] != slice_id for e in entries):
            return None
        left = [e for e in entries if e["id"] != slice_id]
        return render_month(month, left) if left else None

    def top_fn(text: str | None) -> str | None:
        state["md"] = None
        current = read_months(batch, text, editing=True)  # sees the month change queued before
        if current.doc is None or current.damaged:
            return None
        doc = build_index(current.doc["slices"], now)
        state["md"] = render_timeline_md(doc, locale)
        return split(doc, current.shas)[TOP]

    def md_fn(_: str | None) -> str | None:
        if "md" not in state:  # evaluate the catalog change first
            batch.read(TOP)
        return state.get("md")

    month_path = paths.catalog_month(month)
    if len(parse_month(month, batch.read(month_path)) or []) <= 1:
        batch.delete(month_path)  # its last entry goes: the month file goes with it
    else:
        batch.update(month_path, month_fn)
    batch.update(TOP, top_fn)
    update_derived(batch, paths.TIMELINE_MD, md_fn)  # an unreadable timeline.md is written afresh
