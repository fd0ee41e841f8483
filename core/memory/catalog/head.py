"""The head of the catalog: its newest entries and counters, kept in `timeline/pending.json`.

Every turn's system prompt shows the newest closed slices and how many came before (the frozen
timeline brief). Parsing the whole index.json for that costs about 70 ms and, on GitHub, a
6 MB download at 10,000 slices. So each weave also writes, into the small pending file every
turn reads anyway, the newest `HEAD_ENTRIES` entries of the catalog it wrote, the counters
over the entries older than them, and the blob sha of that index.json. A reader lays the
pending entries over it
(`head_catalog`) and gets the same brief as from the whole catalog — or None whenever that
cannot be guaranteed (the index was changed without this file, a pending or active entry is
older than the head, too few entries are left): the caller then reads index.json.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.memory import paths
from core.memory.catalog.pending import parse_active, parse_pending, raw_head
from core.storage.base import Reader

SCHEMA = 1
HEAD_ENTRIES = 24  # the brief shows 10 closed slices; room for a few active or changed ones
Entry = dict[str, Any]


@dataclass(frozen=True)
class Head:
    """The newest entries of one index.json, ascending by id, and what lies before them."""

    index: str  # blob sha of the index.json these entries come from
    entries: list[Entry]
    older_closed: int  # closed entries older than the head
    older_dry: int  # of those, the ones still needing marking


def head_of(doc: Mapping[str, Any], index_sha: str, keep: int = HEAD_ENTRIES) -> dict[str, Any]:
    """The head of a catalog document (its slices ascending by id) whose index.json has this sha."""
    slices: Sequence[Entry] = doc["slices"]
    cut = max(0, len(slices) - keep)
    older = [e for e in slices[:cut] if e.get("status") == "closed"]
    return {
        "_schema": SCHEMA,
        "index": index_sha,
        "older_closed": len(older),
        "older_dry": sum(1 for e in older if e.get("needs_marking") is True),
        "slices": list(slices[cut:]),
    }


def parse_head(raw: Any) -> Head | None:
    """The stored head; None when missing or unreadable."""
    try:
        entries = raw["slices"]
        if not isinstance(entries, list) or not all(
            isinstance(e, dict) and paths.is_slice_id(str(e.get("id", ""))) for e in entries
        ):
            return None
        ids = [str(e["id"]) for e in entries]
        if ids != sorted(set(ids)):
            return None
        return Head(str(raw["index"]), entries, int(raw["older_closed"]), int(raw["older_dry"]))
    except (ValueError, KeyError, TypeError):
        return None


def head_catalog(reader: Reader, before: str, enough: int) -> dict[str, Any] | None:
    """A catalog document holding the newest entries (pending ones laid over) with the counters
    of the older ones (`older_closed`, `older_dry`), when it answers exactly what the whole
    catalog would for the `enough` newest closed slices before `before` — else None."""
    version_of = getattr(reader, "version_of", None)
    if version_of is None:
        return None
    try:
        pending_text = reader.read(paths.PENDING_JSON)
    except ValueError:  # too large, not UTF-8
        return None
    head = parse_head(raw_head(pending_text))
    if head is None or not head.entries or head.index != version_of(paths.CATALOG_JSON):
        return None
    oldest = str(head.entries[0]["id"])
    pending = parse_pending(pending_text)
    active = parse_active(pending_text)
    if active is None or any(i < oldest for i in active) or before <= oldest:
        return None  # an active entry outside the head could still close (settle_before)
    if any(str(e["id"]) < oldest for e in pending):
        return None
    by_id = {str(e["id"]): e for e in head.entries}
    by_id.update({str(e["id"]): e for e in pending})
    ordered = [by_id[i] for i in sorted(by_id)]
    shown = sum(1 for e in ordered if e.get("status") == "closed" and str(e["id"]) < before)
    if shown < enough and head.older_closed:
        return None
    return {
        "_schema": 1,
        "slices": ordered,
        "older_closed": head.older_closed,
        "older_dry": head.older_dry,
    }
