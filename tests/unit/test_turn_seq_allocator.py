"""The run store is a turn's one seq allocator: writers at once get distinct, gap-free seqs.

Threads share one store object or each hold their own; processes share the folder. A reader
following the turn while they write never sees a later seq before an earlier one.
"""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.turn.runstore import MemoryRunStore, RunStore
from core.turn.runstore_fs import FolderRunStore
from core.turn.sink import RunStoreSink

pytestmark = pytest.mark.unit
WRITERS = 4
BATCHES = 25


def _draft(writer: int, n: int, size: int = 1) -> list[dict[str, object]]:
    return [{"seq": 0, "type": "tool.call", "writer": writer, "n": n, "i": i} for i in range(size)]


def _write(store: RunStore, writer: int) -> None:
    for n in range(BATCHES):
        store.append("t1", _draft(writer, n, size=1 + n % 3))


def _check(events: list[dict[str, object]]) -> None:
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1)), "no duplicate, no gap"
    for writer in range(WRITERS):
        mine = [(e["n"], e["i"]) for e in events if e["writer"] == writer]
        assert mine == sorted(mine), "a writer's events keep its order"
        assert len(mine) == sum(1 + n % 3 for n in range(BATCHES)), "nothing lost"


def _follow(store: RunStore, stop: threading.Event, seen: list[int]) -> None:
    after = 0
    while not stop.is_set() or store.events("t1", after):
        for event in store.wait("t1", after, 0.02):
            seen.append(int(event["seq"]))
            after = int(event["seq"])


@pytest.mark.parametrize("kind", ["memory", "folder-shared", "folder-own"])
def test_threads_appending_at_once_get_distinct_gap_free_seqs(kind: str, tmp_path: Path) -> None:
    shared: RunStore = MemoryRunStore() if kind == "memory" else FolderRunStore(tmp_path / "runs")

    def store_of() -> RunStore:
        return FolderRunStore(tmp_path / "runs") if kind == "folder-own" else shared

    stop, seen = threading.Event(), []  # type: ignore[var-annotated]
    follower = threading.Thread(target=_follow, args=(store_of(), stop, seen))
    follower.start()
    writers = [threading.Thread(target=_write, args=(store_of(), w)) for w in range(WRITERS)]
    for t in writers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    follower.join()
    events = store_of().events("t1")
    _check(events)
    assert seen == [e["seq"] for e in events], "the follower saw every seq once, in order"


def _process_writer(root: str, writer: int) -> None:
    _write(FolderRunStore(Path(root)), writer)


def test_processes_appending_to_one_folder_get_distinct_gap_free_seqs(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_process_writer, args=(str(tmp_path / "runs"), w)) for w in range(WRITERS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    _check(FolderRunStore(tmp_path / "runs").events("t1"))


def test_sinks_of_parallel_tool_calls_share_one_sequence(tmp_path: Path) -> None:
    store = FolderRunStore(tmp_path / "runs")
    sinks = [RunStoreSink(store, "t1", "tools", 1) for _ in range(WRITERS)]
    threads = [
        threading.Thread(target=lambda s=s: [s.emit("tool.call", call_id=str(i)) for i in range(20)])
        for s in sinks
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [e["seq"] for e in store.events("t1")] == list(range(1, 81))


@settings(max_examples=30, deadline=None)
@given(texts=st.lists(st.text(), min_size=1, max_size=5))
def test_any_text_survives_the_allocator_unchanged(
    tmp_path_factory: pytest.TempPathFactory, texts: list[str]
) -> None:
    store = FolderRunStore(tmp_path_factory.mktemp("runs"))
    stored = store.append("t1", [{"seq": 99, "type": "text.delta", "text": t} for t in texts])
    assert [e["seq"] for e in stored] == list(range(1, len(texts) + 1)), "a given seq is replaced"
    assert [e["text"] for e in FolderRunStore(store.root).events("t1")] == texts
