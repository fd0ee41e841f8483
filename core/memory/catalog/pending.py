"""Catalog entries written since the catalog was last rendered: `timeline/pending.json`.

A slice that opens or closes changes one catalog entry, but timeline.md is a whole-archive file
and the catalog's top file changes with every fold: re-rendering and uploading them on every
such turn costs megabytes at 10,000 slices. So a turn upserts the entry here (a small file,
rewritten as an Update so concurrent writers merge) and the next maintenance pass or weave folds
the pending entries into the catalog's month files and timeline.md and drops them from this
file. `read_index` overlays the pending entries, so our own readers always see the current
catalog; a reader of the month files alone sees it as of the last maintenance pass
(docs/FORMAT.md).

The file also carries `active`: the ids of every slice the catalog lists as active. A weave
writes the whole list (it knows the whole catalog); every upsert keeps it in step with the
entries it writes. A turn looks for its active slice among these ids instead of reading every
slice of a day folder. The list is absent from files written before it existed (and from an
unreadable file): readers then fall back to the folders, until the next weave writes it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from core.memory import paths
from core.memory.formats import jsjson

SCHEMA = 1
Entry = dict[str, Any]


def parse_pending(text: str | None) -> list[Entry]:
    """The pending entries, tolerant: an unreadable file holds none (the next weave re-reads
    the slices anyway, so nothing is lost — the slice files are the truth)."""
    if not text:
        return []
    try:
        raw = json.loads(text)
    except ValueError:
        return []
    slices = raw.get("slices") if isinstance(raw, dict) else None
    if not isinstance(slices, list):
        return []
    return [e for e in slices if isinstance(e, dict) and paths.is_slice_id(str(e.get("id", "")))]


def parse_active(text: str | None) -> list[str] | None:
    """The ids the catalog lists as active, ascending; None when the file does not say (missing,
    unreadable, written before the list existed, or a list that is not one of slice ids)."""
    if not text:
        return None
    try:
        raw = json.loads(text)
    except ValueError:
        return None
    ids = raw.get("active") if isinstance(raw, dict) else None
    if not isinstance(ids, list) or not all(isinstance(i, str) and paths.is_slice_id(i) for i in ids):
        return None
    return sorted(set(ids))


def raw_head(text: str | None) -> Any:
    """The file's `head` value as stored (read by core/memory/catalog/head.py); None without one."""
    try:
        raw = json.loads(text) if text else None
    except ValueError:
        return None
    return raw.get("head") if isinstance(raw, dict) else None


def render_pending(
    entries: Iterable[Mapping[str, Any]], active: Iterable[str] | None = None, head: Any = None
) -> str:
    """`{"_schema": 1, "active": [...], "slices": [...], "head": {...}}` sorted by id, 2-space
    JSON without a trailing newline (`active` and `head` only when known)."""
    ordered = sorted((dict(e) for e in entries), key=lambda e: str(e["id"]))
    doc: dict[str, Any] = {"_schema": SCHEMA}
    if active is not None:
        doc["active"] = sorted(set(active))
    doc["slices"] = ordered
    if head is not None:
        doc["head"] = head
    return jsjson.dumps(doc)


def _step_active(active: Iterable[str], entries: Iterable[Mapping[str, Any]]) -> set[str]:
    """The active ids after these entries (newer than the list) are written."""
    out = set(active)
    for e in entries:
        if e.get("status") == "active":
            out.add(str(e["id"]))
        else:
            out.discard(str(e["id"]))
    return out


def upsert_pending(text: str | None, entries: Sequence[Entry]) -> str:
    """Insert or replace `entries` (by id) in the pending file's text (and keep `active` in step)."""
    by_id = {str(e["id"]): e for e in parse_pending(text)}
    by_id.update({str(e["id"]): e for e in entries})
    active = parse_active(text)
    stepped = None if active is None else _step_active(active, entries)
    return render_pending(by_id.values(), stepped, raw_head(text))


def drop_folded(
    text: str | None,
    folded: Sequence[Entry],
    catalog_active: Iterable[str] | None = None,
    head: Any = None,
) -> str | None:
    """The pending text without the entries a weave just folded into the catalog.

    Only entries equal to what was folded go: one another writer upserted meanwhile stays.
    With `catalog_active` (the active ids of the catalog the weave wrote) the file's `active`
    list is rewritten from it, the entries that stay (newer) applied on top, and `head` (that
    catalog's newest entries, core/memory/catalog/head.py) replaces the stored one; a missing
    file is then created to carry them. None (write nothing) when nothing changes.
    """
    if text is None and catalog_active is None:
        return None
    done = {str(e["id"]): e for e in folded}
    kept = [e for e in parse_pending(text) if done.get(str(e["id"])) != e]
    if catalog_active is None:
        new = render_pending(kept, parse_active(text), raw_head(text))
    else:
        new = render_pending(kept, _step_active(catalog_active, kept), head)
    return None if new == text else new


def overlay(index: dict[str, Any] | None, pending: Sequence[Entry]) -> dict[str, Any] | None:
    """The catalog with the pending entries upserted (counters recomputed, `updated_at` kept)."""
    if index is None or not pending:
        return index
    by_id = {str(e["id"]): e for e in index["slices"]}
    by_id.update({str(e["id"]): e for e in pending})
    ordered = sorted(by_id.values(), key=lambda e: str(e["id"]))
    needs = sum(1 for e in ordered if e.get("needs_marking") is True)
    return {**index, "slice_count": len(ordered), "needs_marking": needs, "slices": ordered}


def remove_pending(text: str | None, slice_id: str) -> str | None:
    """The pending file without `slice_id` (its entry and its place in `active`); None when it
    does not mention the slice (nothing to write)."""
    entries = parse_pending(text)
    active = parse_active(text)
    if all(str(e["id"]) != slice_id for e in entries) and slice_id not in (active or []):
        return None
    kept = [e for e in entries if str(e["id"]) != slice_id]
    stepped = None if active is None else [i for i in active if i != slice_id]
    return render_pending(kept, stepped, raw_head(text))
