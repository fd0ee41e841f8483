"""The owner of the strands (derived files: tag → the slices woven under it, in the shards under
`memory/episodic/strands/` with their menu; the single strands.json until it is converted) for
the operations that take slices out of them (forget, a hand edit that drops a tag) and the one
that inspects them (check). Each change is queued over the current text of the shards it
touches (`queue_strands`); an unreadable shard is rebuilt rather than stopping the commit.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.memory import paths
from core.memory.catalog.strand_shards import ShardWriter, queue_strands, read_all_strands
from core.memory.catalog.strands import Strands, drop_slice, find_matching
from core.storage.base import Reader


def read_strands(view: Reader) -> tuple[Strands, list[str]]:
    """The strands as they read, and what could not be read of them (a damaged shard: none)."""
    return read_all_strands(view), []


def queue_drop_slice(batch: ShardWriter, slice_id: str) -> None:
    """Queue the strands without the slice (a forgotten slice leaves every strand)."""
    rel = paths.slice_rel(slice_id)
    queue_strands(batch, lambda strands: drop_slice(strands, rel)[0])


def queue_unweave(batch: ShardWriter, slice_id: str, tags: Iterable[str]) -> None:
    """Queue the strands without the slice under the strands of `tags` (tags it no longer has)."""
    dropped = list(tags)
    if dropped:
        rel = paths.slice_rel(slice_id)
        queue_strands(batch, lambda strands: _unweave(strands, dropped, rel), dropped)


def _unweave(strands: Strands, tags: list[str], rel: str) -> Strands:
    for tag in tags:
        key = find_matching(strands, tag)
        if key is not None and rel in strands[key]:
            strands[key] = [p for p in strands[key] if p != rel]
            if not strands[key]:
                del strands[key]
    return strands
