"""Deciding a note another agent asked the memory to keep (MCP `remember`), each one commit.

Accepting adds the note as a turn of the open conversation, marked with where it came from, and
records the decision in the note's file; declining only records the decision (the note never
joins the memory, its file stays). The queued changes are `core.memory.slice.staged_notes`'s;
an error (NotFound, ConflictError when no conversation is open) commits nothing.
"""

from __future__ import annotations

from datetime import datetime

from core.clock import IdSource
from core.memory.config import load_config
from core.memory.paths import CONFIG_JSON
from core.memory.slice import staged_notes
from core.storage.base import Storage, WriteBatch


def accept_note(storage: Storage, note_id: str, now: datetime, ids: IdSource) -> staged_notes.StagedNote:
    """Add a staged note to the open conversation: the note as decided (with its slice id)."""
    batch = WriteBatch.open(storage)
    config = load_config(batch.read(CONFIG_JSON))
    done = staged_notes.accept(batch, note_id, config, now, ids)
    batch.commit(f"Accept note {note_id} into slice {done.slice_id}")
    return done


def decline_note(storage: Storage, note_id: str, now: datetime) -> staged_notes.StagedNote:
    """Decline a staged note: it stays out of the memory (its file stays, marked declined)."""
    batch = WriteBatch.open(storage)
    done = staged_notes.decline(batch, note_id, now)
    batch.commit(f"Decline note {note_id}")
    return done
