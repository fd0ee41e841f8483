"""A reply too large for its slice's file is kept whole, across the slices that follow.

A core.md is capped (core/memory/paths.py). When the agent's reply would take the slice past
the cap, the slice closes (`capacity`, the deterministic mark) and the reply is written as the
first turn of the next slice — split, in order, over as many new slices as it needs, each
part under the same agent turn id, every slice but the last closed by `capacity`. Reading the
parts one after another gives the reply byte for byte. The slice ids are recorded in the run
store before the commit, so a retried finalize writes into the same slices and adds nothing.
"""

from __future__ import annotations

from datetime import datetime

from core.clock import iso
from core.memory.paths import MAX_FILE_BYTES
from core.memory.slice.merge import create_slice, edit_slice
from core.memory.slice.model import Slice, Turn, new_slice
from core.memory.slice.slicer import CLOSE_HEADROOM_BYTES, close_slice, new_slice_id, split_text
from core.memory.slice.slicer import slice_taken as taken
from core.storage.base import WriteBatch
from core.turn.closing import close_edit, read_slice, upsert_catalog
from core.turn.deps import TurnDeps

SPILL_KEY = "spill"
# Room for a new slice's frontmatter and the turn header around each part.
PART_BYTES = MAX_FILE_BYTES - 4 * CLOSE_HEADROOM_BYTES


def spill_reply(
    batch: WriteBatch, deps: TurnDeps, slice_id: str, turn: Turn, *, timezone: str, locale: str
) -> list[str]:
    """Queue the close of `slice_id` and the reply in new slices; their ids."""
    now = deps.clock.now()
    parts = split_text(turn.content, PART_BYTES)
    ids = _slice_ids(batch, deps, turn.turn_id or "", len(parts), now)
    edit_slice(close_edit("capacity", now, locale, None), iso(now)).queue(batch, slice_id)
    written: list[Slice] = [read_slice(batch, slice_id)]
    for n, (sid, part) in enumerate(zip(ids, parts, strict=True)):
        new = new_slice(sid, turn.timestamp, timezone, Turn(turn.turn_id, turn.timestamp, "agent", part))
        if n < len(parts) - 1:
            new = close_slice(new, "capacity", now)
        create_slice(new, iso(now)).queue(batch, sid)
        written.append(new)
    upsert_catalog(batch, written, now, locale)
    return ids


def _slice_ids(batch: WriteBatch, deps: TurnDeps, turn_id: str, count: int, now: datetime) -> list[str]:
    """The slices the reply goes to: the ones recorded by an earlier attempt, else new free ids."""
    recorded = deps.run_store.get(turn_id, SPILL_KEY)
    if isinstance(recorded, list) and len(recorded) == count:
        return [str(sid) for sid in recorded]
    ids: list[str] = []
    for _ in range(count):
        ids.append(new_slice_id(now, lambda c: c in ids or taken(batch, c)))
    deps.run_store.put(turn_id, SPILL_KEY, ids)
    return ids
