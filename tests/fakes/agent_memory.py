"""Small memories for the agent's tests: slices written as the product writes them, then woven."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from core.clock import iso
from core.memory import paths
from core.memory.catalog.weave import weave_slice_strands, weave_timeline
from core.memory.slice.model import Slice, Turn, render_core_md
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage


def make_slice(
    slice_id: str,
    turns: Sequence[tuple[str, str]] = (("user", "hello"), ("agent", "hi")),
    *,
    status: str = "closed",
    focus: str = "",
    summary: str = "",
    tags: Sequence[str] = (),
    timezone: str = "Asia/Shanghai",
    evolution_summary: str = "",
) -> Slice:
    """A slice starting at its id's minute, turns 40 s apart; closed ones end at their last turn."""
    start = paths.SliceId.parse(slice_id).started
    assert start is not None, f"{slice_id} names no real minute"
    made = [
        Turn(f"t{slice_id[-4:]}{i // 2}", iso(start + timedelta(seconds=40 * i)), role, text)
        for i, (role, text) in enumerate(turns)
    ]
    closed = status == "closed"
    return Slice(
        slice_id=slice_id,
        status=status,
        start=iso(start),
        end=made[-1].timestamp if closed and made else "",
        timezone=timezone,
        focus=focus,
        summary=summary,
        tags=list(tags),
        closed_by="time_cap" if closed else "",
        evolution_summary=evolution_summary,
        turns=made,
    )


def write_slices(batch: WriteBatch, slices: Sequence[Slice]) -> None:
    """Queue the slices' core.md files and weave their tags into strands.json."""
    for s in slices:
        batch.put(paths.core_md(s.slice_id), render_core_md(s))
        weave_slice_strands(batch, s)


def build_memory(
    slices: Sequence[Slice],
    now: datetime,
    *,
    card: str | None = None,
    extra: dict[str, str] | None = None,
    weave: bool = True,
) -> InMemoryStorage:
    """An in-memory memory holding the slices, their strands, the catalog (woven at `now`), a card."""
    storage = InMemoryStorage()
    batch = WriteBatch.open(storage)
    write_slices(batch, slices)
    if card is not None:
        batch.put(paths.CARD, card)
    for path, text in (extra or {}).items():
        batch.put(paths.MemoryPath(path), text)
    if weave:
        weave_timeline(batch, now, force=True)
    batch.commit("seed")
    return storage
