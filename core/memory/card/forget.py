"""Forgetting in the user card: entries whose evidence was a forgotten slice (or turn).

Anchors, Now and Horizon items cite slices in their refs (`[2026/08/07/0709]`, optionally with
`-<turn id>`). When a slice is forgotten, an entry citing only it goes (it came from words that
no longer exist); an entry with other evidence stays and only loses the ref. Forgetting one turn
affects only refs that name that turn. The live card, its undo copy and every slice's snapshot
get the same treatment; a card that cites nothing forgotten is left byte for byte as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.clock import iso
from core.memory.card.migrate import is_legacy
from core.memory.card.model import Card, is_card, parse_card, render_card
from core.memory.paths import slice_rel

RefMatch = Callable[[str], bool]


def ref_matcher(slice_id: str, turn_id: str | None = None) -> RefMatch:
    """Whether a ref names the forgotten slice (any ref into it) or turn (only `…-<turn id>`)."""
    bases = (slice_rel(slice_id), slice_id)

    def names(ref: str) -> bool:
        for base in bases:
            if ref == base:
                return turn_id is None
            if ref.startswith(base + "-"):
                return turn_id is None or ref[len(base) + 1 :] == turn_id
        return False

    return names


@dataclass(frozen=True)
class CardScrub:
    """What scrubbing one card did."""

    removed: int = 0
    refs_dropped: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.removed or self.refs_dropped)

    def __add__(self, other: CardScrub) -> CardScrub:
        return CardScrub(self.removed + other.removed, self.refs_dropped + other.refs_dropped)


def _scrub_items(items: Iterable[Any], names: RefMatch) -> tuple[list[Any], CardScrub]:
    kept: list[Any] = []
    removed = dropped = 0
    for item in items:
        gone = [r for r in item.refs if names(r)]
        if not gone:
            kept.append(item)
            continue
        if len(gone) == len(item.refs):
            removed += 1
            continue
        item.refs = [r for r in item.refs if not names(r)]
        dropped += len(gone)
        kept.append(item)
    return kept, CardScrub(removed, dropped)


def scrub_card(card: Card, names: RefMatch) -> tuple[Card, CardScrub]:
    """A copy of the card without what cites only forgotten evidence, and the count."""
    out = card.copy()
    out.past.anchors, a = _scrub_items(out.past.anchors, names)
    out.now, n = _scrub_items(out.now, names)
    out.horizon, h = _scrub_items(out.horizon, names)
    return out, a + n + h


def mentions(text: str, slice_id: str) -> bool:
    """A cheap test before parsing: does the text name the slice at all (either id form)?"""
    return slice_rel(slice_id) in text or slice_id in text


def scrub_card_text(
    text: str | None, slice_id: str, names: RefMatch, now: datetime, restamp: bool
) -> tuple[str | None, CardScrub]:
    """The card text with forgotten evidence removed (None: nothing to change).

    Cards in an older format carry no refs of this form and are left alone. `restamp` sets the
    live card's `Updated` to now; snapshots keep their stamp.
    """
    if text is None or not mentions(text, slice_id) or not is_card(text) or is_legacy(text):
        return None, CardScrub()
    card = parse_card(text, now)
    scrubbed, counts = scrub_card(card, names)
    if not counts.changed:
        return None, counts
    if restamp:
        scrubbed.updated = iso(now)
    new = render_card(scrubbed)
    return (None if new == text else new), counts
