"""A small scripted step table with the turn's shape, to exercise the generated state machine."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.errors import ConflictError, ModelError, ModelTransientError
from core.turn.table import RetryRule, StepSpec
from infra.workflow import Flow, ToolLoop

CAP = 3


@dataclass
class Script:
    """What the scripted steps do on this run, and what they saw."""

    tool_rounds: int = 0  # rounds the model asks for (may exceed the cap)
    respond_failures: int = 0  # transient failures before respond succeeds
    prepare_conflicts: int = 0
    fail_after: bool = False
    fail_finalize_with: Exception | None = None
    calls: list[tuple[str, int, int]] = field(default_factory=list)  # (step, attempt, rounds)


@dataclass
class Deps:
    events: Any
    script: Script


def _seen(name: str, state: dict[str, Any], deps: Deps) -> None:
    deps.script.calls.append((name, int(deps.events.attempt), int(state["loop"]["rounds"])))


def prepare(state: dict[str, Any], deps: Deps) -> dict[str, Any]:
    _seen("prepare", state, deps)
    if deps.script.prepare_conflicts > 0:
        deps.script.prepare_conflicts -= 1
        raise ConflictError("someone else committed")
    deps.events.emit(
        "turn.started", slice_id="2026-08-11-1115", slice_opened=True, slice_closed=None, user_turn_id="u1"
    )
    return {"slice_id": "2026-08-11-1115"}


def respond(state: dict[str, Any], deps: Deps) -> dict[str, Any]:
    _seen("respond", state, deps)
    deps.events.emit("text.delta", text="Hel")
    if deps.script.respond_failures > 0:
        deps.script.respond_failures -= 1
        raise ModelTransientError("the provider is busy")
    deps.events.emit("text.delta", text="lo")
    return {"needs_tools": state["loop"]["rounds"] < deps.script.tool_rounds}


def tools(state: dict[str, Any], deps: Deps) -> dict[str, Any]:
    _seen("tools", state, deps)
    deps.events.emit(
        "tool.call", call_id="c1", tool="view", label="Viewing", state="completed", input={}, output="ok"
    )
    return {}


def finalize(state: dict[str, Any], deps: Deps) -> dict[str, Any]:
    _seen("finalize", state, deps)
    if deps.script.fail_finalize_with is not None:
        raise deps.script.fail_finalize_with
    deps.events.emit("turn.done", status="done", agent_turn_id="a1", usage={})
    return {"agent_turn_id": "a1"}


def after(state: dict[str, Any], deps: Deps) -> dict[str, Any]:
    _seen("after", state, deps)
    if deps.script.fail_after:
        raise ModelError("the consolidation pass failed")
    return {"after_done": True}


TRANSIENT = RetryRule(("TransientError",), max_attempts=3, interval_seconds=1, backoff_rate=2)
STEPS = (
    StepSpec("prepare", "Reading the timeline", prepare, (RetryRule(("ConflictError",), 3),)),
    StepSpec("respond", "Thinking", respond, (TRANSIENT,), timeout_seconds=600),
    StepSpec("tools", "Using tools", tools, (TRANSIENT,)),
    StepSpec("finalize", "Saving the reply", finalize, (RetryRule(("ConflictError",), 4),)),
    StepSpec("after", "Tidying up", after, (TRANSIENT,), best_effort=True),
)
FLOW = Flow(STEPS, ToolLoop(head="respond", body="tools", flag="needs_tools", cap=CAP))
TABLE = {spec.name: spec for spec in STEPS}
