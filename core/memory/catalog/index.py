"""The timeline catalog: one entry per slice, by id, stored by month (core/memory/catalog/layout.py).

Derived from the slice files (they always win). Entries keep the key order of how they were
made (docs/FORMAT.md "The timeline catalog"): fresh from disk, carried over from a previous catalog, or
migrated from a monthly index. Reading goes through a `Reader`; writing queues into a batch.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.clock import iso, try_parse_iso
from core.errors import InvalidInput
from core.memory import paths
from core.memory.catalog.entry import CatalogEntry
from core.memory.catalog.layout import Stored, read_stored
from core.memory.catalog.pending import overlay, parse_active, parse_pending
from core.memory.catalog.timeline_md import render_timeline_md
from core.memory.formats import jsjson
from core.memory.paths import SliceId
from core.memory.slice.model import Slice, as_text, as_text_list, parse_frontmatter
from core.memory.slice.turns import count_turns
from core.storage.base import Reader

SCHEMA = 1
THROTTLE_MS = 300_000
Entry = dict[str, Any]


@dataclass(frozen=True)
class SliceMeta:
    """What the catalog needs of a core.md: its frontmatter mapping and its turn count.

    Not a `Slice`: the weave reads thousands of these, and a `MetaReader` may be swapped for a
    cheaper one, so the frontmatter stays the loaded mapping and the turns are only counted.
    """

    frontmatter: Mapping[str, Any]
    turn_count: int


MetaReader = Callable[[str], SliceMeta]


def slice_meta(text: str) -> SliceMeta:
    """A core.md's frontmatter and turn count (SliceFormatError when its YAML does not parse)."""
    return SliceMeta(parse_frontmatter(text), count_turns(text))


def coerce_list(value: Any) -> list[str]:
    """A frontmatter list of text, element-wise coerced, empty strings dropped."""
    return [text for text in as_text_list(value) if text]


def entry_from_meta(slice_id: str, meta: SliceMeta) -> CatalogEntry:
    """A fresh catalog entry from a slice file (strands are resolved later)."""
    fm = meta.frontmatter
    sid = SliceId.parse(slice_id)
    entry = CatalogEntry(
        id=sid.dash,
        date=sid.date,
        start=as_text(fm.get("start")) or f"{sid.date}T00:00:00.000Z",
        end=as_text(fm.get("end")),
        turn_count=meta.turn_count,
        **_described(fm),
    )
    entry.needs_marking = entry.dry
    return entry


def entry_from_slice(s: Slice, strands: Sequence[str] = ()) -> CatalogEntry:
    """A catalog entry from an in-memory slice (the upsert of a slice being written)."""
    sid = SliceId.parse(s.slice_id)
    fm = {
        "status": s.status,
        "focus": s.focus,
        "summary": s.summary,
        "tags": s.tags,
        "emotional_tone": s.emotional_tone,
        "open_loops": s.open_loops,
        "decisions": s.decisions,
    }
    entry = CatalogEntry(
        id=sid.dash,
        date=sid.date,
        start=s.start or f"{sid.date}T00:00:00.000Z",
        end=s.end,
        turn_count=len(s.turns),
        **_described(fm, list(strands)),
    )
    entry.needs_marking = entry.dry
    return entry


def _described(fm: Mapping[str, Any], strands: list[str] | None = None) -> dict[str, Any]:
    """The fields a slice's frontmatter describes, for one `CatalogEntry(...)` call."""
    return {
        "status": "closed" if fm.get("status") == "closed" else "active",
        "focus": as_text(fm.get("focus")),
        "summary": as_text(fm.get("summary")),
        "tags": coerce_list(fm.get("tags")),
        "tone": as_text(fm.get("emotional_tone")),
        "open_loops": coerce_list(fm.get("open_loops")),
        "decisions": coerce_list(fm.get("decisions")),
        "strands": strands or [],
    }


