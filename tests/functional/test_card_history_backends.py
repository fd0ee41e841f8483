"""The card's history on every backend that keeps memory for good: versions are files like any
other (a folder, a git repository, GitHub), so undo, redo and restore behave the same on each."""

from __future__ import annotations

import pytest

from core.clock import FixedClock
from core.errors import ConflictError
from core.memory.card import history
from core.memory.card.store import read_card, redo_card, restore_card, undo_card, write_card
from core.memory.paths import CARD
from core.storage.base import WriteBatch
from tests.contract.conftest import Backend, backend_fixture

pytestmark = pytest.mark.functional
NOW = FixedClock.at("2026-08-11T11:15:00.000Z").now()

store = backend_fixture("local", "local-git", "github")


def _do(backend: Backend, fn) -> None:  # type: ignore[no-untyped-def]
    batch = WriteBatch.open(backend.storage)
    write = fn(batch)
    batch.commit(write.message)


def test_undo_redo_restore_on_every_backend(store: Backend) -> None:
    store.seed({str(CARD): "A\n"})
    for text in ("B\n", "C\n"):
        _do(store, lambda b, t=text: write_card(b, t, "edit", NOW))
    _do(store, lambda b: undo_card(b, NOW))
    _do(store, lambda b: undo_card(b, NOW))
    _do(store, lambda b: redo_card(b, NOW))
    assert read_card(store.storage.snapshot()).text == "B\n"
    first = history.versions(store.storage.snapshot())[0]
    _do(store, lambda b: restore_card(b, first.id, NOW))
    view = store.storage.snapshot()
    assert read_card(view).text == "A\n"
    texts = [history.version_text(view, v) for v in history.versions(view)]
    assert texts == ["A\n", "B\n", "C\n", "B\n", "A\n", "B\n"]
    stale = WriteBatch.open(store.storage)
    write_card(stale, "mine\n", "edit", NOW)
    _do(store, lambda b: undo_card(b, NOW))
    with pytest.raises(ConflictError):
        stale.commit("edit")
    assert read_card(store.storage.snapshot()).text == "B\n"
