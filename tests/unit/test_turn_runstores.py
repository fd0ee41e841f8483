"""Run stores (in memory and in a folder), the sink's numbering, and message serialisation."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.errors import InvalidInput
from core.llm.types import AssistantMessage, Reasoning, ToolCall, ToolResult, UserMessage
from core.turn.runstore import MemoryRunStore, RunStore
from core.turn.runstore_fs import FolderRunStore
from core.turn.sink import RunStoreSink, RunStoreSinks
from core.turn.wire import message_from_json, message_to_json

pytestmark = pytest.mark.unit


@pytest.fixture(params=["memory", "folder"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> RunStore:
    return MemoryRunStore() if request.param == "memory" else FolderRunStore(tmp_path / "runs")


def test_events_values_and_existence(store: RunStore) -> None:
    assert not store.exists("t1") and store.events("t1") == [] and store.get("t1", "request") is None
    store.put("t1", "request", {"message": "héllo ✓"})
    assert store.exists("t1") and store.get("t1", "request") == {"message": "héllo ✓"}
    store.append("t1", [{"seq": 1, "type": "a"}, {"seq": 2, "type": "b"}])
    store.append("t1", [{"seq": 3, "type": "c"}])
    assert [e["seq"] for e in store.events("t1")] == [1, 2, 3]
    assert [e["type"] for e in store.events("t1", after=2)] == ["c"]
    store.put("t1", "request", {"message": "replaced"})
    assert store.get("t1", "request") == {"message": "replaced"}


def test_wait_wakes_on_append(store: RunStore) -> None:
    store.append("t1", [{"seq": 1, "type": "a"}])
    assert store.wait("t1", 1, 0.05) == []
    threading.Timer(0.05, lambda: store.append("t1", [{"seq": 2, "type": "b"}])).start()
    started = time.monotonic()
    got = store.wait("t1", 1, 5.0)
    assert [e["seq"] for e in got] == [2] and time.monotonic() - started < 2.0


def test_sinks_number_on_across_steps_and_attempts(store: RunStore) -> None:
    sinks = RunStoreSinks(store)
    first = sinks("t1", "prepare", 1)
    first.emit("step.started", label="x")
    first.emit("turn.started", slice_id="s")
    retry = sinks("t1", "prepare", 2)
    event = retry.emit("step.started", label="x")
    assert (event["seq"], event["attempt"], event["step"]) == (3, 2, "prepare")
    assert RunStoreSink(store, "t1", "respond", 1).emit("text.delta", text="hi")["seq"] == 4


def test_folder_store_is_shared_between_instances(tmp_path: Path) -> None:
    a, b = FolderRunStore(tmp_path), FolderRunStore(tmp_path)
    a.append("t1", [{"seq": 1, "type": "a"}])
    a.put("t1", "cancel", True)
    assert [e["seq"] for e in b.events("t1")] == [1] and b.get("t1", "cancel") is True
    a.append("t1", [{"seq": 2, "type": "b"}])
    assert [e["seq"] for e in b.wait("t1", 1, 2.0)] == [2]
    assert (tmp_path / "t1" / "events.jsonl").read_text(encoding="utf-8").count("\n") == 2


def test_folder_store_refuses_path_tricks(tmp_path: Path) -> None:
    store = FolderRunStore(tmp_path)
    for bad in ("../x", "a/b", "", ".."):
        with pytest.raises(InvalidInput):
            store.put(bad, "k", 1)
    with pytest.raises(InvalidInput):
        store.put("t1", "../../etc", 1)


def test_folder_store_prunes_old_runs(tmp_path: Path) -> None:
    store = FolderRunStore(tmp_path)
    store.put("old", "request", {})
    store.put("new", "request", {})
    past = (datetime.now(UTC) - timedelta(days=30)).timestamp()
    for path in [tmp_path / "old", *(tmp_path / "old").iterdir()]:
        import os

        os.utime(path, (past, past))
    assert store.prune(datetime.now(UTC) - timedelta(days=14)) == 1
    assert not store.exists("old") and store.exists("new")


def test_messages_round_trip_through_json() -> None:
    messages = [
        UserMessage("hi"),
        AssistantMessage(
            "text",
            (ToolCall("c1", "readSlice", {"sliceId": "x"}), ToolCall("c2", "t", {}, "{bad", "not JSON")),
            (Reasoning("why", signature="sig"), Reasoning("", redacted="opaque")),
        ),
        ToolResult("c1", "result", is_error=True),
    ]
    assert [message_from_json(message_to_json(m)) for m in messages] == messages
