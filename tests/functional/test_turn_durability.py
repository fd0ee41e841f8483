"""No word lost: the user's message is on disk before any model call, turns run side by side,
two writers keep one active slice, a full slice closes instead of refusing, a huge reply is kept
whole, the reply survives a retried round, and recovery saves what a dead process accepted."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from core.clock import FixedClock, SequentialIds
from core.llm.types import AssistantMessage
from core.memory.paths import core_md
from core.memory.slice.model import Turn, new_slice, parse_core_md, render_core_md
from core.memory.slice.slicer import find_active_slice
from core.storage.base import WriteBatch
from core.storage.local import LocalStorage
from core.turn.local_service import LocalTurnService
from core.turn.recovery import OWNER_KEY, recover_turns
from core.turn.runtime import reply_from
from core.turn.service import TurnInput
from core.turn.steps import STEP_TABLE
from core.turn.wire import message_to_json
from tests.fakes.brain import ANALYZER, analysis
from tests.fakes.fake_model_server import FakeModelServer, Reply, ToolCall
from tests.fakes.witness import Witness
from tests.functional.turn_support import make_harness

pytestmark = pytest.mark.functional
FIRST = "2026-08-11-1115"


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock.at("2026-08-11T11:15:00.000Z")


def slice_texts(root: Path) -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted((root / "memory").rglob("core.md"))]


def active_slices(root: Path) -> list[str]:
    out = []
    for text in slice_texts(root):
        s = parse_core_md(text)
        if s.status == "active":
            out.append(s.slice_id)
    return out


def test_every_model_call_comes_after_the_message_is_on_disk(
    tmp_path: Path, clock: FixedClock, fake_models: FakeModelServer
) -> None:
    witness = Witness(tmp_path).watch(fake_models)
    h = make_harness(LocalStorage(tmp_path), clock, fake_models)
    assert h.brain is not None
    h.brain.reports[ANALYZER] = analysis(["garden"])
    h.brain.main(
        "Lovely!",
        Reply(tool_calls=[ToolCall("readSlice", {"sliceId": FIRST})]),
        "You said tomatoes.",
        "Welcome back.",
    )
    for message, minutes in (("I plant tomatoes.", 0), ("What did I say?", 5), ("Back after a while.", 31)):
        clock.advance(minutes=minutes)
        witness.expect(message)
        state = h.turn(message)
        assert state.status == "done", state.events
    assert witness.violations == []
    # analyzer + main for each turn, the tool round's second main call, the close's analyzer.
    assert witness.checked >= 7


def test_turns_call_the_model_side_by_side(
    tmp_path: Path, clock: FixedClock, fake_models: FakeModelServer
) -> None:
    """No lock is held across a model call: four turns' calls overlap; each message is kept."""
    witness = Witness(tmp_path, delay=0.4).watch(fake_models)
    h = make_harness(LocalStorage(tmp_path), clock, fake_models)
    assert h.brain is not None
    h.brain.main(*[f"Answer {n}" for n in range(4)])
    ids = []
    for n in range(4):
        witness.expect(f"Message number {n}")
        ids.append(h.service.start(TurnInput(f"Message number {n}", timezone="UTC")))
    for turn_id in ids:
        assert h.service.join(turn_id, 60)
    assert witness.violations == [] and witness.max_in_flight >= 2
    assert [h.service.state(t).status for t in ids] == ["done"] * 4
    text = "\n".join(slice_texts(tmp_path))
    assert all(f"Message number {n}" in text for n in range(4))
    assert active_slices(tmp_path) == [FIRST]


def _expired_slice(root: Path) -> None:
    old = new_slice(
        "2026-08-11-1000",
        "2026-08-11T10:00:00.000Z",
        "UTC",
        Turn("o1", "2026-08-11T10:00:00.000Z", "user", "Earlier."),
    )
    path = root / str(core_md(old.slice_id))
    path.parent.mkdir(parents=True)
    path.write_text(render_core_md(old), encoding="utf-8")


