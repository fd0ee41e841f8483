"""The one user card edit (core/memory/card/user_edits.py): each change is exactly one commit,
with the store's message; a refused change commits nothing."""

from __future__ import annotations

import pytest

from core.clock import FixedClock
from core.errors import InvalidInput, NotFound
from core.memory.card import history, user_edits
from core.memory.card.store import read_card
from core.memory.paths import CARD
from core.storage.memory import InMemoryStorage
from tests.unit.card_samples import CARD_TEXT

pytestmark = pytest.mark.unit
NOW = FixedClock.at("2026-08-11T11:15:00.000Z").now()


def _messages(storage: InMemoryStorage) -> list[str]:
    return [message for message, _ in storage.commits]


def test_each_user_edit_is_one_commit_with_the_stores_message() -> None:
    storage = InMemoryStorage.from_texts({str(CARD): CARD_TEXT})
    entry = user_edits.edit_entry(storage, "now", 2, "Moving flat in October", NOW)
    assert entry.text == "Moving flat in October"
    gone = user_edits.remove_entry(storage, "horizon", 1, NOW)
    assert gone.text == "Draft the wedding speech"
    user_edits.undo(storage, NOW)
    user_edits.redo(storage, NOW)
    oldest = history.history(storage.snapshot(), read_card(storage.snapshot()).text, 30).rows[-1].id
    assert oldest is not None
    user_edits.restore(storage, oldest, NOW)
    messages = _messages(storage)
    assert messages[:4] == [
        "User card: edit now 2",
        "User card: remove horizon 1",
        "User card: undo the last change",
        "User card: redo the last change",
    ]
    assert len(messages) == 5 and messages[4].startswith("User card: restore version ")
    assert read_card(storage.snapshot()).text == CARD_TEXT


def test_a_refused_user_edit_commits_nothing() -> None:
    storage = InMemoryStorage.from_texts({str(CARD): CARD_TEXT})
    with pytest.raises(InvalidInput):
        user_edits.edit_entry(storage, "now", 1, "two\nlines", NOW)
    with pytest.raises(NotFound):
        user_edits.redo(storage, NOW)
    assert storage.commits == []
    assert read_card(storage.snapshot()).text == CARD_TEXT
