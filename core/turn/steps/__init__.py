"""The turn's steps: save → analyze → respond ⇄ (recall, tools) → finalize → [close → strands →
catalog → index → evolve] → after (the bracket only when save closed a slice).

The close-time passes run after finalize announced `turn.done`: the reply never waits for them,
the run (thread or execution) goes on with them, and `previously maintain` finishes the passes
of a run that died (core/turn/close_runs.py).

Each step is a function `(StepState, TurnDeps) -> StepState` of small typed state (ids and
counters) and the injected dependencies; bulk data lives in the run store under the turn id.
The table converts the state from and to JSON at its edge, so the in-process runner
(`core.turn.runner`) and the Step Functions definition (infra/) both run the same functions
and read the same labels, retries, timeouts and flow (`TURN_FLOW`, validated in
`core.turn.table.Flow`). Steps are imported on first use, so reading the table loads no model
code.

Flow: `next` in a step's output names the step to run; `FLOW` lists what each step may ask
for, the usual successor first (a best-effort step that fails goes there). respond runs at most
`TOOL_ROUND_CAP` tool rounds and the last respond is made to answer without tools.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from core.retry import RetryPolicy
from core.turn.state import StepState
from core.turn.table import END, FanOut, Flow, StepInput, StepOutput, StepSpec, ToolLoop

TOOL_ROUND_CAP = 8
# The tools state runs once per call of the round, this many at once (core/turn/steps/tools.py).
TOOL_CONCURRENCY = 4
FIRST_STEP = "save"

FLOW: dict[str, tuple[str, ...]] = {
    "save": ("analyze",),
    # Without a model the turn ends here — after the close passes when save closed a slice.
    "analyze": ("respond", END, "close"),
    "respond": ("finalize", "tools", "recall"),
    # A failing recall is caught and goes on to tools, which answers it from the full-text floor.
    "recall": ("tools", "respond"),
    "tools": ("respond",),
    "finalize": ("after", "close"),
    # The close-time passes, one state each, after the reply (core/turn/steps/close.py, close_passes.py).
    "close": ("strands",),
    "strands": ("catalog",),
    "catalog": ("index",),
    "index": ("evolve",),
    "evolve": ("after",),
    "after": (END,),
}


def _lazy(module: str, name: str) -> Callable[[StepInput, Any], StepOutput]:
    """A step function imported when it first runs, its state parsed and written here."""

    def run(state: StepInput, deps: Any) -> StepOutput:
        fn: Callable[[StepState, Any], StepState] = getattr(importlib.import_module(module), name)
        return fn(StepState.from_json(state), deps).to_json()

    run.__name__ = name
    run.__qualname__ = name
    return run


_STORAGE = ("ConflictError", "TransientError")
_WITH_MODEL = (*_STORAGE, "ModelTransientError")


def _step(
    name: str,
    label: str,
    retry: RetryPolicy,
    timeout: int,
    best_effort: bool = False,
    fan_out: FanOut | None = None,
    module: str | None = None,
) -> StepSpec:
    run = _lazy(f"core.turn.steps.{module or name}", name)
    return StepSpec(
        name, label, run, (retry,), best_effort=best_effort, timeout_seconds=timeout, fan_out=fan_out
    )


STEP_TABLE: dict[str, StepSpec] = {
    s.name: s
    for s in (
        # Storage only: no model can hold up or lose the user's words.
        _step("save", "Saving your message", RetryPolicy(_STORAGE, 5, 0.5, 2.0), 60),
        _step("close", "Closing the last slice", RetryPolicy(_STORAGE, 3, 1.0, 2.0), 240, best_effort=True),
        *(
            _step(
                name, label, RetryPolicy(_STORAGE, 3, 1.0, 2.0), 120, best_effort=True, module="close_passes"
            )
            for name, label in (
                ("strands", "Weaving strands"),
                ("catalog", "Updating the catalog"),
                ("index", "Indexing for search"),
            )
        ),
        _step("evolve", "Updating your card", RetryPolicy(_WITH_MODEL, 3, 1.0, 2.0), 240, best_effort=True),
        _step("analyze", "Reading the timeline", RetryPolicy(_STORAGE, 3, 1.0, 2.0), 120, best_effort=True),
        _step("respond", "Thinking", RetryPolicy(_STORAGE, 3, 2.0, 2.0), 300),
        # The worker's scan: a transient model error is retried here alone, under its own timeout.
        _step("recall", "Searching memory", RetryPolicy(_WITH_MODEL, 3, 1.0, 2.0), 150, best_effort=True),
        # One run per call of the round, in parallel; a failing call is retried alone.
        _step(
            "tools",
            "Using tools",
            RetryPolicy(_STORAGE, 3, 1.0, 2.0),
            300,
            fan_out=FanOut("calls", TOOL_CONCURRENCY),
        ),
        _step("finalize", "Saving the reply", RetryPolicy(_STORAGE, 5, 1.0, 2.0), 120),
        _step(
            "after", "Tidying the memory", RetryPolicy(("ConflictError",), 2, 1.0, 2.0), 180, best_effort=True
        ),
    )
}
TOOL_LOOP = ToolLoop(head="respond", body="tools", cap=TOOL_ROUND_CAP, also=("recall",))
TURN_FLOW = Flow(tuple(STEP_TABLE.values()), FLOW, FIRST_STEP, TOOL_LOOP)

__all__ = ["FIRST_STEP", "FLOW", "STEP_TABLE", "TOOL_LOOP", "TOOL_ROUND_CAP", "TURN_FLOW"]
