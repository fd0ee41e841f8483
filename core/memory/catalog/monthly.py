"""Monthly indexes `slices/YYYY/MM/_index.json`: one entry per slice of the month, by id.

Kept for the original's readers and as the first-run seed of the catalog. Entries are upserted
by id and kept sorted; the file is 2-space JSON without a trailing newline.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from core.memory import paths
from core.memory.formats import jsjson
from core.memory.slice.model import Slice

ENTRY_KEYS = ("id", "focus", "summary", "tags", "status", "start", "open_loops", "decisions")


def monthly_entry(s: Slice) -> dict[str, Any]:
    """A slice's entry in its month's index."""
    return {
        "id": s.slice_id,
        "focus": s.focus,
        "summary": s.summary,
        "tags": list(s.tags),
        "status": s.status,
        "start": s.start,
        "open_loops": list(s.open_loops),
        "decisions": list(s.decisions),
    }


def monthly_entry_from_catalog(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The monthly view of a catalog entry (same facts, the monthly key order)."""
    return {
        key: entry.get(key, [] if key in ("tags", "open_loops", "decisions") else "") for key in ENTRY_KEYS
    }


def monthly_path(slice_id: str) -> paths.MemoryPath:
    """The index file of the slice's month."""
    return paths.SliceId.parse(slice_id).monthly_index


def parse_monthly(text: str | None) -> tuple[list[dict[str, Any]], list[str]]:
    """The entries of a monthly index, tolerant: returns (entries, problems)."""
    if text is None:
        return [], []
    try:
        raw = json.loads(text)
    except ValueError as exc:
        return [], [f"not valid JSON ({exc})"]
    slices = raw.get("slices") if isinstance(raw, dict) else None
    if not isinstance(slices, list):
        return [], ['must be an object with a "slices" list']
    good = [e for e in slices if isinstance(e, dict) and isinstance(e.get("id"), str)]
    problems = [] if len(good) == len(slices) else [f"{len(slices) - len(good)} entries without an id"]
    return good, problems


def render_monthly(month: str, entries: Iterable[Mapping[str, Any]]) -> str:
    """`{"month": "YYYY-MM", "slices": [...]}` sorted by id."""
    ordered = sorted(entries, key=lambda e: str(e["id"]))
    return jsjson.dumps({"month": month, "slices": ordered})


def upsert_monthly(text: str | None, entry: Mapping[str, Any]) -> str:
    """Insert or replace `entry` (by id) in a month's index text.

    An unreadable index is rebuilt around this entry: the slice files stay the source of
    truth and `previously weave` restores the rest of the month.
    """
    entries, _ = parse_monthly(text)
    kept = [e for e in entries if e["id"] != entry["id"]]
    kept.append(dict(entry))
    return render_monthly(_month(str(entry["id"])), kept)


def remove_monthly(text: str | None, slice_id: str) -> str | None:
    """The month's index without the slice's entry (forgetting); None when it holds none."""
    entries, _ = parse_monthly(text)
    if not any(e["id"] == slice_id for e in entries):
        return None
    return render_monthly(_month(slice_id), [e for e in entries if e["id"] != slice_id])


def _month(slice_id: str) -> str:
    """`YYYY-MM`: the month a slice belongs to (the file's `month` key)."""
    sid = paths.SliceId.parse(slice_id)
    return f"{sid.year}-{sid.month}"
