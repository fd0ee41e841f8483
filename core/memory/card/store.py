"""The user card on storage: read it, write it with a one-level undo copy, undo, edit one entry.

`memory/episodic/current-previously.md` is the live card. Every write through `write_card`
first copies the text it replaces to `memory/episodic/current-previously.prev.md`, so the last
change — the evolution agent's or the user's — can be undone; `undo_card` swaps the two files
(a second undo re-applies the change). Writes are optimistic: when the card changed after it
was read (another writer got there first), the commit fails with ConflictError instead of
overwriting entries it never saw. The per-slice snapshots (`previously.md`) are never touched.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from core.clock import iso
from core.errors import ConflictError, InvalidInput, NotFound
from core.memory.card import edit as card_edit
from core.memory.card.edit import NumberedEntry
from core.memory.card.migrate import to_current_card
from core.memory.card.model import Card, parse_card, render_card
from core.memory.owners.card import USER_CARD
from core.memory.paths import CARD, EPISODIC, MemoryPath
from core.storage.base import UpdateFn, WriteBatch

CARD_PREV = EPISODIC / "current-previously.prev.md"


class Reader(Protocol):
    """Anything that reads memory files (a Snapshot or a WriteBatch)."""

    def read(self, path: MemoryPath) -> str | None: ...


@dataclass(frozen=True)
class StoredCard:
    """The live card's text and the undo copy's (None when a file does not exist)."""

    text: str | None
    previous: str | None

    @property
    def can_undo(self) -> bool:
        return self.previous is not None

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
    """The live card and its undo copy, as `view` sees them."""
    return StoredCard(view.read(CARD), view.read(CARD_PREV))


def expect_text(path: MemoryPath, expected: str | None, new: str) -> UpdateFn:
    """An update that writes `new` only if the file still reads `expected` (else ConflictError)."""

    def apply(current: str | None) -> str | None:
        if current != expected:
            raise ConflictError(
                f"{path} changed while this edit was being made; reload the card and try again."
            )
        return new

    return apply


def write_card(batch: WriteBatch, new_text: str, reason: str) -> CardWrite:
    """Queue the card's new text, keeping the replaced text as the undo copy.

    The commit fails with ConflictError when the card changes between this call and the commit.
    """
    current = USER_CARD.read(batch, CARD)  # DamagedFile: a damaged card is never overwritten
    message = f"User card: {reason}"
    if new_text == current:
        return CardWrite(False, message)
    previous = batch.read(CARD_PREV)
    if current is not None:
        batch.update(CARD_PREV, expect_text(CARD_PREV, previous, current))
    batch.update(CARD, expect_text(CARD, current, new_text))
    return CardWrite(True, message)


def undo_card(batch: WriteBatch) -> CardWrite:
    """Queue the swap of the live card and its undo copy; NotFound when there is nothing to undo."""
    stored = read_card(batch)
    if stored.previous is None:
        raise NotFound("There is no earlier version of the card to go back to.")
    batch.update(CARD, expect_text(CARD, stored.text, stored.previous))
    if stored.text is not None:
        batch.update(CARD_PREV, expect_text(CARD_PREV, stored.previous, stored.text))
    return CardWrite(stored.text != stored.previous, "User card: undo the last change")


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
    write = write_card(batch, rendered, f"edit {key} {n}")
    entry = next(e for e in card_edit.numbered_entries(edited) if e.section == key and e.n == n)
    return entry, write.message


def delete_card_entry(batch: WriteBatch, section: str, n: int, now: datetime) -> tuple[NumberedEntry, str]:
    """Remove one entry (every other entry untouched): the removed entry and the commit message."""
    stored = read_card(batch)
    if stored.text is None:
        raise NotFound("There is no user card yet; there is nothing to remove.")
    edited, gone = card_edit.delete_entry(stored.card(now), section, n)
    write = write_card(batch, _stamped(edited, now), f"remove {gone.section} {gone.n}")
    return gone, write.message
