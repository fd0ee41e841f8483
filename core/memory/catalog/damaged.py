"""The slices the weave found but could not read: `memory/episodic/timeline/damaged.json`.

A slice whose core.md is not UTF-8, too large or has broken frontmatter gets no catalog entry
(nothing in it can be trusted), yet it must not vanish from the timeline. The weave, which lists
every slice folder anyway, writes one entry per such slice here — its id, the minute its folder
names, the turns still readable and the problem — and the timeline route shows them beside the
catalog without listing the archive on every request. Derived: a damaged or missing copy is read
as an empty list, and the next weave writes it afresh.
"""

from __future__ import annotations

import json
from typing import Any

from core.memory.catalog.entry import CatalogEntry

Entry = dict[str, Any]


def parse_damaged(text: str | None) -> list[Entry]:
    """The entries of a damaged.json text (only objects with a valid slice id and a problem)."""
    if not text:
        return []
    try:
        value = json.loads(text)
    except ValueError:
        return []
    items = value.get("slices") if isinstance(value, dict) else None
    if not isinstance(items, list):
        return []
    out = []
    for item in items:
        entry = CatalogEntry.from_json(item)
        if entry is not None and entry.problem:
            out.append(entry.to_json())
    return out


def render_damaged(entries: list[CatalogEntry]) -> str:
    """damaged.json for these entries, oldest id first (2-space JSON, as every derived file)."""
    ordered = sorted(entries, key=lambda e: e.id)
    return json.dumps({"slices": [e.to_json() for e in ordered]}, ensure_ascii=False, indent=2)
