"""The card's version history (core/memory/card/history.py): append-only, byte for byte, undo and
redo over every change, restore as a change of its own, older memories' `.prev.md` kept."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.clock import FixedClock
from core.errors import ConflictError, NotFound
from core.memory.card import history
from core.memory.card.history import CARD_PREV, ChangeBy
from core.memory.card.store import read_card, redo_card, restore_card, undo_card, write_card
from core.memory.paths import CARD, CARD_HISTORY_DIR, MemoryPath
from core.storage.base import Content, WriteBatch
from core.storage.memory import InMemoryStorage

pytestmark = pytest.mark.unit
NOW = FixedClock.at("2026-08-11T11:15:00.000Z").now()


def _commit(storage: InMemoryStorage, fn) -> object:  # type: ignore[no-untyped-def]
    batch = WriteBatch.open(storage)
    out = fn(batch)
    batch.commit("test")
    return out


def _write(storage: InMemoryStorage, text: str, by: ChangeBy = ChangeBy.USER) -> None:
    _commit(storage, lambda b: write_card(b, text, "test", NOW, by))


def _live(storage: InMemoryStorage) -> str | None:
    return read_card(storage.snapshot()).text


def _kept(storage: InMemoryStorage) -> dict[MemoryPath, Content]:
    return {p: t for p, t in storage.files.items() if p.is_under(CARD_HISTORY_DIR)}


def _step(storage: InMemoryStorage, fn) -> None:  # type: ignore[no-untyped-def]
    _commit(storage, lambda b: fn(b, NOW))


def test_undo_steps_back_through_every_change_and_redo_forward_again() -> None:
    storage = InMemoryStorage.from_texts({str(CARD): "A"})
    for text in ("B", "C", "D"):
        _write(storage, text)
    seen = []
    for _ in range(3):
        _step(storage, undo_card)
        seen.append(_live(storage))
    assert seen == ["C", "B", "A"]
    with pytest.raises(NotFound):
        _step(storage, undo_card)
    _step(storage, redo_card)
    _step(storage, redo_card)
    assert _live(storage) == "C"
    assert history.undo_redo(storage.snapshot()) == (True, True)
    _step(storage, redo_card)
    assert _live(storage) == "D"
    with pytest.raises(NotFound):
        _step(storage, redo_card)


def test_a_new_change_after_undo_clears_redo_but_keeps_every_version() -> None:
    storage = InMemoryStorage.from_texts({str(CARD): "A"})
    _write(storage, "B")
    _step(storage, undo_card)
    _write(storage, "E", ChangeBy.EVOLUTION)
    assert history.undo_redo(storage.snapshot()) == (True, False)
    texts = [history.version_text(storage.snapshot(), v) for v in history.versions(storage.snapshot())]
    assert texts == ["A", "B", "A"], "B, undone and then passed over, is still in the history"
    _step(storage, undo_card)
    assert _live(storage) == "A"


def test_restore_is_a_change_that_can_be_undone() -> None:
    storage = InMemoryStorage.from_texts({str(CARD): "A"})
    _write(storage, "B")
    _write(storage, "C")
    first = history.versions(storage.snapshot())[0]
    _commit(storage, lambda b: restore_card(b, first.id, NOW))
    assert _live(storage) == "A"
    assert history.versions(storage.snapshot())[-1].replaced_by is ChangeBy.RESTORE
    _step(storage, undo_card)
    assert _live(storage) == "C"
    with pytest.raises(NotFound):
        _commit(storage, lambda b: restore_card(b, "000099-20260811T111500Z-user-00000000", NOW))


def test_no_version_is_ever_changed_or_removed() -> None:
    storage = InMemoryStorage.from_texts({str(CARD): "A"})
    before: dict[MemoryPath, Content] = {}
    for op in ("B", "undo", "redo", "C", "undo", "undo", "restore", "D"):
        if op == "undo":
            _step(storage, undo_card)
        elif op == "redo":
            _step(storage, redo_card)
        elif op == "restore":
            vid = history.versions(storage.snapshot())[1].id
            _commit(storage, lambda b, v=vid: restore_card(b, v, NOW))
        else:
            _write(storage, op)
        after = _kept(storage)
        assert {p: after[p] for p in before} == before
        assert len(after) == len(before) + 1
        before = after


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=200), min_size=1, max_size=5))
def test_every_version_reads_back_byte_for_byte(texts: list[str]) -> None:
    storage = InMemoryStorage.from_texts({str(CARD): "start"})
    live = ["start"]
    for text in texts:
        if text != live[-1]:
            _write(storage, text)
            live.append(text)
    view = storage.snapshot()
    assert [history.version_text(view, v) for v in history.versions(view)] == live[:-1]
    for expected in reversed(live[:-1]):
        _step(storage, undo_card)
        assert _live(storage) == expected


def test_two_writers_one_wins_and_the_other_records_nothing() -> None:
    storage = InMemoryStorage.from_texts({str(CARD): "A"})
    _write(storage, "B")
    first, second = WriteBatch.open(storage), WriteBatch.open(storage)
    undo_card(first, NOW)
    write_card(second, "X", "edit", NOW)
    first.commit("undo")
    with pytest.raises(ConflictError):
        second.commit("edit")
    assert _live(storage) == "A"
    assert [v.replaced_by for v in history.versions(storage.snapshot())] == [ChangeBy.USER, ChangeBy.UNDO]


def test_an_older_memorys_prev_copy_is_its_one_earlier_version_and_is_kept() -> None:
    storage = InMemoryStorage.from_texts({str(CARD): "new", str(CARD_PREV): "old"})
    assert history.undo_redo(storage.snapshot()) == (True, False)
    _write(storage, "newer")
    assert storage.files[CARD_PREV] == "old", "the old copy stays where it was"
    view = storage.snapshot()
    found = history.versions(view)
    assert [history.version_text(view, v) for v in found] == ["old", "new"]
    assert found[0].replaced_by is ChangeBy.EARLIER
    _step(storage, undo_card)
    _step(storage, undo_card)
    assert _live(storage) == "old"


def test_undo_straight_from_the_prev_copy() -> None:
    storage = InMemoryStorage.from_texts({str(CARD): "new", str(CARD_PREV): "old"})
    _step(storage, undo_card)
    assert _live(storage) == "old"
    _step(storage, redo_card)
    assert _live(storage) == "new"


def test_the_listing_is_newest_first_capped_and_summarised() -> None:
    storage = InMemoryStorage.from_texts({str(CARD): "- a\n"})
    _write(storage, "- a\n- b\n")
    _write(storage, "- b\n", ChangeBy.EVOLUTION)
    view = storage.snapshot()
    found = history.history(view, _live(storage), limit=10)
    assert found.total == 2 and found.redo_to is None
    live, middle, oldest = found.rows
    assert live.id is None and live.made_by is ChangeBy.EVOLUTION and (live.added, live.removed) == (0, 1)
    assert live.sample is not None and live.sample.text == "a"
    assert middle.made_by is ChangeBy.USER and (middle.added, middle.removed) == (1, 0)
    assert oldest.made_by is None and oldest.added is None and found.undo_to == middle.id
    capped = history.history(view, _live(storage), limit=1)
    assert len(capped.rows) == 2 and capped.rows[1].added == 1, "the oldest listed still has its diff"
