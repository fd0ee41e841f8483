"""A fan-out step's events say which item (tool call of the round) they belong to.

Attempts are counted per (step, item): when one call of a tools round is retried, the page must
drop only that call's older attempt, so every event of a tools run carries its `item`.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from core.clock import FixedClock
from core.errors import TransientError
from core.storage.memory import InMemoryStorage
from core.turn.events import Event
from core.turn.runstore import MemoryRunStore
from core.turn.table import FanOut, StepSpec
from functions.aws.environment import LambdaStepEnvironment
from functions.aws.steps import run_task
from tests.fakes.fake_model_server import FakeModelServer, Reply, ToolCall
from tests.functional.turn_support import assert_gap_free, make_harness

pytestmark = pytest.mark.functional
SLICE = "2026-08-11-1115"


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock.at("2026-08-11T11:15:00.000Z")


def fail_once_when(match: dict[str, object]) -> tuple[list[Event], Callable[[Event], None]]:
    """A hook that raises a retryable error the first time an event matching `match` is stored."""
    failed: list[Event] = []

    def hook(event: Event) -> None:
        if not failed and all(event.get(k) == v for k, v in match.items()):
            failed.append(event)
            raise TransientError("the call's Lambda was lost")

    return failed, hook


def test_a_tools_round_stamps_each_calls_events_with_its_item_and_retries_it_alone(
    clock: FixedClock, fake_models: FakeModelServer
) -> None:
    h = make_harness(InMemoryStorage(), clock, fake_models)
    assert h.brain is not None
    calls = [
        ToolCall("readSlice", {"sliceId": SLICE}, id="v0"),
        ToolCall("readGlobalTimeline", {}, id="v1"),
    ]
    h.brain.main(Reply(tool_calls=calls), "Done.")
    failed, hook = fail_once_when({"type": "tool.call", "call_id": "v1", "state": "running"})
    h.hooks.append(hook)
    state = h.turn("What did I do?")
    assert failed, "call v1's first attempt failed"
    assert state.status == "done" and state.reply == "Done."
    assert_gap_free(state.events)

    tools = [e for e in state.events if e["step"] == "tools"]
    assert tools and all("item" in e for e in tools), "every event of a tools run names its item"
    starts = sorted((e["item"], e["attempt"]) for e in tools if e["type"] == "step.started")
    assert starts == [(0, 1), (1, 1), (1, 2)], "only call 1 was retried"
    ended = {
        e["call_id"]: (e["item"], e["attempt"])
        for e in tools
        if e["type"] == "tool.call" and e["state"] != "running"
    }
    assert ended == {"v0": (0, 1), "v1": (1, 2)}
    dones = sorted((e["item"], e["attempt"]) for e in tools if e["type"] == "step.done")
    assert dones == [(0, 1), (1, 2)]

    others = [e for e in state.events if e["step"] != "tools"]
    assert others and all("item" not in e for e in others), "a step that does not fan out has no item"
    second = h.brain.requests["main"][1].body["messages"]
    answered = [m.get("tool_call_id") for m in second if m.get("role") == "tool"]
    assert answered == ["v0", "v1"], "the retried call's result still reaches the model, in order"


def test_a_tools_call_that_keeps_failing_ends_the_turn_under_its_item(
    clock: FixedClock, fake_models: FakeModelServer
) -> None:
    h = make_harness(InMemoryStorage(), clock, fake_models)
    assert h.brain is not None
    h.brain.main(Reply(tool_calls=[ToolCall("readSlice", {"sliceId": SLICE}, id="v0")]), "Done.")

    def always(event: Event) -> None:
        if event["type"] == "tool.call" and event["state"] == "running":
            raise TransientError("down")

    h.hooks.append(always)
    state = h.turn("What did I do?")
    assert state.status == "error"
    [error] = [e for e in state.events if e["type"] == "turn.error"]
    assert (error["step"], error["item"], error["attempt"]) == ("tools", 0, 3)
    assert [m.role for m in h.slice(SLICE).turns] == ["user"], "the user's message is kept"


def test_a_map_iteration_on_aws_stamps_its_item() -> None:
    # One iteration of a Map state: the task payload carries `item` (a JSON string on Step Functions).
    runs = MemoryRunStore()

    def each(state: dict[str, Any], deps: Any) -> dict[str, Any]:
        deps.sink_for(state["turn_id"], "each", state["attempt"], int(state["item"])).emit(
            "text.delta", text="x"
        )
        return {"next": "end"}

    spec = StepSpec("each", "Each", each, fan_out=FanOut("calls", 2))
    env = LambdaStepEnvironment(runs, None, lambda sink_for: SimpleNamespace(sink_for=sink_for))
    out = run_task({"step": "each", "state": {"turn_id": "t1"}, "retry": 1, "item": "1"}, {"each": spec}, env)
    assert "item" not in out and "attempt" not in out
    stamped = [(e["type"], e["attempt"], e["item"]) for e in runs.events("t1")]
    assert stamped == [("step.started", 2, 1), ("text.delta", 2, 1), ("step.done", 2, 1)]
    plain = StepSpec("one", "One", lambda state, deps: {"next": "end"})
    run_task({"step": "one", "state": {"turn_id": "t2"}, "retry": 0}, {"one": plain}, env)
    assert all("item" not in e for e in runs.events("t2"))