def entry_from_monthly(m: Mapping[str, Any]) -> CatalogEntry:
    """A catalog entry migrated from a monthly index (no turn count, end or tone there)."""
    sid = SliceId.parse(str(m["id"]))
    entry = CatalogEntry(
        id=sid.dash,
        date=sid.date,
        start=as_text(m.get("start")) or f"{sid.date}T00:00:00.000Z",
        status="closed" if m.get("status") == "closed" else "active",
        focus=as_text(m.get("focus")),
        summary=as_text(m.get("summary")),
        tags=coerce_list(m.get("tags")),
        open_loops=coerce_list(m.get("open_loops")),
        decisions=coerce_list(m.get("decisions")),
    )
    entry.needs_marking = entry.dry
    return entry


# ------------------------------------------------------------------ the document


def build_index(entries: Sequence[Entry], now: datetime) -> dict[str, Any]:
    """The catalog document over `entries` (sorted by id, counters recomputed)."""
    ordered = sorted(entries, key=lambda e: str(e["id"]))
    return {
        "_schema": SCHEMA,
        "updated_at": iso(now),
        "slice_count": len(ordered),
        "needs_marking": sum(1 for e in ordered if e.get("needs_marking") is True),
        "slices": ordered,
    }


def render_index(index: Mapping[str, Any]) -> str:
    """`JSON.stringify(index, null, 2)`."""
    return jsjson.dumps(index)


def parse_index(text: str | None) -> tuple[dict[str, Any] | None, list[str]]:
    """The catalog, tolerant: None when missing or unreadable; entries without an id are dropped."""
    if text is None:
        return None, []
    try:
        raw = json.loads(text)
    except ValueError as exc:
        return None, [f"not valid JSON ({exc}); `previously weave` rebuilds it"]
    if not isinstance(raw, dict) or not isinstance(raw.get("slices"), list):
        return None, ['must be an object with a "slices" list; `previously weave` rebuilds it']
    good = [e for e in raw["slices"] if isinstance(e, dict) and paths.is_slice_id(str(e.get("id", "")))]
    problems = []
    if len(good) != len(raw["slices"]):
        problems.append(f"{len(raw['slices']) - len(good)} entries without a valid slice id are ignored")
    return {**raw, "slices": good}, problems


def stored_catalog(reader: Reader) -> Stored:
    """The catalog as stored (core/memory/catalog/layout.py: its month files, or the single
    index.json of earlier versions), without the pending entries."""
    return read_stored(reader, lambda text: parse_index(text)[0])


def stored_index(reader: Reader) -> dict[str, Any] | None:
    """The stored catalog document; None when there is none or a part of it cannot be read."""
    found = stored_catalog(reader)
    return None if found.damaged else found.doc


def stored_index_text(reader: Reader) -> str | None:
    """The stored catalog as the single index.json would hold it (`render_index`), or None."""
    doc = stored_index(reader)
    return None if doc is None else render_index(doc)


def read_index(reader: Reader) -> dict[str, Any] | None:
    """The current catalog — the stored one with the entries still pending (`catalog_pending`)
    overlaid — or None when there is none (or it is unreadable)."""
    index = stored_index(reader)
    if index is None:
        return None
    return overlay(index, parse_pending(read_or_none(reader, paths.PENDING_JSON)))


def catalog_active(reader: Reader) -> list[str] | None:
    """The ids the catalog lists as active, from the small pending file alone; None when that
    file does not carry the list (the caller then looks at the slices or the catalog)."""
    return parse_active(read_or_none(reader, paths.PENDING_JSON))


def read_or_none(reader: Reader, path: paths.MemoryPath) -> str | None:
    """A derived file's text; None when missing or unreadable (too large, not UTF-8) — the
    callers rebuild such files from the slices, and `check` reports them."""
    try:
        return reader.read(path)
    except InvalidInput:
        return None


def is_fresh(index: Mapping[str, Any], now: datetime) -> bool:
    """Whether the catalog was refreshed less than 5 minutes ago (the weave's throttle)."""
    updated = try_parse_iso(index.get("updated_at"))
    return updated is not None and (now - updated).total_seconds() * 1000 < THROTTLE_MS


def render_files(index: Mapping[str, Any], locale: str) -> tuple[str, str]:
    """The single-file catalog text (what the month files hold together) and timeline.md."""
    return render_index(index), render_timeline_md(index, locale)
