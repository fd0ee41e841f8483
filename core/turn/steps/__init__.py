"""The step table of a turn: prepare → respond ⇄ tools → finalize → after.

Each step is a function `(state, deps) -> state` of small JSON (ids and counters) and the
injected `TurnDeps`; bulk data lives in the run store under the turn id. The in-process runner
(`core.turn.runner`) and the Step Functions definition (infra/) both read this table: its
labels, retries and timeouts. Steps are imported on first use, so reading the table loads no
model code.

Flow: `next` in a step's output names the step to run; `FLOW` lists what each step may ask
for, the usual successor first (a best-effort step that fails goes there). For a Choice state,
`more_tools` mirrors `next == "tools"`; respond runs at most `TOOL_ROUND_CAP` tool rounds and
the last respond is made to answer without tools.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from core.turn.table import RetryRule, StepInput, StepOutput, StepSpec

TOOL_ROUND_CAP = 8
FIRST_STEP = "prepare"
TOOL_LOOP = {"head": "respond", "body": "tools", "flag": "more_tools", "cap": TOOL_ROUND_CAP}

FLOW: dict[str, tuple[str, ...]] = {
    "prepare": ("respond", "end"),
    "respond": ("finalize", "tools"),
    "tools": ("respond",),
    "finalize": ("after",),
    "after": ("end",),
}


def _lazy(module: str, name: str) -> Callable[[StepInput, Any], StepOutput]:
    """A step function imported when it first runs."""

    def run(state: StepInput, deps: Any) -> StepOutput:
        fn: Callable[[StepInput, Any], StepOutput] = getattr(importlib.import_module(module), name)
        return fn(state, deps)

    run.__name__ = name
    run.__qualname__ = name
    return run


_STORAGE = ("ConflictError", "TransientError")

STEP_TABLE: dict[str, StepSpec] = {
    "prepare": StepSpec(
        "prepare",
        "Reading the timeline",
        _lazy("core.turn.steps.prepare", "prepare"),
        retries=(RetryRule(_STORAGE, max_attempts=3, interval_seconds=1.0, backoff_rate=2.0),),
        timeout_seconds=180,
    ),
    "respond": StepSpec(
        "respond",
        "Thinking",
        _lazy("core.turn.steps.respond", "respond"),
        retries=(RetryRule(_STORAGE, max_attempts=3, interval_seconds=2.0, backoff_rate=2.0),),
        timeout_seconds=300,
    ),
    "tools": StepSpec(
        "tools",
        "Using tools",
        _lazy("core.turn.steps.tools", "tools"),
        retries=(RetryRule(_STORAGE, max_attempts=3, interval_seconds=1.0, backoff_rate=2.0),),
        timeout_seconds=300,
    ),
    "finalize": StepSpec(
        "finalize",
        "Saving the reply",
        _lazy("core.turn.steps.finalize", "finalize"),
        retries=(RetryRule(_STORAGE, max_attempts=5, interval_seconds=1.0, backoff_rate=2.0),),
        timeout_seconds=120,
    ),
    "after": StepSpec(
        "after",
        "Tidying the memory",
        _lazy("core.turn.steps.after", "after"),
        retries=(RetryRule(("ConflictError",), max_attempts=2, interval_seconds=1.0, backoff_rate=2.0),),
        best_effort=True,
        timeout_seconds=180,
    ),
}

__all__ = ["FIRST_STEP", "FLOW", "STEP_TABLE", "TOOL_LOOP", "TOOL_ROUND_CAP"]
