"""The live card's lifecycle on every turn (docs/CARD.md "On every turn") and the per-slice snapshots.

`ensure_snapshot` makes sure a current-format live card exists — upgrading a legacy one, or
seeding a missing one from the newest slice snapshot of the last 30 UTC days (else the empty
template) — and copies it into the slice's `previously.md` when the two differ. Every change
to the live card goes through `write_card`, so the text it replaces is kept in the card's history.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from core.clock import Clock, iso
from core.errors import DamagedFile
from core.memory.card.migrate import to_current_card
from core.memory.card.model import is_card, new_card, render_card
from core.memory.card.store import ChangeBy, write_card
from core.memory.owners.card import SNAPSHOT, live_card
from core.memory.paths import PathKind, card_snapshot, classify, day_dir
from core.storage.base import WriteBatch

SEED_DAYS = 30


def upgrade_card_text(text: str, slice_id: str, now: datetime) -> str:
    """Card text in the current format: legacy documents migrated, other text kept under Unsorted."""
    if is_card(text):
        return text
    card = to_current_card(text, slice_id=slice_id, now=now)
    card.slice_id = card.slice_id or slice_id
    card.updated = iso(now)
    return render_card(card)


def newest_snapshot(batch: WriteBatch, now: datetime, days: int = SEED_DAYS) -> str | None:
    """The newest non-blank per-slice `previously.md` within `days` UTC days back from `now`."""
    for back in range(days):
        day = (now - timedelta(days=back)).date()
        folder = day_dir(f"{day.year:04d}", f"{day.month:02d}", f"{day.day:02d}")
        found = [p for p in batch.list(folder) if classify(p).kind is PathKind.CARD_SNAPSHOT]
        for path in sorted(found, reverse=True):
            text = SNAPSHOT.read_or_none(batch, path)  # a damaged snapshot is passed over
            if text and text.strip():
                return text
    return None


def _settled_live_card(batch: WriteBatch, slice_id: str, now: datetime) -> str:
    """The live card's text after upgrading or seeding it (the write queued on `batch`).

    A damaged live card is never written: the newest readable snapshot stands in for it.
    """
    found = live_card(batch)
    if found.damage is not None:
        return (
            upgrade_card_text(found.text, slice_id, now)
            if found.text
            else render_card(new_card(slice_id, now))
        )
    live = found.text
    if live is not None and live.strip():
        if is_card(live):
            return live
        upgraded = upgrade_card_text(live, slice_id, now)
        write_card(batch, upgraded, "convert to the current card format", now, ChangeBy.REPAIR)
        return upgraded
    seed = newest_snapshot(batch, now)
    if seed is not None:
        text = upgrade_card_text(seed, slice_id, now)
        write_card(batch, text, "restore from the newest slice snapshot", now, ChangeBy.REPAIR)
    else:
        text = render_card(new_card(slice_id, now))
        write_card(batch, text, "start an empty card", now, ChangeBy.REPAIR)
    return text


def ensure_snapshot(batch: WriteBatch, slice_id: str, clock: Clock) -> str:
    """Settle the live card and copy it into `slice_id`'s `previously.md`; returns the live text.

    While the live card is damaged no snapshot is taken: the card as it stands is unknown, and
    an older snapshot copied here would claim otherwise.
    """
    text = _settled_live_card(batch, slice_id, clock.now())
    if live_card(batch).damage is not None:
        return text
    path = card_snapshot(slice_id)
    try:
        if SNAPSHOT.read(batch, path) != text:
            batch.put(path, text)
    except DamagedFile:  # the user's own copy: left as it is (`check` names it)
        pass
    return text
