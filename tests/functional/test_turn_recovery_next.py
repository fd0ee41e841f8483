"""Recovery on the next turn: a message a crashed turn accepted is saved when the next turn
starts — before the new message, in order — without the server's start-up hook or a
maintenance pass; a Step Functions turn nobody can ask ends `interrupted` after its deadline;
and when there is nothing to recover the pass reads no memory at all."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import pytest

from core.clock import FixedClock, SequentialIds, SystemClock, iso
from core.memory.slice.model import parse_core_md
from core.storage.base import Snapshot, Storage
from core.storage.local import LocalStorage
from core.turn.deps import TurnDeps
from core.turn.local_service import LocalTurnService
from core.turn.recovery import (
    ACCEPTED_KEY,
    DEADLINE_KEY,
    OWNER_KEY,
    SETTLED_KEY,
    recover_before,
)
from core.turn.runstore import status_of
from core.turn.runstore_fs import FolderRunStore
from core.turn.service import TurnInput
from core.turn.sink import RunStoreSinks
from tests.fakes.brain import Brain
from tests.fakes.fake_model_server import FakeModelServer
from tests.fakes.turn_child import child_turn, kill_9, stalled_at, started_turn, wait_for
from tests.functional.turn_support import make_harness

pytestmark = pytest.mark.functional
DEAD_PID = 2**22 + 12345
FIRST = "2026-08-11-1115"


def user_turns(memory: Path) -> list[tuple[str | None, str]]:
    """(turn id, text) of every user turn on disk, slice by slice, in file order."""
    return [
        (t.turn_id, t.content)
        for p in sorted(memory.rglob("core.md"))
        for t in parse_core_md(p.read_text(encoding="utf-8")).turns
        if t.role == "user"
    ]


def test_kill_9_mid_save_then_the_next_turn_saves_the_earlier_message_first(
    tmp_path: Path, fake_models: FakeModelServer
) -> None:
    memory, runs_dir = tmp_path / "memory-root", tmp_path / "runs"
    Brain.install(fake_models).main("Noted.")
    with child_turn(
        memory, runs_dir, fake_models.openai_base_url, "First, before the crash.", "step.started@save"
    ) as child:
        wait_for(lambda: stalled_at(runs_dir, "step.started@save"))
        kill_9(child)
    lost = started_turn(runs_dir)
    assert user_turns(memory) == []  # killed before commit #1

    # No restart hook, no maintenance: just the next turn, in a new process's service.
    runs = FolderRunStore(runs_dir)
    deps = TurnDeps(LocalStorage(memory), SystemClock(), SequentialIds("n"), runs, None, RunStoreSinks(runs))
    service = LocalTurnService(deps, sleep=lambda _: None)
    state = service.run(TurnInput("Second, after the crash."), timeout=60)
    assert state.status == "error"  # no model configured here: saved, then no_model

    assert [text for _, text in user_turns(memory)] == [
        "First, before the crash.",
        "Second, after the crash.",
    ]
    assert user_turns(memory)[0][0] == lost
    events = runs.events(lost)
    assert status_of(events) == "interrupted" and "kept in memory" in events[-1]["reason"]
    assert runs.get(lost, SETTLED_KEY) is True


def _lost_turn(h: object, turn_id: str, message: str, accepted: str, **owner: object) -> None:
    runs = h.runs  # type: ignore[attr-defined]
    runs.put(turn_id, "request", TurnInput(message).to_json())
    runs.put(turn_id, ACCEPTED_KEY, accepted)
    if owner:
        runs.put(turn_id, OWNER_KEY, owner)
    h.deps.sink_for(turn_id, "save", 1).emit("step.started", label="Saving your message")  # type: ignore[attr-defined]


def test_several_lost_messages_are_saved_in_the_order_they_were_accepted(tmp_path: Path) -> None:
    clock = FixedClock.at("2026-08-11T11:15:00.000Z")
    h = make_harness(LocalStorage(tmp_path), clock, None)
    pid = {"host": socket.gethostname(), "pid": DEAD_PID}
    _lost_turn(h, "zz", "Accepted first.", "2026-08-11T11:10:00.000Z", **pid)
    _lost_turn(h, "aa", "Accepted second.", "2026-08-11T11:12:00.000Z", **pid)
    h.turn("The new message.")
    assert [text for _, text in user_turns(tmp_path)] == [
        "Accepted first.",
        "Accepted second.",
        "The new message.",
    ]
    assert [status_of(h.runs.events(t)) for t in ("zz", "aa")] == ["interrupted", "interrupted"]


def test_a_turn_nobody_can_ask_ends_after_its_deadline_and_not_before(tmp_path: Path) -> None:
    """On AWS no owner process is recorded: the deadline written at save's start decides."""
    clock = FixedClock.at("2026-08-11T11:15:00.000Z")
    h = make_harness(LocalStorage(tmp_path), clock, None)
    _lost_turn(h, "sf1", "From a Lambda that timed out.", iso(clock.now()))
    h.runs.put("sf1", DEADLINE_KEY, iso(clock.now() + timedelta(minutes=30)))
    h.turn("Too soon to tell.")
    assert status_of(h.runs.events("sf1")) == "running"
    assert [text for _, text in user_turns(tmp_path)] == ["Too soon to tell."]
    clock.advance(minutes=31)
    h.turn("Now it is late.")
    assert [text for _, text in user_turns(tmp_path)] == [
        "Too soon to tell.",
        "From a Lambda that timed out.",
        "Now it is late.",
    ]
    assert "kept in memory" in h.runs.events("sf1")[-1]["reason"]


