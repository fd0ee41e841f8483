"""Catalog entries written since `timeline/index.json` was last rendered: `timeline/pending.json`.

A slice that opens or closes changes one catalog entry, but index.json (~570 bytes a slice) and
timeline.md are whole-archive files: re-rendering and uploading them on every such turn costs
megabytes at 10,000 slices. So a turn upserts the entry here (a small file, rewritten as an
Update so concurrent writers merge) and the next maintenance pass or weave folds the pending
entries into index.json and timeline.md and drops them from this file. `read_index` overlays
the pending entries, so our own readers always see the current catalog; the original's readers
of index.json see it as of the last maintenance pass (docs/FORMAT.md).
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


def render_pending(entries: Iterable[Mapping[str, Any]]) -> str:
    """`{"_schema": 1, "slices": [...]}` sorted by id, 2-space JSON without a trailing newline."""
    ordered = sorted((dict(e) for e in entries), key=lambda e: str(e["id"]))
    return jsjson.dumps({"_schema": SCHEMA, "slices": ordered})


def upsert_pending(text: str | None, entries: Sequence[Entry]) -> str:
    """Insert or replace `entries` (by id) in the pending file's text."""
    by_id = {str(e["id"]): e for e in parse_pending(text)}
    by_id.update({str(e["id"]): e for e in entries})
    return render_pending(by_id.values())


def drop_folded(text: str | None, folded: Sequence[Entry]) -> str | None:
    """The pending text without the entries a weave just folded into index.json.

    Only entries equal to what was folded go: one another writer upserted meanwhile stays.
    None (write nothing) when nothing changes.
    """
    if text is None:
        return None
    done = {str(e["id"]): e for e in folded}
    pending = parse_pending(text)
    new = render_pending(e for e in pending if done.get(str(e["id"])) != e)
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
