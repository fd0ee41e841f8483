"""Monthly indexes `slices/YYYY/MM/_index.json`: one entry per slice of the month, by id.

Kept for the original's readers and as the first-run seed of the catalog. Entries are upserted
by id and kept sorted; the file is 2-space JSON without a trailing newline.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from core.memory import paths
from core.memory.formats import jsjson
from core.memory.formats.memo import TextMemo
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
    truth and `previously weave` restores the rest of the month. Only the entry is rendered
    anew (`MonthlyFile`); the text is exactly `render_monthly` of the upserted entries.
    """
    sid = str(entry["id"])
    rendered = monthly_file(text).upsert(entry).render(_month(sid))
    return _MEMO.put(rendered.text, rendered).text


@dataclass(frozen=True, eq=False)
class MonthlyFile:
    """A month's entries as rendered: their ids and texts, in file order (sorted by id), and
    the file's text once `render` made it (empty for a file only parsed)."""

    ids: tuple[str, ...]
    items: tuple[str, ...]
    text: str = ""

    def upsert(self, entry: Mapping[str, Any]) -> MonthlyFile:
        """This month with `entry` in place of any entry with its id."""
        sid = str(entry["id"])
        lo, hi = bisect.bisect_left(self.ids, sid), bisect.bisect_right(self.ids, sid)
        item = jsjson.item(dict(entry), _ITEMS_AT)
        return MonthlyFile((*self.ids[:lo], sid, *self.ids[hi:]), (*self.items[:lo], item, *self.items[hi:]))

    def render(self, month: str) -> MonthlyFile:
        """This file with its text for `month` (the text `render_monthly` writes)."""
        slices = jsjson.rendered_member("slices", jsjson.join_items(list(self.items), _ITEMS_AT))
        text = jsjson.join_members([jsjson.member("month", month), slices])
        return MonthlyFile(self.ids, self.items, text)


_ITEMS_AT = "\n  "  # the slices list sits one level in
_MEMO: TextMemo[MonthlyFile] = TextMemo(8)


def monthly_file(text: str | None) -> MonthlyFile:
    """The month's entries parsed (tolerantly, as `parse_monthly`) and rendered, memoised by text."""
    found = None if text is None else _MEMO.get(text)
    if found is None:
        entries = sorted(parse_monthly(text)[0], key=lambda e: str(e["id"]))
        items = tuple(jsjson.item(e, _ITEMS_AT) for e in entries)
        found = MonthlyFile(tuple(str(e["id"]) for e in entries), items)
        if text is not None:
            _MEMO.put(text, found)
    return found


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
