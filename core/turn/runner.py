"""The in-process runner: the step table executed in order, with the table's retries.

Used by the CLI, the local server and the tests; Step Functions runs the same table on AWS.
Each attempt of a step is framed by `step.started` / `step.done`; an error the step's retry
rule covers is retried after the declared backoff (the injected `sleep`), and a failure that
exhausts its retries ends the turn with `turn.error` — except in a best-effort step, whose
failure is logged and skipped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from core.turn.deps import TurnDeps
from core.turn.events import TERMINAL_TYPES
from core.turn.failures import failure_code, failure_message
from core.turn.table import END, Flow, StepOutput, StepSpec

Sleep = Callable[[float], None]


def backoff(spec: StepSpec, exc: BaseException, attempt: int) -> float | None:
    """Seconds to wait before retrying after failed attempt `attempt`, or None: no retry."""
    rule = spec.retry_for(exc)
    return None if rule is None else rule.wait(attempt)


def run_step(
    spec: StepSpec,
    state: Mapping[str, Any],
    deps: TurnDeps,
    *,
    successor: str = END,
    sleep: Sleep = time.sleep,
) -> StepOutput:
    """Run one step until it succeeds, its retries run out, or it fails for good."""
    turn_id = str(state["turn_id"])
    item = _item_of(spec, state)
    attempt = 1
    while True:
        sink = deps.sink_for(turn_id, spec.name, attempt, item)
        sink.emit("step.started", label=spec.label)
        try:
            out = spec.run({**state, "attempt": attempt}, deps)
        except Exception as exc:  # the outermost frame of a turn: every failure becomes an event
            wait = backoff(spec, exc, attempt)
            if wait is not None:
                deps.log.warning(
                    "turn %s: %s attempt %d failed (%s); retrying",
                    turn_id,
                    spec.name,
                    attempt,
                    exc,
                    extra={"turn_id": turn_id, "step": spec.name, "attempt": attempt},
                )
                sleep(wait)
                attempt += 1
                continue
            return _failed(spec, state, deps, sink, exc, successor)
        sink.emit("step.done", label=spec.label)
        out = dict(out)
        out.pop("attempt", None)
        out.pop("item", None)
        return out


def _item_of(spec: StepSpec, state: Mapping[str, Any]) -> int | None:
    """Which run of a fan-out step this is (its events say so); None for any other step."""
    item = state.get("item")
    return int(item) if spec.fan_out is not None and item is not None else None


def _failed(
    spec: StepSpec, state: Mapping[str, Any], deps: TurnDeps, sink: Any, exc: BaseException, successor: str
) -> StepOutput:
    turn_id = str(state["turn_id"])
    if spec.best_effort:
        deps.log.warning(
            "turn %s: best-effort step %s skipped: %s",
            turn_id,
            spec.name,
            exc,
            exc_info=exc,
            extra={"turn_id": turn_id, "step": spec.name},
        )
        return {**state, "next": successor, f"skipped_{spec.name}": True}
    deps.log.error(
        "turn %s: step %s failed",
        turn_id,
        spec.name,
        exc_info=exc,
        extra={"turn_id": turn_id, "step": spec.name},
    )
    seen = {e["type"] for e in deps.run_store.events(turn_id)}
    if not seen & TERMINAL_TYPES:
        # `turn.started` is announced only once the user's message is committed.
        saved = "turn.started" in seen
        sink.emit("turn.error", code=failure_code(exc), message=failure_message(spec.name, exc, saved))
    return {**state, "next": END, "failed": spec.name}


def run_fan_out(
    spec: StepSpec,
    state: Mapping[str, Any],
    deps: TurnDeps,
    *,
    successor: str = END,
    sleep: Sleep = time.sleep,
) -> StepOutput:
    """Run a fan-out step once per item in parallel threads, each with its own retries.

    The output is the first item's (they agree), or the first failed item's: a failure ends
    the turn as it would for any step.
    """
    assert spec.fan_out is not None
    items = list(state.get(spec.fan_out.items) or [])
    if not items:
        raise ValueError(f"step {spec.name} runs once per {spec.fan_out.items!r}, and there are none")

    def one(item: Any) -> StepOutput:
        return run_step(spec, {**state, "item": item}, deps, successor=successor, sleep=sleep)

    workers = min(spec.fan_out.max_concurrency, len(items))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"{spec.name}-each") as pool:
        outs = list(pool.map(one, items))
    out = next((o for o in outs if o.get("failed")), outs[0])
    out.pop("item", None)
    return out


def run_turn(
    turn_id: str, deps: TurnDeps, flow: Flow, *, sleep: Sleep = time.sleep, start: StepOutput | None = None
) -> StepOutput:
    """Run a turn from the flow's first step (or from the state `start`) until a step says `end`."""
    state: StepOutput = start or {"turn_id": turn_id, "round": 0, "next": flow.first}
    table = flow.table
    while state.get("next") in table:
        name = str(state["next"])
        spec = table[name]
        run = run_fan_out if spec.fan_out else run_step
        state = run(spec, state, deps, successor=flow.successor(name), sleep=sleep)
        if not flow.allows(name, str(state.get("next"))):
            raise ValueError(
                f"step {name} asked for {state.get('next')!r}; the flow allows {flow.transitions[name]}"
            )
    return state
