"""The newest slices at a glance, for the arrival briefing and `GET /api/state`.

Read from the timeline catalog (`memory/episodic/timeline/index.json`) when it exists — one
small file, whatever the size of the archive. Without a readable catalog (a young memory, or
one written by hand) the slice files themselves are listed and the newest read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.errors import SliceFormatError
from core.memory.catalog.index import read_index, read_or_none
from core.memory.catalog.strands_file import load_strands
from core.memory.damage import DamagedFile, read_text
from core.memory.paths import (
    SLICES,
    STRANDS_JSON,
    MemoryPath,
    core_md,
    is_slice_id,
    legacy_flat_slice_id,
    parse_slice_id,
    slice_id_from_rel,
)
from core.memory.slice.model import as_text, as_text_list, count_turns, parse_core_frontmatter, salvage_turns


class Lister(Protocol):
    """A read view that can also list (a Snapshot or a WriteBatch)."""

    def read(self, path: MemoryPath) -> str | None: ...

    def list(self, prefix: MemoryPath) -> list[MemoryPath]: ...


@dataclass(frozen=True)
class SliceInfo:
    """What the briefing needs of one slice."""

    slice_id: str
    start: str = ""
    end: str = ""
    status: str = "active"
    focus: str = ""
    summary: str = ""
    open_loops: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    turn_count: int | None = None
    timezone: str = ""
    problem: str = ""  # why the slice file cannot be read whole (core/memory/damage.py)

    @property
    def closed(self) -> bool:
        return self.status == "closed"


def _from_entry(entry: Mapping[str, Any]) -> SliceInfo | None:
    sid = entry.get("id")
    if not isinstance(sid, str) or not is_slice_id(sid):
        return None
    count = entry.get("turn_count")
    return SliceInfo(
        slice_id=sid,
        start=as_text(entry.get("start")),
        end=as_text(entry.get("end")),
        status=as_text(entry.get("status")) or "active",
        focus=as_text(entry.get("focus")),
        summary=as_text(entry.get("summary")),
        open_loops=as_text_list(entry.get("open_loops")),
        decisions=as_text_list(entry.get("decisions")),
        tags=as_text_list(entry.get("tags")),
        turn_count=count if isinstance(count, int) and not isinstance(count, bool) else None,
        timezone=as_text(entry.get("timezone")),
    )


def catalog_entries(view: Lister) -> list[dict[str, Any]] | None:
    """The catalog's entries as stored (valid ids only); None when there is no readable catalog."""
    index = read_index(view)
    return None if index is None else list(index["slices"])


def catalog_slices(view: Lister) -> list[SliceInfo] | None:
    """Every catalog entry, oldest first; None when there is no readable catalog."""
    entries = catalog_entries(view)
    if entries is None:
        return None
    infos = [info for e in entries if (info := _from_entry(e))]
    return sorted(infos, key=lambda i: (i.start, i.slice_id))


def _listed_ids(view: Lister) -> dict[str, str | None]:
    """slice id → legacy flat path (None for the directory layout), from one listing."""
    found: dict[str, str | None] = {}
    for path in view.list(SLICES):
        parts = path.value.split("/")
        if path.value.endswith("/timeline/core.md") and len(parts) == 9:
            sid = "-".join(parts[3:7])
            if is_slice_id(sid):
                found[sid] = None
        elif (flat := legacy_flat_slice_id(path)) and flat not in found:
            found[flat] = path.value
    return found


def _read_info(view: Lister, sid: str, legacy: str | None) -> SliceInfo | None:
    path = MemoryPath(legacy) if legacy else core_md(sid)
    try:
        text = read_text(view, path)
    except DamagedFile as exc:
        return SliceInfo(slice_id=sid, start=_folder_start(sid), problem=exc.damage.problem)
    if text is None:
        return None
    try:
        s = parse_core_frontmatter(text)
    except SliceFormatError as exc:
        return SliceInfo(
            slice_id=sid, start=_folder_start(sid), turn_count=len(salvage_turns(text)), problem=str(exc)
        )
    return SliceInfo(
        slice_id=sid,
        start=s.start,
        end=s.end,
        status=s.status,
        focus=s.focus,
        summary=s.summary,
        open_loops=list(s.open_loops),
        decisions=list(s.decisions),
        tags=list(s.tags),
        turn_count=count_turns(text),
        timezone=s.timezone,
    )


def recent_slices(view: Lister, limit: int = 8) -> list[SliceInfo]:
    """The `limit` newest slices, newest first (catalog first, the slice files as a fallback)."""
    catalog = catalog_slices(view)
    if catalog is not None:
        return list(reversed(catalog[-limit:])) if limit > 0 else []
    listed = _listed_ids(view)
    picked = sorted(listed, reverse=True)[: max(0, limit)]
    return [info for sid in picked if (info := _read_info(view, sid, listed[sid]))]


def _folder_start(sid: str) -> str:
    """The UTC minute a slice's folder names: its start, when the file cannot say."""
    y, m, d, hm = parse_slice_id(sid)
    return f"{y}-{m}-{d}T{hm[:2]}:{hm[2:]}:00.000Z"


def entry_of(info: SliceInfo) -> dict[str, Any]:
    """A catalog-shaped entry for a slice read from its file (with `problem` when it is damaged)."""
    entry: dict[str, Any] = {
        "id": info.slice_id,
        "date": info.slice_id[:10],
        "start": info.start,
        "end": info.end or None,
        "turn_count": info.turn_count,
        "status": info.status,
        "focus": info.focus,
        "summary": info.summary,
        "tags": list(info.tags),
        "open_loops": list(info.open_loops),
        "decisions": list(info.decisions),
    }
    if info.problem:
        entry["problem"] = info.problem
    return entry


def timeline(view: Lister) -> list[dict[str, Any]]:
    """Every slice, oldest first: the catalog's entries, else one entry per slice file."""
    entries = catalog_entries(view)
    listed = _listed_ids(view)
    if entries is not None:
        # A damaged slice the weave skipped still shows, with its problem, so it cannot vanish.
        known = {e["id"] for e in entries}
        for sid in sorted(listed):
            if sid not in known and not listed[sid]:  # legacy flat files stay out of the catalog
                info = _read_info(view, sid, None)
                if info is not None and info.problem:
                    entries.append(entry_of(info))
        _count_open_turns(view, entries)
        return sorted(entries, key=lambda e: (as_text(e.get("start")), e["id"]))
    infos = [info for sid in sorted(listed) if (info := _read_info(view, sid, listed[sid]))]
    return [entry_of(i) for i in infos]


def _count_open_turns(view: Lister, entries: list[dict[str, Any]]) -> None:
    """Refresh `turn_count` of slices still open: the catalog counts a slice when it is written
    whole, while turns keep arriving in its core.md (only the open ones, so one or two reads)."""
    for entry in entries:
        if entry.get("status") == "closed" or entry.get("problem") or not is_slice_id(entry["id"]):
            continue
        try:
            text = read_text(view, core_md(entry["id"]))
        except DamagedFile:
            continue
        if text is not None:
            entry["turn_count"] = count_turns(text)


def strand_slices(view: Lister) -> dict[str, list[str]]:
    """strands.json as strand → slice ids (dash form, file order); {} when absent or unreadable."""
    strands = load_strands(read_or_none(view, STRANDS_JSON))
    out: dict[str, list[str]] = {}
    for key, rels in strands.items():
        out[key] = [sid for rel in rels if is_slice_id(sid := slice_id_from_rel(rel))]
    return out
