"""A window of the timeline: the slices the page shows now, and a month summary of the rest.

`GET /api/timeline` answers a page of the catalog instead of the whole archive: the newest
`limit` slices by default, or those just before / after / around one slice. `months` counts
every slice by the month it started, so the wheel can draw the whole span from one small list.
Pure: it works on the entries `timeline()` already sorted oldest → newest.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.errors import InvalidInput, NotFound
from core.memory.paths import SliceId
from core.memory.slice.model import as_text

DEFAULT_LIMIT = 300
MAX_LIMIT = 2000
Entry = dict[str, Any]


@dataclass(frozen=True)
class Window:
    """`slices` (oldest first) are `entries[offset : offset + len(slices)]` of `total`."""

    slices: list[Entry]
    offset: int
    total: int
    months: list[tuple[str, int]]


def _key(entry: Entry) -> tuple[str, str]:
    return (as_text(entry.get("start")), str(entry.get("id", "")))


def month_counts(entries: Sequence[Entry]) -> list[tuple[str, int]]:
    """("YYYY-MM", slices started that month), oldest month first."""
    counts: dict[str, int] = {}
    for e in entries:
        month = (as_text(e.get("start")) or as_text(e.get("date")))[:7]
        counts[month] = counts.get(month, 0) + 1
    return sorted(counts.items())


def _position(entries: Sequence[Entry], slice_id: str) -> int | None:
    for i, e in enumerate(entries):
        if e.get("id") == slice_id:
            return i
    return None


def _boundary(entries: Sequence[Entry], slice_id: str) -> tuple[int, int]:
    """(first index of the slice, index after it); a slice no longer there sorts by its folder
    minute, so a page holding an id that has since gone still gets its neighbours."""
    at = _position(entries, slice_id)
    if at is not None:
        return at, at + 1
    where = bisect.bisect_left([_key(e) for e in entries], (SliceId.parse(slice_id).start_iso, slice_id))
    return where, where


def window(
    entries: Sequence[Entry],
    *,
    around: str | None = None,
    before: str | None = None,
    after: str | None = None,
    limit: int = DEFAULT_LIMIT,
    months: list[tuple[str, int]] | None = None,
) -> Window:
    """The page of `entries` asked for (at most one of around / before / after; none: the newest).

    `months`: the entries' `month_counts`, when the caller keeps them already."""
    if sum(x is not None for x in (around, before, after)) > 1:
        raise InvalidInput("Give at most one of around, before and after.")
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}.")
    total = len(entries)
    counted = month_counts(entries) if months is None else months
    if around is not None:
        at = _position(entries, around)
        if at is None:
            raise NotFound(f"There is no slice {around}; GET /api/timeline lists the slices that exist.")
        start = max(0, min(at - limit // 2, total - limit))
    elif before is not None:
        end = _boundary(entries, before)[0]
        start = max(0, end - limit)
        return Window(list(entries[start:end]), start, total, counted)
    elif after is not None:
        start = _boundary(entries, after)[1]
    else:
        start = max(0, total - limit)
    return Window(list(entries[start : start + limit]), start, total, counted)
