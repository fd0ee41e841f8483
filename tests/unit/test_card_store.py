"""The card on storage: every write keeps the replaced version, undo and redo step through them,
edits touch one entry only."""

from __future__ import annotations

import pytest

from core.clock import FixedClock
from core.errors import ConflictError, InvalidInput, NotFound
from core.memory.card import history
from core.memory.card.model import parse_card
from core.memory.card.store import (
    delete_card_entry,
    edit_card_entry,
    read_card,
    undo_card,
    write_card,
)
from core.memory.paths import CARD, CARD_HISTORY_DIR, card_snapshot
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from tests.unit.card_samples import CARD_TEXT, previous_card

pytestmark = pytest.mark.unit
NOW = FixedClock.at("2026-08-11T11:15:00.000Z").now()
SNAPSHOT = "# Previously On\n\n_Active slice: 2026-08-10-0900 | Format: user card v2 | Updated: x_\n"


def _storage() -> InMemoryStorage:
    return InMemoryStorage.from_texts({str(CARD): CARD_TEXT, str(card_snapshot("2026-08-10-0900")): SNAPSHOT})


def _commit(storage: InMemoryStorage, fn) -> object:  # type: ignore[no-untyped-def]
    batch = WriteBatch.open(storage)
    out = fn(batch)
    batch.commit("test")
    return out


def _undo(b: WriteBatch) -> object:
    return undo_card(b, NOW)


def test_write_keeps_the_replaced_text_as_a_new_version() -> None:
    storage = _storage()
    write = _commit(storage, lambda b: write_card(b, "# Previously On\n\nnew\n", "evolution", NOW))
    assert write.changed and write.message == "User card: evolution"  # type: ignore[attr-defined]
    assert read_card(storage.snapshot()).text == "# Previously On\n\nnew\n"
    assert previous_card(storage.snapshot()) == CARD_TEXT
    (path,) = [p for p in storage.files if p.is_under(CARD_HISTORY_DIR)]
    assert path.name.startswith("000001-20260811T111500Z-user-")


def test_writing_the_same_text_changes_nothing() -> None:
    storage = _storage()
    write = _commit(storage, lambda b: write_card(b, CARD_TEXT, "noop", NOW))
    assert not write.changed  # type: ignore[attr-defined]
    assert storage.commits == []


def test_first_write_has_no_earlier_version() -> None:
    storage = InMemoryStorage()
    _commit(storage, lambda b: write_card(b, "card", "first", NOW))
    assert read_card(storage.snapshot()).text == "card"
    assert history.undo_redo(storage.snapshot()) == (False, False)


def test_undo_without_an_earlier_version_is_not_found() -> None:
    with pytest.raises(NotFound):
        _commit(_storage(), _undo)


def test_a_write_loses_to_a_concurrent_change_instead_of_overwriting_it() -> None:
    storage = _storage()
    batch = WriteBatch.open(storage)
    write_card(batch, "mine", "user edit", NOW)
    _commit(storage, lambda b: write_card(b, "theirs", "evolution", NOW))
    with pytest.raises(ConflictError):
        batch.commit("user edit")
    assert read_card(storage.snapshot()).text == "theirs"
    assert [history.version_text(storage.snapshot(), v) for v in history.versions(storage.snapshot())] == [
        CARD_TEXT
    ], "the loser recorded no version"


def test_edit_touches_one_entry_and_never_the_slice_snapshot() -> None:
    storage = _storage()
    entry, message = _commit(storage, lambda b: edit_card_entry(b, "now", 2, "Moving flat in October", NOW))  # type: ignore[misc]
    assert entry.text == "Moving flat in October" and message == "User card: edit now 2"
    before, after = parse_card(CARD_TEXT, NOW), parse_card(read_card(storage.snapshot()).text or "", NOW)
    assert after.now[1].text == "Moving flat in October"
    assert after.now[1].refs == before.now[1].refs and after.now[1].since == before.now[1].since
    after.now[1].text = before.now[1].text
    assert after.substance() == before.substance()
    assert storage.files[card_snapshot("2026-08-10-0900")] == SNAPSHOT
    assert previous_card(storage.snapshot()) == CARD_TEXT


def test_delete_removes_one_entry_and_undo_brings_it_back() -> None:
    storage = _storage()
    gone, _ = _commit(storage, lambda b: delete_card_entry(b, "horizon", 1, NOW))  # type: ignore[misc]
    assert gone.text == "Draft the wedding speech"
    card = parse_card(read_card(storage.snapshot()).text or "", NOW)
    assert [h.text for h in card.horizon] == ["Renew the passport"]
    _commit(storage, _undo)
    assert read_card(storage.snapshot()).text == CARD_TEXT


def test_invalid_edits_raise_and_write_nothing() -> None:
    storage = _storage()
    for args in (("now", 9, "x"), ("nowhere", 1, "x"), ("now", 1, "two\nlines"), ("now", 1, " ")):
        with pytest.raises((InvalidInput, NotFound)):
            _commit(storage, lambda b, a=args: edit_card_entry(b, a[0], a[1], a[2], NOW))
    assert storage.commits == []


def test_edit_without_a_card_is_not_found() -> None:
    with pytest.raises(NotFound):
        _commit(InMemoryStorage(), lambda b: edit_card_entry(b, "now", 1, "x", NOW))
