"""The user card on storage: read it, write it keeping every earlier version, undo, redo,
restore, edit one entry.

`memory/episodic/current-previously.md` is the live card. Every write through `write_card`
first records the text it replaces as a new version in `memory/episodic/card-history/`
(`core.memory.card.history`), so any change — the card pass's or the user's — can be
undone, redone, or any earlier version restored, and each of those is itself a change that
can be undone. Writes are optimistic: when the card changed after it was read (another writer
got there first), the commit fails with ConflictError instead of overwriting entries it never
saw. The per-slice snapshots (`previously.md`) are never touched.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from core.clock import iso
from core.errors import ConflictError, InvalidInput, NotFound
from core.memory.card import edit as card_edit
from core.memory.card import history
from core.memory.card.edit import NumberedEntry
from core.memory.card.history import CARD_PREV, ChangeBy
from core.memory.card.migrate import to_current_card
from core.memory.card.model import Card, parse_card, render_card
from core.memory.owners.card import USER_CARD
from core.memory.paths import CARD, MemoryPath
from core.storage.base import UpdateFn, WriteBatch

__all__ = ["CARD_PREV", "ChangeBy", "StoredCard", "read_card", "redo_card", "restore_card", "undo_card"]


class Reader(Protocol):
    """Anything that reads memory files (a Snapshot or a WriteBatch)."""

    def read(self, path: MemoryPath) -> str | None: ...


@dataclass(frozen=True)
class StoredCard:
    """The live card's text (None when it does not exist)."""

    text: str | None

    def card(self, now: datetime) -> Card:
        """The parsed card (legacy formats upgraded in memory; an absent card is empty)."""
        return to_card(self.text, now)


@dataclass(frozen=True)
class CardWrite:
    """What `write_card` queued: whether anything changes, and the commit message to use."""

    changed: bool
    message: str


def to_card(text: str | None, now: datetime) -> Card:
    """Parse card text of any known format (None or blank → an empty card)."""
    if not text or not text.strip():
        return Card(updated=iso(now))
    return to_current_card(text, slice_id="", now=now)


def read_card(view: Reader) -> StoredCard:
    """The live card as `view` sees it."""
    return StoredCard(view.read(CARD))


def expect_text(path: MemoryPath, expected: str | None, new: str) -> UpdateFn:
    """An update that writes `new` only if the file still reads `expected` (else ConflictError)."""

    def apply(current: str | None) -> str | None:
        if current != expected:
            raise ConflictError(
                f"{path} changed while this edit was being made; reload the card and try again."
            )
        return new

    return apply


def write_card(
    batch: WriteBatch, new_text: str, reason: str, now: datetime, by: ChangeBy = ChangeBy.USER
) -> CardWrite:
    """Queue the card's new text, first recording the replaced text as a new version.

    An undo or redo is recorded even when the text does not change, so the next one steps on.
    The commit fails with ConflictError when the card changes between this call and the commit.
    """
    current = USER_CARD.read(batch, CARD)  # DamagedFile: a damaged card is never overwritten
    message = f"User card: {reason}"
    stepping = by in (ChangeBy.UNDO, ChangeBy.REDO)
    if new_text == current and not stepping:
        return CardWrite(False, message)
    if current is not None:
        history.record(batch, current, now, by)
    batch.update(CARD, expect_text(CARD, current, new_text))
    return CardWrite(new_text != current, message)


def _step(batch: WriteBatch, now: datetime, by: ChangeBy) -> CardWrite:
    found = history.versions(batch)
    state = history.stacks(found)
    stack = state.undo if by is ChangeBy.UNDO else state.redo
    if not stack:
        if by is ChangeBy.UNDO:
            raise NotFound("There is no earlier version of the card to go back to.")
        raise NotFound("There is no undone change of the card to redo.")
    text = history.version_text(batch, found[stack[-1]])
    if text is None:
        raise ConflictError("That version of the card is no longer there; reload the card and try again.")
    return write_card(batch, text, f"{by.value} the last change", now, by)


def undo_card(batch: WriteBatch, now: datetime) -> CardWrite:
    """Queue the card as it was before its last change (undo again to step further back)."""
    return _step(batch, now, ChangeBy.UNDO)


def redo_card(batch: WriteBatch, now: datetime) -> CardWrite:
    """Queue the change the last undo took back; NotFound when no undo is waiting to be redone."""
    return _step(batch, now, ChangeBy.REDO)


def restore_card(batch: WriteBatch, version_id: str, now: datetime) -> CardWrite:
    """Queue an earlier version as the live card (itself a change: the text it replaces is kept)."""
    found = history.find(batch, version_id)
    text = None if found is None else history.version_text(batch, found)
    if found is None or text is None:
        raise NotFound(f"The card has no version {version_id!r}; list them with GET /api/card/history.")
    return write_card(batch, text, f"restore version {found.seq}", now, ChangeBy.RESTORE)


def _stamped(card: Card, now: datetime) -> str:
    out = card.copy()
    out.updated = iso(now)
    return render_card(out)


def edit_card_entry(
    batch: WriteBatch, section: str, n: int, text: str, now: datetime
) -> tuple[NumberedEntry, str]:
    """Replace one entry's text (validated; every other entry untouched): the entry and commit message."""
    stored = read_card(batch)
    if stored.text is None:
        raise NotFound("There is no user card yet; it is written after your first conversations.")
    edited = card_edit.edit_entry(stored.card(now), section, n, text)
    key = card_edit.normalize_section(section)
    rendered = _stamped(edited, now)
    if card_edit.numbered_entries(parse_card(rendered, now)) != card_edit.numbered_entries(edited):
        # The words would be read back as card structure (a heading, a list marker): the card
        # would change shape instead of keeping them. Refused, nothing written.
        raise InvalidInput(
            f"The {key} text would not read back as typed: the card would take part of it as "
            "its own structure (a heading such as '## …' or a list marker). Rephrase it and retry."
        )
    write = write_card(batch, rendered, f"edit {key} {n}", now)
    entry = next(e for e in card_edit.numbered_entries(edited) if e.section == key and e.n == n)
    return entry, write.message


def delete_card_entry(batch: WriteBatch, section: str, n: int, now: datetime) -> tuple[NumberedEntry, str]:
    """Remove one entry (every other entry untouched): the removed entry and the commit message."""
    stored = read_card(batch)
    if stored.text is None:
        raise NotFound("There is no user card yet; there is nothing to remove.")
    edited, gone = card_edit.delete_entry(stored.card(now), section, n)
    write = write_card(batch, _stamped(edited, now), f"remove {gone.section} {gone.n}", now)
    return gone, write.message