def test_two_servers_on_one_folder_leave_one_active_slice(tmp_path: Path, clock: FixedClock) -> None:
    """Two services with their own storage objects (as two processes have) race to close an
    expired slice and open the next: one slice stays active and every message is kept."""
    _expired_slice(tmp_path)
    a = make_harness(LocalStorage(tmp_path), clock, None)
    b = make_harness(LocalStorage(tmp_path), clock, None)
    b.deps.ids = SequentialIds(prefix="b")
    b.service = LocalTurnService(b.deps, sleep=lambda _: None)
    a.service = LocalTurnService(a.deps, sleep=lambda _: None)
    started = []
    for n in range(3):
        started.append((a, a.service.start(TurnInput(f"From A {n}"))))
        started.append((b, b.service.start(TurnInput(f"From B {n}"))))
    for h, turn_id in started:
        assert h.service.join(turn_id, 60)
        assert h.service.state(turn_id).status == "error"  # no model: saved, then no_model
    assert len(active_slices(tmp_path)) == 1
    text = "\n".join(slice_texts(tmp_path))
    assert all(f"From {w} {n}" in text for w in "AB" for n in range(3))


def test_a_full_slice_closes_by_capacity_and_the_message_opens_the_next(
    tmp_path: Path, clock: FixedClock
) -> None:
    big = new_slice(
        FIRST,
        "2026-08-11T11:15:00.000Z",
        "UTC",
        Turn("o1", "2026-08-11T11:15:00.000Z", "user", "x" * 997_000),
    )
    path = tmp_path / str(core_md(FIRST))
    path.parent.mkdir(parents=True)
    path.write_text(render_core_md(big), encoding="utf-8")
    h = make_harness(LocalStorage(tmp_path), clock, None)
    clock.advance(minutes=1)
    state = h.turn("One more thing.")
    started = next(e for e in state.events if e["type"] == "turn.started")
    assert (started["slice_closed"], started["slice_opened"]) == (FIRST, True)
    closed = h.slice(FIRST)
    assert (closed.status, closed.closed_by) == ("closed", "capacity")
    assert h.slice(started["slice_id"]).turns[0].content == "One more thing."


def test_a_reply_too_large_for_its_slice_is_kept_whole(tmp_path: Path, clock: FixedClock) -> None:
    h = make_harness(LocalStorage(tmp_path), clock, None)
    h.runs.put("t1", "request", TurnInput("Write me a very long story.").to_json())
    STEP_TABLE["save"].run({"turn_id": "t1", "next": "save", "attempt": 1}, h.deps)
    reply = "Once upon a time — 故事 🌱\n" * 80_000 + "The end."  # ~2.7 MB
    h.runs.put(
        "t1",
        "round-0",
        {"messages": [message_to_json(AssistantMessage(text=reply))], "finish": "stop", "usage": {}},
    )
    state = {"turn_id": "t1", "next": "finalize", "slice_id": FIRST, "attempt": 1}
    STEP_TABLE["finalize"].run(state, h.deps)
    STEP_TABLE["finalize"].run({**state, "attempt": 2}, h.deps)  # a retry adds nothing
    slices = [parse_core_md(t) for t in slice_texts(tmp_path)]
    agent_parts = [t.content for s in slices for t in s.turns if t.role == "agent"]
    assert "".join(agent_parts) == reply and len(agent_parts) >= 3
    assert h.slice(FIRST).turns[0].content == "Write me a very long story."
    assert [s.status for s in slices].count("active") == 1
    done = next(e for e in h.runs.events("t1") if e["type"] == "turn.done")
    assert done["status"] == "done" and done["agent_turn_id"] == "t1"


def test_the_answer_after_a_retried_first_round_stays_in_the_reply() -> None:
    def ev(seq: int, type: str, step: str, attempt: int = 1, **fields: object) -> dict:
        return {"turn_id": "t", "seq": seq, "type": type, "step": step, "attempt": attempt, **fields}

    events = [
        ev(1, "step.started", "respond"),
        ev(2, "text.delta", "respond", text="Let me"),
        ev(3, "step.started", "respond", 2),
        ev(4, "text.delta", "respond", 2, text="Let me look. "),
        ev(5, "step.done", "respond", 2),
        ev(6, "step.started", "tools"),
        ev(7, "step.done", "tools"),
        ev(8, "step.started", "respond"),
        ev(9, "text.delta", "respond", text="Here is the answer."),
        ev(10, "step.done", "respond"),
    ]
    assert reply_from(events) == "Let me look. Here is the answer."


