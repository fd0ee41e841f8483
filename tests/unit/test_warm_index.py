"""The index a process keeps open answers exactly as a fresh open, and reloads only what changed."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from core.clock import FixedClock
from core.memory.paths import core_md
from core.search import open_index, refresh_index
from core.search.warm import WarmIndex
from core.storage.base import Delete, Put, WriteBatch
from core.storage.local import LocalStorage
from core.storage.memory import InMemoryStorage
from tests.fakes.slices import slice_text

pytestmark = pytest.mark.unit
CLOCK = FixedClock.at("2026-03-01T12:00:00.000Z")
QUESTIONS = ["kayak trip", "the dentist", "sourdough starter", "what happened in february", "zebra"]
TOPICS = ["kayak trip on the lake", "dentist appointment moved", "sourdough starter died", "tax forms"]


def _slice_id(n: int) -> str:
    return f"2026-02-{1 + n // 20:02d}-{(n % 20):02d}00"


def _put(storage: LocalStorage | InMemoryStorage, n: int, *, status: str = "closed", extra: str = "") -> str:
    sid = _slice_id(n)
    text = slice_text(sid, [("user", TOPICS[n % len(TOPICS)] + extra), ("agent", "noted")], status=status)
    storage.commit([Put(core_md(sid), text)], f"slice {sid}")
    return sid


def _index(storage: LocalStorage | InMemoryStorage) -> None:
    batch = WriteBatch.open(storage)
    refresh_index(batch, CLOCK, full=True)
    batch.commit("index")


def _answers(index: object, questions: list[str] = QUESTIONS) -> list[list[tuple[str, float, str]]]:
    return [
        [(h.slice_id, h.relevance, h.reason) for h in index.search(q, 5, CLOCK.now()).hits]  # type: ignore[attr-defined]
        for q in questions
    ]


def _age(root: Path) -> None:
    """Every file and folder under root as if written a minute ago (past the two-second racy window)."""
    then = time.time() - 60
    for path in [root, *root.rglob("*")]:
        os.utime(path, (then, then))


def _hits(warm: WarmIndex, storage: LocalStorage | InMemoryStorage, question: str) -> set[str]:
    return {h.slice_id for h in warm.open(storage.snapshot()).search(question, 10, CLOCK.now()).hits}


def _same(storage: LocalStorage | InMemoryStorage, warm: WarmIndex) -> None:
    assert _answers(warm.open(storage.snapshot())) == _answers(open_index(storage.snapshot()))


@pytest.mark.parametrize("backend", ["folder", "memory"])
def test_every_change_to_the_memory_shows_in_the_kept_index(backend: str, tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path) if backend == "folder" else InMemoryStorage()
    for n in range(12):
        _put(storage, n)
    warm = WarmIndex()
    _same(storage, warm)  # no stored index yet: built in memory
    _index(storage)
    _same(storage, warm)
    if backend == "folder":
        _age(tmp_path)
    _same(storage, warm)
    _put(storage, 12, extra=" zebra")  # a new slice, newer than the index
    _same(storage, warm)
    assert any(
        h.slice_id == _slice_id(12)
        for h in warm.open(storage.snapshot()).search("zebra", 5, CLOCK.now()).hits
    )
    _put(storage, 13, status="active")
    _same(storage, warm)
    _put(storage, 13, status="active", extra=" zebra")  # the active slice grows
    _same(storage, warm)
    gone = _slice_id(0)
    storage.commit([Delete(core_md(gone))], "forget")
    _same(storage, warm)
    assert gone not in {
        h.slice_id for h in warm.open(storage.snapshot()).search("kayak", 10, CLOCK.now()).hits
    }
    _index(storage)  # maintenance rewrites the index
    _same(storage, warm)


def test_an_unchanged_memory_is_not_read_again(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)
    for n in range(30):
        _put(storage, n)
    _index(storage)
    _age(tmp_path)
    warm = WarmIndex()
    first = _answers(warm.open(storage.snapshot()))
    reads: list[str] = []
    for _ in range(5):
        view = storage.snapshot()
        original = view.read

        def counted(path, original=original):  # type: ignore[no-untyped-def]
            reads.append(path.value)
            return original(path)

        view.read = counted  # type: ignore[method-assign]
        assert _answers(warm.open(view)) == first
    assert warm.opens == 1
    assert reads == []  # neither the index nor a slice: versions and folder times said nothing moved


def test_a_segment_changed_behind_an_unchanged_manifest_is_reloaded(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)
    for n in range(8):
        _put(storage, n)
    _index(storage)
    warm = WarmIndex()
    warm.open(storage.snapshot())
    segments = sorted((tmp_path / "memory").rglob("search/*"))
    segment = next(p for p in segments if p.name != "manifest.json" and p.is_file())
    segment.write_text("damaged", encoding="utf-8")
    _same(storage, warm)
    assert warm.opens == 2


def test_folder_listings_read_only_changed_folders_and_see_every_new_file(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)
    for n in range(5):
        _put(storage, n)
    _age(tmp_path)
    slices = core_md(_slice_id(0)).value.split("/2026/")[0]
    from core.storage.paths import MemoryPath

    prefix = MemoryPath(slices)
    before = storage.snapshot().list(prefix)
    assert storage.snapshot().list(prefix) == before
    sid = _put(storage, 5)  # a new folder in an aged day folder: its time moves, it is read again
    assert core_md(sid) in storage.snapshot().list(prefix)
    storage.commit([Delete(core_md(_slice_id(1)))], "gone")
    assert core_md(_slice_id(1)) not in storage.snapshot().list(prefix)


def _minute(n: int) -> str:
    """Slices three days apart in the newest months, many to a day (the bench's density)."""
    return f"2026-02-{1 + n % 3:02d}-{n // 60:02d}{n % 60:02d}"


def _put_at(storage: LocalStorage, sid: str, words: str) -> None:
    storage.commit([Put(core_md(sid), slice_text(sid, [("user", words), ("agent", "noted")]))], sid)


def _stats_of_a_warm_question(storage: LocalStorage, warm: WarmIndex, monkeypatch: pytest.MonkeyPatch) -> int:
    from core.storage import local

    calls: list[object] = []
    real = os.stat

    def counted(path: object, *args: object, **kwargs: object) -> os.stat_result:
        calls.append(path)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(local.os, "stat", counted)
    try:
        warm.open(storage.snapshot())
    finally:
        monkeypatch.setattr(local.os, "stat", real)
    return len(calls)


def test_a_warm_question_does_not_stat_the_folders_of_closed_slices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checking that the kept index is current stats the month and day folders and the folders
    of slices the index does not hold as closed — not two folders per slice (issue 33 item 2)."""
    storage = LocalStorage(tmp_path)
    for n in range(12):
        _put_at(storage, _minute(n), TOPICS[n % len(TOPICS)])
    _index(storage)
    _age(tmp_path)
    warm = WarmIndex()
    warm.open(storage.snapshot())
    few = _stats_of_a_warm_question(storage, warm, monkeypatch)
    for n in range(12, 120):  # ten times the closed slices, in the same day folders
        _put_at(storage, _minute(n), TOPICS[n % len(TOPICS)])
    _index(storage)
    _age(tmp_path)
    warm.open(storage.snapshot())
    many = _stats_of_a_warm_question(storage, warm, monkeypatch)
    assert many == few  # before: two more stats for every slice (its folder and its timeline/)
    _put_at(storage, "2026-02-02-2300", "zebra crossing")  # one slice the index does not hold
    _age(tmp_path)
    warm.open(storage.snapshot())
    # its folder, its timeline/ and its core.md (the version the kept overlay is checked by)
    assert _stats_of_a_warm_question(storage, warm, monkeypatch) == few + 3
    assert _hits(warm, storage, "zebra") == {"2026-02-02-2300"}


def test_new_edited_and_forgotten_slices_show_in_the_next_warm_question(tmp_path: Path) -> None:
    """The folders of closed slices are no longer walked: what changes them is the product's
    edit and forget, which re-index the slice, and a new slice moves its day folder's time."""
    from core.actions.edit import SliceChanges, edit_slice_marks
    from core.actions.forget import forget

    storage = LocalStorage(tmp_path)
    for n in range(30):
        _put_at(storage, _minute(n), TOPICS[n % len(TOPICS)])
    _index(storage)
    _age(tmp_path)
    warm = WarmIndex()
    assert _hits(warm, storage, "zebra") == set()
    _put_at(storage, "2026-02-03-2359", "a zebra at the zoo")  # new, on disk, not in the index
    assert _hits(warm, storage, "zebra") == {"2026-02-03-2359"}
    _age(tmp_path)
    assert _hits(warm, storage, "zebra") == {"2026-02-03-2359"}
    closed = _minute(4)
    edit_slice_marks(storage, closed, SliceChanges(focus="the zebra drawing"), CLOCK)
    assert _hits(warm, storage, "zebra") == {"2026-02-03-2359", closed}
    _age(tmp_path)
    _same(storage, warm)
    gone = _minute(0)
    assert gone in _hits(warm, storage, "kayak")
    forget(storage, gone, CLOCK)
    assert gone not in _hits(warm, storage, "kayak")
    _age(tmp_path)
    assert gone not in _hits(warm, storage, "kayak")
    _same(storage, warm)
