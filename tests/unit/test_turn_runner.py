"""The in-process runner over a made-up step table: order, retries, backoff, failures, best effort."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from core.clock import FixedClock, SequentialIds
from core.errors import ConflictError, InvalidInput, ModelTransientError
from core.retry import RetryPolicy
from core.storage.memory import InMemoryStorage
from core.turn.deps import TurnDeps
from core.turn.runner import backoff, run_turn
from core.turn.runstore import MemoryRunStore, status_of
from core.turn.sink import RunStoreSinks
from core.turn.table import Flow, StepSpec

pytestmark = pytest.mark.unit

FLOW = {"one": ("two",), "two": ("three", "end"), "three": ("end",)}


def deps() -> TurnDeps:
    runs = MemoryRunStore()
    return TurnDeps(
        InMemoryStorage(),
        FixedClock.at("2026-08-11T11:15:00Z"),
        SequentialIds(),
        runs,
        None,
        RunStoreSinks(runs),
    )


def step(name: str, nxt: str, fail: list[Exception] | None = None, **spec: Any) -> StepSpec:
    failures = list(fail or [])

    def run(state: dict[str, Any], d: TurnDeps) -> dict[str, Any]:
        if failures:
            raise failures.pop(0)
        d.sink_for(state["turn_id"], name, state["attempt"]).emit("text.delta", text=name)
        return {**state, "next": nxt, "seen": [*state.get("seen", []), f"{name}#{state['attempt']}"]}

    return StepSpec(name, name.title(), run, **spec)


def go(d: TurnDeps, table: dict[str, StepSpec], sleep: Any) -> dict[str, Any]:
    """Run the table's steps (steps it leaves out just end the turn) through the flow."""
    full = {name: table.get(name) or step(name, "end") for name in FLOW}
    return run_turn("t1", d, Flow(tuple(full.values()), FLOW, "one"), sleep=sleep)


RETRY = (
    RetryPolicy(("ConflictError", "TransientError"), max_attempts=3, interval_seconds=1.5, backoff_rate=3.0),
)


def test_steps_run_in_flow_order_with_framing_events() -> None:
    d = deps()
    table = {"one": step("one", "two"), "two": step("two", "three"), "three": step("three", "end")}
    final = go(d, table, lambda s: None)
    assert final["seen"] == ["one#1", "two#1", "three#1"] and final["next"] == "end"
    events = d.run_store.events("t1")
    assert [(e["seq"], e["type"], e["step"]) for e in events[:3]] == [
        (1, "step.started", "one"),
        (2, "text.delta", "one"),
        (3, "step.done", "one"),
    ]
    assert events[0]["label"] == "One" and [e["seq"] for e in events] == list(range(1, 10))


def test_retry_with_declared_backoff_continues_the_sequence() -> None:
    d = deps()
    sleeps: list[float] = []
    flaky = step("two", "end", [ConflictError("moved"), ModelTransientError("busy")], retries=RETRY)
    go(d, {"one": step("one", "two"), "two": flaky}, sleeps.append)
    assert sleeps == [1.5, 4.5]
    two = [(e["type"], e["attempt"]) for e in d.run_store.events("t1") if e["step"] == "two"]
    assert two == [
        ("step.started", 1),
        ("step.started", 2),
        ("step.started", 3),
        ("text.delta", 3),
        ("step.done", 3),
    ]
    assert [e["seq"] for e in d.run_store.events("t1")] == list(range(1, 9))


def test_exhausted_retries_end_the_turn_with_an_error_code() -> None:
    d = deps()
    table = {"one": step("one", "two", [ConflictError("moved")] * 3, retries=RETRY)}
    final = go(d, table, lambda s: None)
    assert final["next"] == "end" and final["failed"] == "one"
    last = d.run_store.events("t1")[-1]
    assert (last["type"], last["code"], last["attempt"]) == ("turn.error", "conflict", 3)
    assert "not saved" in last["message"], "prepare failed: the message never reached memory"
    assert status_of(d.run_store.events("t1")) == "error"


def test_unlisted_errors_are_not_retried() -> None:
    d = deps()
    sleeps: list[float] = []
    table = {"one": step("one", "two"), "two": step("two", "end", [InvalidInput("bad")], retries=RETRY)}
    d.sink_for("t1", "zero", 1).emit("turn.started", slice_id="s")
    go(d, table, sleeps.append)
    last = d.run_store.events("t1")[-1]
    assert sleeps == [] and last["code"] == "invalid_input" and "message is saved" in last["message"]


def test_unexpected_exceptions_are_internal_errors(caplog: pytest.LogCaptureFixture) -> None:
    d = deps()
    table = {"one": step("one", "two", [KeyError("x")])}
    with caplog.at_level(logging.ERROR):
        go(d, table, lambda s: None)
    assert d.run_store.events("t1")[-1]["code"] == "internal"
    assert "step one failed" in caplog.text


def test_best_effort_failure_is_logged_and_skipped(caplog: pytest.LogCaptureFixture) -> None:
    d = deps()
    table = {
        "one": step("one", "two"),
        "two": step("two", "three", [RuntimeError("flaky pass")], best_effort=True),
        "three": step("three", "end"),
    }
    with caplog.at_level(logging.WARNING):
        final = go(d, table, lambda s: None)
    assert final["seen"] == ["one#1", "three#1"] and final["skipped_two"] is True
    assert not any(e["type"] == "turn.error" for e in d.run_store.events("t1"))
    assert "best-effort step two skipped" in caplog.text


def test_a_step_asking_for_a_step_outside_the_flow_is_a_bug() -> None:
    d = deps()
    with pytest.raises(ValueError, match="the flow allows"):
        go(d, {"one": step("one", "three")}, lambda s: None)


def test_backoff_follows_the_rule() -> None:
    spec = step("x", "end", retries=RETRY)
    assert backoff(spec, ConflictError("a"), 1) == 1.5
    assert backoff(spec, ConflictError("a"), 2) == 4.5
    assert backoff(spec, ConflictError("a"), 3) is None
    assert backoff(spec, ValueError("a"), 1) is None
