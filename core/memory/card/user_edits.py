"""The user's changes to the card, each one commit: edit or remove one entry, undo, redo, restore.

The one card edit every adapter uses (the API's card routes, `previously card`): each function
takes storage, queues its change through `core.memory.card.store` (which keeps the replaced text
in the card's history) and commits once, with the message the store names. Errors (NotFound,
InvalidInput, ConflictError) leave the memory as it was: nothing is committed.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from core.memory.card.edit import NumberedEntry
from core.memory.card.store import (
    CardWrite,
    delete_card_entry,
    edit_card_entry,
    redo_card,
    restore_card,
    undo_card,
)
from core.storage.base import Storage, WriteBatch

T = TypeVar("T")


def _once(storage: Storage, change: Callable[[WriteBatch], tuple[T, str]]) -> T:
    batch = WriteBatch.open(storage)
    result, message = change(batch)
    batch.commit(message)
    return result


def _write(storage: Storage, change: Callable[[WriteBatch], CardWrite]) -> CardWrite:
    def queued(batch: WriteBatch) -> tuple[CardWrite, str]:
        write = change(batch)
        return write, write.message

    return _once(storage, queued)


def edit_entry(storage: Storage, section: str, n: int, text: str, now: datetime) -> NumberedEntry:
    """Replace one entry's text (every other entry as it was): the entry as it now reads."""
    return _once(storage, lambda b: edit_card_entry(b, section, n, text, now))


def remove_entry(storage: Storage, section: str, n: int, now: datetime) -> NumberedEntry:
    """Remove one entry (every other entry as it was): the entry removed."""
    return _once(storage, lambda b: delete_card_entry(b, section, n, now))


def undo(storage: Storage, now: datetime) -> CardWrite:
    """Back to the card before its last change (NotFound when there is none)."""
    return _write(storage, lambda b: undo_card(b, now))


def redo(storage: Storage, now: datetime) -> CardWrite:
    """Forward again over the last undo (NotFound when no undo waits)."""
    return _write(storage, lambda b: redo_card(b, now))


def restore(storage: Storage, version_id: str, now: datetime) -> CardWrite:
    """Make an earlier version the live card; the card it replaces is kept (undoable)."""
    return _write(storage, lambda b: restore_card(b, version_id, now))