def test_a_retried_first_round_keeps_the_final_answer_end_to_end(
    tmp_path: Path, clock: FixedClock, fake_models: FakeModelServer
) -> None:
    h = make_harness(LocalStorage(tmp_path), clock, fake_models)
    assert h.brain is not None
    h.brain.main(
        Reply(text="Let me", error_after=2, status=503, error_message="overloaded"),
        Reply(text="Let me look. ", tool_calls=[ToolCall("readSlice", {"sliceId": FIRST})]),
        Reply(text="Here is the answer."),
    )
    state = h.turn("What did we say?")
    attempts = [e["attempt"] for e in state.events if e["type"] == "step.started" and e["step"] == "respond"]
    assert attempts[:2] == [1, 2], state.events
    assert state.reply == "Let me look. Here is the answer."
    # each round's text as the model wrote it (its trailing space kept), a blank line between rounds
    assert h.slice(FIRST).turns[-1].content == "Let me look. \n\nHere is the answer."


def test_recovery_saves_an_accepted_message_a_dead_process_never_saved(
    tmp_path: Path, clock: FixedClock
) -> None:
    h = make_harness(LocalStorage(tmp_path), clock, None)
    h.runs.put("t1", "request", TurnInput("Do not lose me.").to_json())
    h.runs.put("t1", OWNER_KEY, {"host": __import__("socket").gethostname(), "pid": 2**22 + 12345})
    h.deps.sink_for("t1", "save", 1).emit("step.started", label="Saving your message")
    report = recover_turns(h.deps)
    assert (report.ended, report.saved, report.failed) == (["t1"], ["t1"], [])
    assert h.slice(FIRST).turns[0].content == "Do not lose me."
    state = h.service.state("t1")
    assert state.status == "interrupted"
    assert "kept in memory" in state.events[-1]["reason"]
    assert recover_turns(h.deps) == dataclasses.replace(report, ended=[], saved=[]), (
        "a second pass does nothing"
    )


def test_recovery_never_saves_a_message_that_was_saved_once(tmp_path: Path, clock: FixedClock) -> None:
    """A turn that announced turn.started had its words in memory: if the person forgot that
    slice since, recovery must not bring the message back."""
    h = make_harness(LocalStorage(tmp_path), clock, None)
    state = h.turn("Forget me later.")
    assert state.status == "error"
    (tmp_path / str(core_md(FIRST))).unlink()
    assert recover_turns(h.deps).saved == []
    assert slice_texts(tmp_path) == []


def test_a_turn_of_a_live_process_is_left_alone(tmp_path: Path, clock: FixedClock) -> None:
    h = make_harness(LocalStorage(tmp_path), clock, None)
    h.runs.put("t1", "request", TurnInput("Still thinking.").to_json())
    h.runs.put(
        "t1", OWNER_KEY, {"host": __import__("socket").gethostname(), "pid": __import__("os").getpid()}
    )
    h.deps.sink_for("t1", "save", 1).emit("step.started", label="Saving your message")
    assert recover_turns(h.deps) == recover_turns(h.deps).__class__()
    assert find_active_slice(WriteBatch.open(h.deps.storage), clock.now()) is None


def test_a_broken_run_does_not_stop_recovery_of_the_others(tmp_path: Path, clock: FixedClock) -> None:
    from core.turn.runstore_fs import FolderRunStore

    runs = FolderRunStore(tmp_path / "runs")
    h = make_harness(LocalStorage(tmp_path / "root"), clock, None, runs=runs)
    (tmp_path / "runs" / "bad").mkdir(parents=True)
    (tmp_path / "runs" / "bad" / "request.json").write_text("{not json", encoding="utf-8")
    runs.put("t1", "request", TurnInput("Save me anyway.").to_json())
    runs.put("t1", OWNER_KEY, {"host": __import__("socket").gethostname(), "pid": 2**22 + 12345})
    report = recover_turns(h.deps)
    assert report.failed == ["bad"] and report.saved == ["t1"]
    assert (tmp_path / "runs" / "bad" / "request.json").read_text(encoding="utf-8") == "{not json"
