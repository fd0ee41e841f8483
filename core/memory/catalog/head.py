"""The head of the catalog: its newest entries and counters, kept in `timeline/pending.json`.

Every turn's system prompt shows the newest closed slices and how many came before (the frozen
timeline brief). Parsing the whole catalog for that costs about 70 ms and, on GitHub, a
6 MB download at 10,000 slices. So each weave also writes, into the small pending file every
turn reads anyway, the newest `HEAD_ENTRIES` entries of the catalog it wrote, the counters
over the entries older than them, and the blob sha of the catalog's top file (which names
every month file's sha: core/memory/catalog/layout.py). A reader lays the
pending entries over it
(`head_catalog`) and gets the same brief as from the whole catalog — or None whenever that
cannot be guaranteed (the index was changed without this file, a pending or active entry is
older than the head, too few entries are left): the caller then reads the catalog.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.errors import InvalidInput
from core.memory import paths
from core.memory.catalog.layout import catalog_version
from core.memory.catalog.pending import parse_active, parse_pending, raw_head
from core.storage.base import Reader, Versioned

SCHEMA = 1
HEAD_ENTRIES = 24  # the brief shows 10 closed slices; room for a few active or changed ones
DRY_IDS = 48  # each close-time pass marks the 3 oldest: room for 16 closes between two folds
Entry = dict[str, Any]


@dataclass(frozen=True)
class Head:
    """The newest entries of one catalog version, ascending by id, and what lies before them."""

    index: str  # blob sha of the catalog top file (or single index.json) these entries come from
    entries: list[Entry]
    older_closed: int  # closed entries older than the head
    older_dry: int  # of those, the ones still needing marking
    dry: list[str]  # the oldest closed ids still needing marking (at most DRY_IDS)
    dry_more: bool  # whether the catalog has more of them than `dry` lists


def head_of(doc: Mapping[str, Any], index_sha: str, keep: int = HEAD_ENTRIES) -> dict[str, Any]:
    """The head of a catalog document (its slices ascending by id) whose top file has this sha."""
    slices: Sequence[Entry] = doc["slices"]
    cut = max(0, len(slices) - keep)
    older = [e for e in slices[:cut] if e.get("status") == "closed"]
    dry = [str(e["id"]) for e in slices if _dry_closed(e)]
    return {
        "_schema": SCHEMA,
        "index": index_sha,
        "older_closed": len(older),
        "older_dry": sum(1 for e in older if e.get("needs_marking") is True),
        "dry": dry[:DRY_IDS],
        "dry_more": len(dry) > DRY_IDS,
        "slices": list(slices[cut:]),
    }


def _dry_closed(e: Mapping[str, Any]) -> bool:
    return e.get("needs_marking") is True and e.get("status") == "closed"


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
        dry = raw["dry"]
        if not isinstance(dry, list) or not all(isinstance(i, str) for i in dry):
            return None
        return Head(
            str(raw["index"]),
            entries,
            int(raw["older_closed"]),
            int(raw["older_dry"]),
            sorted(dry),
            raw["dry_more"] is True,
        )
    except (ValueError, KeyError, TypeError):
        return None


def _current(reader: Reader) -> tuple[Head, list[Entry], list[str] | None] | None:
    """The head, the pending entries and the active list, when the head matches the stored catalog."""
    if not isinstance(reader, Versioned):
        return None
    try:
        pending_text = reader.read(paths.PENDING_JSON)
    except (ValueError, InvalidInput):  # too large, not UTF-8: the whole index answers
        return None
    head = parse_head(raw_head(pending_text))
    if head is None or head.index != catalog_version(reader):
        return None
    return head, parse_pending(pending_text), parse_active(pending_text)


def head_dry(reader: Reader, exclude: Collection[str], limit: int) -> list[str] | None:
    """The oldest closed slices still needing marking (at most `limit`, none of `exclude`), as
    the whole catalog would list them; None when the head cannot tell (read the catalog)."""
    found = _current(reader)
    if found is None:
        return None
    head, pending, _ = found
    changed = {str(e["id"]) for e in pending}
    ids = (set(head.dry) - changed) | {str(e["id"]) for e in pending if _dry_closed(e)}
    ids -= set(exclude)
    picked = sorted(ids)
    if not head.dry_more:
        return picked[:limit]
    # Past the last listed id the catalog holds dry slices the head does not name.
    within = [i for i in picked if head.dry and i <= head.dry[-1]]
    return within[:limit] if len(within) >= limit else None


def head_catalog(reader: Reader, before: str, enough: int) -> dict[str, Any] | None:
    """A catalog document holding the newest entries (pending ones laid over) with the counters
    of the older ones (`older_closed`, `older_dry`), when it answers exactly what the whole
    catalog would for the `enough` newest closed slices before `before` — else None."""
    found = _current(reader)
    if found is None or not found[0].entries:
        return None
    head, pending, active = found
    oldest = str(head.entries[0]["id"])
    if active is None or any(i < oldest for i in active) or before <= oldest:
        return None  # an active entry outside the head could still close (settle_before)
    older = [e for e in pending if str(e["id"]) < oldest]
    # An older entry is known only when the head lists it as dry (a pass just marked it).
    if any(str(e["id"]) not in head.dry or e.get("status") != "closed" for e in older):
        return None
    older_dry = head.older_dry - sum(1 for e in older if e.get("needs_marking") is not True)
    by_id = {str(e["id"]): e for e in head.entries}
    by_id.update({str(e["id"]): e for e in pending if str(e["id"]) >= oldest})
    ordered = [by_id[i] for i in sorted(by_id)]
    shown = sum(1 for e in ordered if e.get("status") == "closed" and str(e["id"]) < before)
    if shown < enough and head.older_closed:
        return None
    return {
        "_schema": 1,
        "slices": ordered,
        "older_closed": head.older_closed,
        "older_dry": older_dry,
    }
