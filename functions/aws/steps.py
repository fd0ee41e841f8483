"""Run one step of the step table as a Step Functions task (the body of every step Lambda).

The task's payload is `{"step", "state", "retry"}` (infra/workflow.py), plus `item` for one
iteration of a fan-out step's Map state (one tool call of a round); the state is the small
JSON document the steps pass along (turn id, connection id, a demo persona's id, ids and keys),
and the task returns it with the step's output merged in. Events go through a PushingSink:
`step.started` and `step.done` around the step, the step's own events in between. A step's
exception is re-raised unchanged, so its class name is the error name the state machine
retries or catches on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from core.errors import domain_errors
from core.storage.visitor import visitor_id
from core.turn.events import Event, turn_error
from core.turn.failures import failure_code, failure_message
from core.turn.runstore import RunStore, status_of
from core.turn.table import StepSpec
from functions.aws.sink import PushingSink

FAILURE_STEP = "record_failure"


class StepEnvironment(Protocol):
    """What a task needs from the deployment: the run store, a sink, the step's dependencies."""

    @property
    def runs(self) -> RunStore: ...

    def sink(
        self, turn_id: str, step: str, attempt: int, connection_id: str | None, item: int | None = None
    ) -> PushingSink: ...

    def deps(self, sink: PushingSink) -> Any:
        """The step's dependencies, whose `sink_for` hands out `sink` for this attempt."""
        ...


@dataclass(frozen=True)
class TaskPayload:
    """The parsed task input."""

    step: str
    state: dict[str, Any]
    attempt: int
    item: Any = None

    @property
    def persona(self) -> str | None:
        """The demo persona the turn runs for (None: the default); checked by `parse`."""
        persona = self.state.get("persona")
        return persona if isinstance(persona, str) else None

    @property
    def visitor(self) -> str | None:
        """The demo visitor whose own overlay the turn uses (None: none); checked by `parse`."""
        visitor = self.state.get("visitor")
        return visitor if isinstance(visitor, str) else None

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> TaskPayload:
        state = event.get("state")
        if not isinstance(state, dict) or not isinstance(state.get("turn_id"), str):
            raise ValueError("A step task needs {'step', 'state': {'turn_id', ...}, 'retry'}")
        if not isinstance(state.get("persona", ""), str):
            raise ValueError("A step task's state.persona, when present, is a demo persona's id (a string)")
        if "visitor" in state and visitor_id(state["visitor"]) is None:
            raise ValueError("A step task's state.visitor, when present, is a visitor id (32 hex digits)")
        attempt = int(event.get("retry") or 0) + 1
        return cls(str(event.get("step", "")), dict(state), attempt, event.get("item"))


def run_task(event: Mapping[str, Any], steps: Mapping[str, StepSpec], env: StepEnvironment) -> dict[str, Any]:
    """One attempt of one step: events around it, its output merged into the state."""
    task = TaskPayload.parse(event)
    if task.step == FAILURE_STEP:
        return record_failure(task.state, env)
    spec = steps.get(task.step)
    if spec is None:
        raise ValueError(f"Unknown step {task.step!r}; the table has {sorted(steps)}")
    item = int(task.item) if spec.fan_out is not None and task.item is not None else None
    sink = env.sink(task.state["turn_id"], spec.name, task.attempt, task.state.get("connection_id"), item)
    given = task.state if task.item is None else {**task.state, "item": task.item}
    sink.emit("step.started", label=spec.label)
    try:
        output = dict(spec.run({**given, "attempt": task.attempt}, env.deps(sink)) or {})
    finally:
        # Whatever the step said before failing is kept and shown; a retry numbers on after it.
        sink.flush()
    sink.emit("step.done", label=spec.label)
    sink.close()
    output.pop("attempt", None)
    output.pop("item", None)
    return {**task.state, **output}


def caught_exception(error: Mapping[str, Any] | None) -> BaseException:
    """The exception a caught task error stands for: its class (a domain error, else a stand-in
    of the same name) with the message the Lambda reported."""
    error = error or {}
    name = str(error.get("Error") or "Exception")
    message = ""
    try:
        cause = json.loads(str(error.get("Cause") or "{}"))
        message = str(cause.get("errorMessage", "")) if isinstance(cause, dict) else ""
    except ValueError:
        pass
    domain = domain_errors().get(name)
    if domain is not None:
        return domain(message)
    # Not ours (a bug, a Lambda timeout): only the name is shown, as the in-process runner does.
    return type(name.replace(".", "_"), (Exception,), {})(message)


def record_failure(state: dict[str, Any], env: StepEnvironment) -> dict[str, Any]:
    """End a failed turn with `turn.error` (unless it already ended), worded as the runner words it."""
    turn_id = state["turn_id"]
    events = env.runs.events(turn_id)
    if status_of(events) != "running":
        return state
    step, attempt = _last_step(events)
    exc = caught_exception(state.get("error"))
    saved = any(e["type"] == "turn.started" for e in events)
    sink = env.sink(turn_id, step, attempt, state.get("connection_id"))
    sink.emit("turn.error", **turn_error(failure_code(exc), failure_message(step, exc, saved)))
    sink.close()
    return state


def _last_step(events: list[Event]) -> tuple[str, int]:
    for event in reversed(events):
        if event["type"] == "step.started":
            return str(event["step"]), int(event["attempt"])
    return FAILURE_STEP, 1