def test_every_turn_records_when_it_was_accepted_and_its_deadline(tmp_path: Path) -> None:
    clock = FixedClock.at("2026-08-11T11:15:00.000Z")
    h = make_harness(LocalStorage(tmp_path), clock, None)
    turn_id = h.service.start(TurnInput("Hello."))
    assert h.service.join(turn_id, 60)
    assert h.runs.get(turn_id, ACCEPTED_KEY) == "2026-08-11T11:15:00.000Z"
    assert h.runs.get(turn_id, DEADLINE_KEY) == "2026-08-11T11:45:00.000Z"


def test_the_deadline_follows_the_configured_turn_timeout(tmp_path: Path) -> None:
    """A deployment whose turns may run two hours: a turn nobody can ask is alive for all of
    them (the execution could still be running) and dead only after."""
    from functions.compose.backends import build_turn_deps
    from functions.settings import load_settings

    clock = FixedClock.at("2026-08-11T11:15:00.000Z")
    h = make_harness(LocalStorage(tmp_path), clock, None)
    settings = load_settings(storage="local", turn_timeout_minutes=120)
    built = build_turn_deps(settings, h.deps.storage, h.runs, registry=h.deps.models)
    h.deps.turn_timeout = built.turn_timeout
    assert h.deps.turn_timeout == timedelta(hours=2)

    first = h.service.start(TurnInput("Hello."))
    assert h.service.join(first, 60)
    assert h.runs.get(first, DEADLINE_KEY) == "2026-08-11T13:15:00.000Z"

    _lost_turn(h, "sf1", "From a long execution.", iso(clock.now()))
    h.runs.put("sf1", DEADLINE_KEY, iso(clock.now() + h.deps.turn_timeout))
    clock.advance(minutes=119)
    h.turn("Still within two hours.")
    assert status_of(h.runs.events("sf1")) == "running"
    assert [text for _, text in user_turns(tmp_path)] == ["Hello.", "Still within two hours."]
    clock.advance(minutes=2)
    h.turn("Now past them.")
    assert status_of(h.runs.events("sf1")) == "interrupted"
    assert [text for _, text in user_turns(tmp_path)][-2:] == ["From a long execution.", "Now past them."]


def test_the_turn_timeout_setting_defaults_to_30_minutes_and_is_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from core.errors import InvalidInput
    from functions.settings import load_settings

    assert load_settings(storage="local").turn_timeout_minutes == 30
    monkeypatch.setenv("PREVIOUSLY_TURN_TIMEOUT_MINUTES", "90")
    assert load_settings(storage="local").turn_timeout_minutes == 90
    with pytest.raises(InvalidInput, match=r"PREVIOUSLY_TURN_TIMEOUT_MINUTES|turn_timeout_minutes"):
        load_settings(storage="local", turn_timeout_minutes=2)


@dataclass
class CountingStorage:
    """Any storage, counting snapshots (every read of memory starts with one)."""

    inner: Storage
    snapshots: int = 0
    log: list[str] = field(default_factory=list)

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def snapshot(self) -> Snapshot:
        self.snapshots += 1
        return self.inner.snapshot()


def test_with_nothing_to_recover_the_pass_reads_no_memory(tmp_path: Path) -> None:
    clock = FixedClock.at("2026-08-11T11:15:00.000Z")
    runs_dir = tmp_path / "runs"
    h = make_harness(LocalStorage(tmp_path / "root"), clock, None, runs=FolderRunStore(runs_dir))
    for n in range(3):
        h.turn(f"Message {n}.")
    counting = CountingStorage(h.deps.storage)
    h.deps.storage = counting  # type: ignore[assignment]
    report = recover_before(h.deps, "t99999")
    assert (report.ended, report.saved, report.failed) == ([], [], [])
    assert counting.snapshots == 0
    assert all(h.runs.get(t, SETTLED_KEY) is True for t in ("t00001", "t00002", "t00003"))
    # A new process (nothing remembered yet) reads no memory either: the run store's markers tell.
    h.deps.run_store = FolderRunStore(runs_dir)
    assert recover_before(h.deps, "t99998").saved == [] and counting.snapshots == 0


def test_a_failing_recovery_never_stops_the_new_message(tmp_path: Path) -> None:
    clock = FixedClock.at("2026-08-11T11:15:00.000Z")
    h = make_harness(LocalStorage(tmp_path), clock, None)
    h.runs.put("bad", "request", {"message": 42})  # not a request a turn can be made of
    h.runs.put("bad", OWNER_KEY, {"host": socket.gethostname(), "pid": DEAD_PID})
    state = h.turn("Save me regardless.")
    assert state.status == "error" and [t for _, t in user_turns(tmp_path)] == ["Save me regardless."]
    assert h.slice(FIRST).turns[0].content == "Save me regardless."
