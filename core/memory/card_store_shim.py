"""Stand-in for `core.memory.card_store.write_card` (api part) until that module lands on main.

Same signature and behaviour: the replaced text is kept as the one-level undo copy, and the
commit fails with ConflictError when the card changed after it was read.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import ConflictError
from core.memory.paths import CARD, EPISODIC, MemoryPath
from core.storage.base import UpdateFn, WriteBatch

CARD_PREV = EPISODIC / "current-previously.prev.md"


@dataclass(frozen=True)
class CardWrite:
    """What `write_card` queued: whether anything changes, and the commit message to use."""

    changed: bool
    message: str


def _expect(path: MemoryPath, expected: str | None, new: str) -> UpdateFn:
    def apply(current: str | None) -> str | None:
        if current != expected:
            raise ConflictError(
                f"{path} changed while this edit was being made; reload the card and try again."
            )
        return new

    return apply


def write_card(batch: WriteBatch, new_text: str, reason: str) -> CardWrite:
    """Queue the card's new text, keeping the replaced text as the undo copy."""
    current = batch.read(CARD)
    message = f"User card: {reason}"
    if new_text == current:
        return CardWrite(False, message)
    previous = batch.read(CARD_PREV)
    if current is not None:
        batch.update(CARD_PREV, _expect(CARD_PREV, previous, current))
    batch.update(CARD, _expect(CARD, current, new_text))
    return CardWrite(True, message)
