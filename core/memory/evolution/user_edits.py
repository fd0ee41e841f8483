"""The user's changes to the evolution layer, each one commit: reject a hypothesis, edit a
playbook, undo the direction's or a playbook's last change.

Each function takes storage, queues its change through `core.memory.evolution.store` (which keeps
the replaced text as the undo copy) and commits once, with the message the store names. Errors
(NotFound, InvalidInput, ConflictError) leave the memory as it was: nothing is committed.
"""

from __future__ import annotations

from datetime import datetime

from core.memory.evolution.paths import DIRECTION_MD, playbook_md
from core.memory.evolution.store import EvolutionWrite, reject_hypothesis, set_playbook, undo_file
from core.storage.base import Storage, WriteBatch

DIRECTION = "direction"


def reject(storage: Storage, hypothesis_id: str, now: datetime) -> EvolutionWrite:
    """Rule a hypothesis out: it leaves the pool and is not proposed again (undoable)."""
    batch = WriteBatch.open(storage)
    write = reject_hypothesis(batch, hypothesis_id, now)
    batch.commit(write.message)
    return write


def edit_playbook(storage: Storage, agent: str, text: str) -> EvolutionWrite:
    """Replace a sub-agent's playbook with the user's text (validated; undoable)."""
    batch = WriteBatch.open(storage)
    write = set_playbook(batch, agent, text, f"the user edited the {agent} playbook")
    batch.commit(write.message)
    return write


def undo(storage: Storage, target: str) -> EvolutionWrite:
    """Back to the direction (`target` "direction") or a playbook before its last change."""
    batch = WriteBatch.open(storage)
    write = undo_file(batch, DIRECTION_MD if target == DIRECTION else playbook_md(target))
    batch.commit(write.message)
    return write
