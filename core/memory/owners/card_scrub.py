"""The card's owner for forgetting: the live card, every earlier version of it and the slice
snapshots that can cite a slice, each scrubbed of the forgotten slice's refs through one reader
and one queued change per file.

A version that cannot be read (not UTF-8, over its cap) is left byte for byte, as every
damaged authored file is; forgetting is the one change that rewrites an earlier version.
"""

from __future__ import annotations

from datetime import datetime

from core.memory import paths
from core.memory.card.forget import CardScrub, RefMatch, mentions, scrub_card_text
from core.memory.card.history import CARD_PREV
from core.memory.card.history import versions as card_versions
from core.memory.catalog.index import read_or_none
from core.storage.base import UpdateFn, WriteBatch


def queue_scrub(batch: WriteBatch, slice_id: str, names: RefMatch, now: datetime) -> CardScrub:
    """Queue the scrub of the live card, every earlier version of it, and the snapshots that can
    cite the slice (a snapshot is the card as it stood for its own slice, so only slices from this
    one on); what it removes, counted."""
    total = CardScrub()
    targets = [(paths.CARD, True), (CARD_PREV, False)]
    targets += [(v.path, False) for v in card_versions(batch) if v.path != CARD_PREV]
    batch.prefetch(p for p, _ in targets)  # one round trip for the versions on GitHub
    targets += [(p, False) for p in _snapshots_from(batch, slice_id)]
    for path, live in targets:
        text = read_or_none(batch, path)
        if text is None or not mentions(text, slice_id):
            continue
        new, counts = scrub_card_text(text, slice_id, names, now, restamp=live)
        if new is None:
            continue
        total = total + counts
        batch.update(path, _scrub_update(slice_id, names, now, live))
    return total


def _scrub_update(slice_id: str, names: RefMatch, now: datetime, live: bool) -> UpdateFn:
    return lambda current: scrub_card_text(current, slice_id, names, now, live)[0]


def _snapshots_from(batch: WriteBatch, slice_id: str) -> list[paths.MemoryPath]:
    """The card snapshots of this slice and every later one (they may have carried its refs on)."""
    first = paths.SliceId.parse(slice_id)
    found = ((p, paths.classify(p)) for p in batch.list(paths.SLICES))
    return [p for p, c in found if c.kind is paths.PathKind.CARD_SNAPSHOT and (c.folder_id or first) >= first]
