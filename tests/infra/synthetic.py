"""A small scripted step table with the turn's shape and flow, to exercise the generated state machine.

Like the real steps, each returns the whole state with `next` naming what runs next.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.errors import ConflictError, ModelError, ModelTransientError
from core.retry import RetryPolicy
from core.turn.table import StepSpec
from infra.workflow import Flow, ToolLoop

CAP = 3


@dataclass
class Script:
    """What the scripted steps do on this run, and what they saw."""

    tool_rounds: int = 0  # rounds the model asks for (may exceed the cap)
    respond_failures: int = 0  # transient failures before respond succeeds
    prepare_conflicts: int = 0
    no_model: bool = False
    ignore_cap: bool = False  # respond keeps asking for tools past the cap
    fail_after: bool = False
    fail_finalize_with: Exception | None = None
    calls: list[tuple[str, int, int]] = field(default_factory=list)  # (step, attempt, round)


@dataclass
class Deps:
    sink_for: Any
    script: Script


def _out(state: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = {k: v for k, v in state.items() if k != "attempt"}
    out.update(changes)
    return out


def _sink(state: dict[str, Any], deps: Deps, step: str) -> Any:
    # The real steps pass the state through when `next` names another step; these insist.
    assert state.get("next") == step, f"{step} ran with next={state.get('next')!r}"
    deps.script.calls.append((step, int(state["attempt"]), int(state.get("round", 0))))
    return deps.sink_for(state["turn_id"], step, int(state["attempt"]))


def prepare(state: dict[str, Any], deps: Deps) -> dict[str, Any]:
    sink = _sink(state, deps, "prepare")
    if deps.script.prepare_conflicts > 0:
        deps.script.prepare_conflicts -= 1
        raise ConflictError("someone else committed")
    sink.emit(
        "turn.started", slice_id="2026-08-11-1115", slice_opened=True, slice_closed=None, user_turn_id="u1"
    )
    if deps.script.no_model:
        sink.emit("turn.error", code="no_model", message="Set a model key.")
        return _out(state, next="end", slice_id="2026-08-11-1115")
    return _out(state, next="respond", slice_id="2026-08-11-1115", round=0)


def respond(state: dict[str, Any], deps: Deps) -> dict[str, Any]:
    sink = _sink(state, deps, "respond")
    sink.emit("text.delta", text="Hel")
    if deps.script.respond_failures > 0:
        deps.script.respond_failures -= 1
        raise ModelTransientError("the provider is busy")
    sink.emit("text.delta", text="lo")
    rnd = int(state["round"])
    more = rnd < deps.script.tool_rounds and (rnd < CAP or deps.script.ignore_cap)
    return _out(state, next="tools" if more else "finalize")


def tools(state: dict[str, Any], deps: Deps) -> dict[str, Any]:
    sink = _sink(state, deps, "tools")
    sink.emit(
        "tool.call", call_id="c1", tool="view", label="Viewing", state="completed", input={}, output="ok"
    )
    return _out(state, next="respond", round=int(state["round"]) + 1)


def finalize(state: dict[str, Any], deps: Deps) -> dict[str, Any]:
    sink = _sink(state, deps, "finalize")
    if deps.script.fail_finalize_with is not None:
        raise deps.script.fail_finalize_with
    sink.emit("turn.done", status="done", agent_turn_id="a1", usage={})
    return _out(state, next="after")


def after(state: dict[str, Any], deps: Deps) -> dict[str, Any]:
    _sink(state, deps, "after")
    if deps.script.fail_after:
        raise ModelError("the consolidation pass failed")
    return _out(state, next="end", after_done=True)


TRANSIENT = RetryPolicy(("TransientError",), max_attempts=3, interval_seconds=1, backoff_rate=2)
STEPS = (
    StepSpec("prepare", "Reading the timeline", prepare, (RetryPolicy(("ConflictError",), 3),)),
    StepSpec("respond", "Thinking", respond, (TRANSIENT,), timeout_seconds=600),
    StepSpec("tools", "Using tools", tools, (TRANSIENT,)),
    StepSpec("finalize", "Saving the reply", finalize, (RetryPolicy(("ConflictError",), 4),)),
    StepSpec("after", "Tidying up", after, (TRANSIENT,), best_effort=True),
)
TRANSITIONS = {
    "prepare": ("respond", "end"),
    "respond": ("finalize", "tools"),
    "tools": ("respond",),
    "finalize": ("after",),
    "after": ("end",),
}
FLOW = Flow(STEPS, TRANSITIONS, "prepare", ToolLoop(head="respond", body="tools", cap=CAP))
TABLE = {spec.name: spec for spec in STEPS}
