"""Step 3, tools: one tool call of a respond round per run, the round's calls in parallel.

The state is a fan-out (core/turn/table.py `FanOut`): it runs once per position in `calls`,
in parallel — threads in process, a Map state's iterations on AWS — each with the step's own
retries, so a failing call is retried alone. A run announces its call as `tool.call` running and
ends it completed or error (a malformed or unknown call becomes an error result the model can
act on); recall progress and hits stream through the tool context. A recall call the recall
state answered is not run again; one it could not answer (the state failed and was caught) is
answered here from the full-text floor alone. Guarded file writes made by the tool are
committed by its run, only when something changed. The result goes to the run store under the
call's position; a retried run whose result is stored does not run the tool again. The next
respond reads the round's results in call order (core/turn/steps/results.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from core.agent.main_tools import ToolContext, main_tools
from core.agent.recall.once import RecallMemo
from core.llm.tools import Tool
from core.llm.types import ToolCall, ToolResult
from core.memory.paths import MemoryPath
from core.storage.base import UpdateFn, WriteBatch
from core.turn.deps import TurnDeps
from core.turn.events import EventSink, EventType, ToolState, tool_call
from core.turn.labels import tool_label
from core.turn.state import StepState
from core.turn.steps import TOOL_CONCURRENCY
from core.turn.steps.common import PROMPT_KEY, StepContext, earlier_rounds, load_context
from core.turn.steps.results import (
    RECALL_TOOL,
    call_key,
    calls_of,
    recall_key,
    round_key,
    stored_results,
)
from core.turn.wire import message_to_json

# The recall state's calls run in threads, as many at once as the tools state's fan-out.
MAX_PARALLEL = TOOL_CONCURRENCY
DISPLAY_CHARS = 2000
INTERRUPTED = "Interrupted: the user stopped the turn before this tool ran."


@dataclass
class SharedBatch(WriteBatch):
    """A write batch several tool threads may use at once."""

    _guard: threading.RLock = field(default_factory=threading.RLock, init=False, repr=False)

    def read(self, path: MemoryPath) -> str | None:
        with self._guard:
            return super().read(path)

    def read_bytes(self, path: MemoryPath) -> bytes | None:
        with self._guard:
            return super().read_bytes(path)

    def list(self, prefix: MemoryPath) -> list[MemoryPath]:
        with self._guard:
            return super().list(prefix)

    def put(self, path: MemoryPath, text: str) -> None:
        with self._guard:
            super().put(path, text)

    def put_bytes(self, path: MemoryPath, data: bytes) -> None:
        with self._guard:
            super().put_bytes(path, data)

    def update(self, path: MemoryPath, fn: UpdateFn, needed: Callable[[], bool] | None = None) -> None:
        with self._guard:
            super().update(path, fn, needed)

    def delete(self, path: MemoryPath) -> None:
        with self._guard:
            super().delete(path)

    def version_of(self, path: MemoryPath) -> str | None:
        with self._guard:
            return super().version_of(path)

    def stamp_of(self, path: MemoryPath) -> str | None:
        with self._guard:
            return super().stamp_of(path)


def tools(state: StepState, deps: TurnDeps) -> StepState:
    """Run call `state.item` of round `state.round`; then the next round."""
    turn_id, rnd, position = state.turn_id, state.round, state.item
    if position is None:
        raise ValueError("The tools state runs one call of a round: its input names no item.")
    if deps.run_store.get(turn_id, call_key(rnd, position)) is None:
        calls = calls_of(deps.run_store.get(turn_id, round_key(rnd)))
        if not 0 <= position < len(calls):
            raise ValueError(f"Round {rnd} has {len(calls)} tool calls, not a call {position}.")
        call = calls[position]
        recalled = stored_results(deps.run_store, turn_id, recall_key(rnd)).get(call.id)
        if recalled is None:
            batch = SharedBatch(deps.storage, deps.storage.snapshot())
            ctx = load_context(state, deps, "tools", batch)
            [result] = run_calls(ctx, batch, [call], floor_only=call.name == RECALL_TOOL)
            deps.run_store.put(turn_id, call_key(rnd, position), message_to_json(result))
    return state.then("respond", round=rnd + 1, calls=())


def run_calls(
    ctx: StepContext, batch: SharedBatch, calls: list[ToolCall], *, floor_only: bool = False
) -> list[ToolResult]:
    """Announce and run `calls` in parallel threads; commit the tools' file writes, if any.

    `floor_only` runs them without a model (recall falls back to its full-text floor).
    """
    if not calls:
        return []
    sink, deps, turn_id = ctx.sink, ctx.deps, ctx.turn_id
    announce = _Announcer(sink, ctx.locale, ctx.timezone)
    if ctx.cancelled():
        return [announce.interrupted(call) for call in calls]
    tool_ctx = ToolContext(
        view=batch,
        batch=batch,
        clock=deps.clock,
        models=None if floor_only else ctx.models,
        slice_id=ctx.slice_id,
        timezone=announce.timezone,
        locale=announce.locale,
        config=ctx.config,
        progress=lambda call_id, label: _emit(sink, "recall.progress", call_id=call_id, label=label),
        hits=lambda call_id, payload: _emit(sink, "recall.hits", **{**payload, "call_id": call_id}),
        system_prompt=str(deps.run_store.get(turn_id, PROMPT_KEY) or ""),
        monotonic=deps.monotonic,
        web=deps.web,
        recalls=RecallMemo.from_history(earlier_rounds(deps, turn_id, ctx.state.round)),
    )
    by_name = {t.spec.name: t for t in main_tools(tool_ctx)}
    for call in calls:
        announce.running(call)
    with ThreadPoolExecutor(max_workers=MAX_PARALLEL, thread_name_prefix=f"tools-{turn_id}") as pool:
        results = list(pool.map(lambda c: announce.ended(c, _run_one(by_name, c)), calls))
    if batch.changes:
        batch.commit(f"Turn {turn_id} — tool writes")
    return results


def _emit(sink: EventSink, type: EventType, **fields: Any) -> None:
    sink.emit(type, **fields)


def _run_one(by_name: dict[str, Tool], call: ToolCall) -> ToolResult:
    tool = by_name.get(call.name)
    if tool is None:
        known = ", ".join(sorted(by_name)) or "none"
        return ToolResult(call.id, f"ERROR: there is no tool {call.name!r} (tools: {known}).", is_error=True)
    try:
        return tool.run(call)
    except Exception as exc:  # one broken tool must not cost the turn: the model hears what failed
        return ToolResult(call.id, f"ERROR: {call.name} failed ({type(exc).__name__}: {exc}).", True)


@dataclass(frozen=True)
class _Announcer:
    """The `tool.call` events of one step, labelled in the user's language and time zone."""

    sink: EventSink
    locale: str
    timezone: str

    def _emit(self, call: ToolCall, state: ToolState, output: str | None = None) -> None:
        label = tool_label(
            call.name, call.arguments, state, self.locale, timezone=self.timezone, output=output
        )
        shown = output[:DISPLAY_CHARS] if output is not None else None
        given = call.arguments if not call.error else call.raw_arguments
        self.sink.emit("tool.call", **tool_call(call.id, call.name, label, state, given, shown))

    def running(self, call: ToolCall) -> None:
        self._emit(call, "running")

    def ended(self, call: ToolCall, result: ToolResult) -> ToolResult:
        self._emit(call, "error" if result.is_error else "completed", result.content)
        return result

    def interrupted(self, call: ToolCall) -> ToolResult:
        self._emit(call, "interrupted")
        return ToolResult(call.id, INTERRUPTED, is_error=True)
