"""Idempotent appends, conflict re-application, slice creation and the merge, over real storage."""

from __future__ import annotations

import pytest

from core.errors import NotFound, SliceIdTaken
from core.memory.paths import core_md
from core.memory.slice.merge import (
    SliceUpdate,
    append_turn,
    create_slice,
    edit_slice,
    has_turn,
    merge_local,
    merge_slices,
)
from core.memory.slice.model import Slice, Turn, new_slice, parse_core_md, render_core_md
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage

pytestmark = pytest.mark.unit
SID = "2026-08-11-1115"
NOW = "2026-08-11T11:20:00.000Z"


def _turn(tid: str, role: str = "user", content: str = "hi") -> Turn:
    return Turn(tid, "2026-08-11T11:15:00.000Z", role, content)


def _storage() -> InMemoryStorage:
    s = new_slice(SID, "2026-08-11T11:15:00.000Z", "Europe/Berlin", _turn("u1"))
    return InMemoryStorage.from_texts({str(core_md(SID)): render_core_md(s)})


def _commit(storage: InMemoryStorage, update: SliceUpdate, message: str = "m") -> tuple:
    batch = WriteBatch.open(storage)
    update.queue(batch, SID)
    return batch.commit(message).written


def _turns(storage: InMemoryStorage) -> list[tuple[str | None, str]]:
    return [(t.turn_id, t.role) for t in parse_core_md(storage.files[core_md(SID)]).turns]


def test_rerunning_an_append_never_duplicates() -> None:
    storage = _storage()
    assert _commit(storage, append_turn(_turn("u1", "agent", "reply"), NOW)) == (core_md(SID),)
    assert _commit(storage, append_turn(_turn("u1", "agent", "reply"), NOW)) == ()
    assert _turns(storage) == [("u1", "user"), ("u1", "agent")]
    assert len(storage.commits) == 1


def test_conflict_retry_reapplies_onto_the_other_writers_text() -> None:
    storage = _storage()
    mine = WriteBatch.open(storage)
    mine.changes.extend(append_turn(_turn("a2", "agent"), NOW).changes(SID))
    _commit(storage, append_turn(_turn("b3"), NOW))  # another writer lands first
    mine.commit("Turn a2 — agent response")
    assert _turns(storage) == [("u1", "user"), ("b3", "user"), ("a2", "agent")]


def test_append_applies_edits_once_and_creates_when_missing() -> None:
    storage = InMemoryStorage()
    first = new_slice(SID, "2026-08-11T11:15:00.000Z", "UTC", _turn("u1"))

    def tag(s: Slice) -> Slice:
        s.tags = list(dict.fromkeys([*s.tags, "travel"]))
        return s

    _commit(storage, append_turn(_turn("u1"), NOW, create=first, edit=tag))
    _commit(storage, append_turn(_turn("u1"), NOW, create=first, edit=tag))
    s = parse_core_md(storage.files[core_md(SID)])
    assert s.tags == ["travel"] and len(s.turns) == 1


def test_edit_without_a_file_is_not_found() -> None:
    with pytest.raises(NotFound):
        edit_slice(lambda s: s, NOW).core(None)


def test_create_slice_never_overwrites_another_slice() -> None:
    storage = InMemoryStorage()
    mine = new_slice(SID, "2026-08-11T11:15:00.000Z", "UTC", _turn("u1"))
    assert _commit(storage, create_slice(mine, NOW)) == (core_md(SID),)
    assert _commit(storage, create_slice(mine, NOW)) == ()  # the same step, re-run
    other = new_slice(SID, "2026-08-11T11:15:30.000Z", "UTC", _turn("zz"))
    with pytest.raises(SliceIdTaken):
        _commit(storage, create_slice(other, NOW))
    assert _turns(storage) == [("u1", "user")]


def test_merge_keys_by_id_and_role_so_replies_survive() -> None:
    remote = Slice(SID, tags=["a"], loops=["l1"], turns=[_turn("t1")])
    local = Slice(SID, tags=["b", "a"], loops=["l2"], turns=[_turn("t1"), _turn("t1", "agent", "answer")])
    merged = merge_slices(remote, local)
    assert [(t.turn_id, t.role) for t in merged.turns] == [("t1", "user"), ("t1", "agent")]
    assert merged.tags == ["a", "b"] and merged.loops == ["l1", "l2"]
    assert remote.turns == [_turn("t1")]  # inputs untouched


def test_turns_without_ids_match_on_time_role_and_opening() -> None:
    legacy = Turn(None, "2024-01-01T00:00:00.000Z", "user", "x" * 70, legacy_label="1")
    same_start = Turn(None, "2024-01-01T00:00:00.000Z", "user", "x" * 64 + "different tail")
    unknown = Turn("?", "2024-01-01T00:00:00.000Z", "user", "x" * 64)
    s = Slice(SID, turns=[legacy])
    assert has_turn(s, same_start) and has_turn(s, unknown)
    assert not has_turn(s, Turn(None, "2024-01-01T00:00:00.000Z", "agent", "x" * 70))


def test_merge_local_writes_local_when_remote_is_missing() -> None:
    storage = InMemoryStorage()
    local = Slice(SID, start="2026-08-11T11:15:00.000Z", turns=[_turn("u1")])
    _commit(storage, merge_local(local, NOW))
    assert _turns(storage) == [("u1", "user")]


OLD_LAYOUT = (
    "---\nslice_id: 2026-08-11-1115\nstatus: active\nstart: '2026-08-11T11:15:00.000Z'\n---\n"
    "## Turn 1 — 2026-08-11T11:15:00.000Z (user)\n\nhello from the old layout\n\n"
    "## Turn 2 — 2026-08-11T11:15:30.000Z (agent)\n\nan old reply\n\n"
    "## Turn ? — 2026-08-11T11:16:00.000Z (user)\n\na turn written without an id\n"
)


def test_a_legacy_turn_without_an_id_is_a_turn_when_merging() -> None:
    """The old layout (numeric headers, `?` for no id): every such turn on either side is read as
    a turn, matched by time, role and opening text — none dropped, none doubled, numbers kept."""
    remote = parse_core_md(OLD_LAYOUT)
    assert [(t.turn_id, t.legacy_label) for t in remote.turns] == [(None, "1"), (None, "2"), ("?", "")]
    local = Slice(
        SID,
        turns=[
            Turn(None, "2026-08-11T11:15:00.000Z", "user", "hello from the old layout"),  # the remote's
            Turn("?", "2026-08-11T11:16:00.000Z", "user", "a turn written without an id"),  # the remote's
            Turn("?", "2026-08-11T11:17:00.000Z", "user", "another turn without an id"),  # only local
            Turn(None, "2026-08-11T11:18:00.000Z", "agent", "a legacy reply only here"),  # only local
            Turn("t9", "2026-08-11T11:19:00.000Z", "user", "a new turn"),
        ],
    )
    merged = parse_core_md(render_core_md(merge_slices(remote, local)))
    assert [t.content for t in merged.turns] == [
        "hello from the old layout",
        "an old reply",
        "a turn written without an id",
        "another turn without an id",
        "a legacy reply only here",
        "a new turn",
    ]
    assert [t.legacy_label for t in merged.turns[:2]] == ["1", "2"]
    again = merge_slices(merged, local)
    assert [t.content for t in again.turns] == [t.content for t in merged.turns]
