"""The live user card as every turn and page reads it: a damaged card never stops the rest.

When `current-previously.md` cannot be read (not UTF-8, over its cap), the turn carries on
with the newest slice snapshot (`previously.md`) that reads, says so, and leaves the damaged
card byte for byte: nothing writes the card until the user repairs it (`write_card` refuses).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from core.errors import Damage, DamagedFile
from core.memory import paths
from core.memory.owners.registry import by_name

USER_CARD = by_name("user card")
SNAPSHOT = by_name("card snapshot")


class Listing(Protocol):
    def read(self, path: paths.MemoryPath) -> str | None: ...

    def list(self, prefix: paths.MemoryPath) -> list[paths.MemoryPath]: ...


@dataclass(frozen=True)
class LiveCard:
    """The card text to use, where it came from, and the live card's damage (None when it reads)."""

    text: str | None
    damage: Damage | None = None
    source: paths.MemoryPath = paths.CARD

    @property
    def notice(self) -> str | None:
        """What to tell the user when the live card could not be read; None when it was."""
        if self.damage is None:
            return None
        used = (
            f"this turn used the newest readable snapshot, {self.source}"
            if self.text is not None
            else "no readable snapshot was found, so this turn used no card"
        )
        return f"The user card is damaged and was left as it is ({self.damage}); {used}."


def live_card(view: Listing) -> LiveCard:
    """The live card's text, or — when it is damaged — the newest readable slice snapshot's."""
    try:
        return LiveCard(USER_CARD.read(view, paths.CARD))
    except DamagedFile as exc:
        found = newest_readable_snapshot(view)
        if found is None:
            return LiveCard(None, exc.damage)
        return LiveCard(found[1], exc.damage, found[0])


def card_text(view: Listing) -> str | None:
    """The live card's text for a decision about it: None when absent or damaged."""
    try:
        return USER_CARD.read(view, paths.CARD)
    except DamagedFile:
        return None


def newest_readable_snapshot(view: Listing) -> tuple[paths.MemoryPath, str] | None:
    """The newest slice snapshot that reads and is not blank (one listing; only on damage)."""
    found = [p for p in view.list(paths.SLICES) if paths.classify(p).kind is paths.PathKind.CARD_SNAPSHOT]
    for path in sorted(found, reverse=True):
        try:
            text = SNAPSHOT.read(view, path)
        except DamagedFile:
            continue
        if text and text.strip():
            return path, text
    return None
