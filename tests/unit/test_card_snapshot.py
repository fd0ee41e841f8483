"""The live card's lifecycle on every turn (REFERENCE §5.7): upgrade, seed, copy into the slice."""

from __future__ import annotations

import pytest

from core.clock import FixedClock
from core.memory.card.model import CARD_STAMP, parse_card
from core.memory.card.snapshot import ensure_snapshot, newest_snapshot
from core.memory.paths import CARD, card_snapshot
from core.storage.base import WriteBatch
from tests.fakes.evolution import CLOSED, CURRENT, OLDER, card_text, memory
from tests.unit.card_samples import previous_card

pytestmark = pytest.mark.unit

LIVE = card_text(identity=["Name: Mara"])


def test_copies_the_live_card_into_the_slice(clock: FixedClock) -> None:
    storage = memory(LIVE)
    batch = WriteBatch.open(storage)
    assert ensure_snapshot(batch, CURRENT, clock) == LIVE
    batch.commit("turn")
    assert storage.files[card_snapshot(CURRENT)] == LIVE and storage.files[CARD] == LIVE
    again = WriteBatch.open(storage)
    ensure_snapshot(again, CURRENT, clock)
    assert again.changes == [], "a second turn of the slice changes nothing"


def test_refreshes_a_stale_snapshot(clock: FixedClock) -> None:
    storage = memory(LIVE, {str(card_snapshot(CURRENT)): card_text()})
    batch = WriteBatch.open(storage)
    ensure_snapshot(batch, CURRENT, clock)
    batch.commit("turn")
    assert storage.files[card_snapshot(CURRENT)] == LIVE


def test_upgrades_a_legacy_card_keeping_the_original_as_undo(clock: FixedClock) -> None:
    legacy = (
        "# Previously On\n\n## User identity\n\n"
        "- Mara, a curator\n  evidence: [2026/07/30/0900] | updated: 2026-07-30\n"
    )
    storage = memory(legacy)
    batch = WriteBatch.open(storage)
    text = ensure_snapshot(batch, CURRENT, clock)
    batch.commit("turn")
    assert CARD_STAMP in text and storage.files[CARD] == text
    assert parse_card(text, clock.now()).identity == ["Mara, a curator"]
    assert previous_card(storage.snapshot()) == legacy and storage.files[card_snapshot(CURRENT)] == text


def test_unknown_text_is_kept_under_unsorted(clock: FixedClock) -> None:
    storage = memory("Some notes I typed about myself.\nI like maps.\n")
    batch = WriteBatch.open(storage)
    text = ensure_snapshot(batch, CURRENT, clock)
    assert "## Unsorted" in text and "I like maps." in text and CARD_STAMP in text


def test_seeds_a_missing_card_from_the_newest_snapshot(clock: FixedClock) -> None:
    older, newer = card_text(identity=["Name: Old"]), card_text(identity=["Name: New"])
    storage = memory(
        None,
        {
            str(card_snapshot(OLDER)): older,
            str(card_snapshot(CLOSED)): newer,
            str(card_snapshot("2026-08-11-0900")): "  \n",  # blank: skipped
        },
    )
    batch = WriteBatch.open(storage)
    assert ensure_snapshot(batch, CURRENT, clock) == newer
    batch.commit("turn")
    assert storage.files[CARD] == newer and previous_card(storage.snapshot()) is None


def test_seeding_looks_back_30_days_only(clock: FixedClock) -> None:
    storage = memory(None, {str(card_snapshot("2026-07-12-0900")): card_text(identity=["Name: Too old"])})
    batch = WriteBatch.open(storage)
    assert newest_snapshot(batch, clock.now()) is None
    text = ensure_snapshot(batch, CURRENT, clock)
    stamp = f"_Active slice: {CURRENT} | {CARD_STAMP} | Updated: 2026-08-11T11:15:00.000Z_"
    assert text == f"# Previously On\n\n{stamp}\n", "nothing to seed from: the empty template"
    storage2 = memory(None, {str(card_snapshot("2026-07-13-0900")): card_text(identity=["Name: Just in"])})
    assert "Just in" in (newest_snapshot(WriteBatch.open(storage2), clock.now()) or "")
