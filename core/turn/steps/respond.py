"""Step 2, respond: one round of the main model, streamed as events; its messages go to the run store.

Messages = the current slice's turns ending with this message (history trimmed to the slice),
then this turn's earlier rounds and their tool results. The system prompt is the slice-frozen
one, built on the turn's first round and reused by every later round and retry. A reply cut by
the output limit is continued (bounded). At the round cap the model must answer without tools.
"""

from __future__ import annotations

from typing import Any

from core.agent.main_tools import ToolContext, main_tools
from core.llm.registry import BoundModel
from core.llm.tools import Tool
from core.llm.types import Message, ToolSpec, Usage, UserMessage
from core.media.attach import sees_images, with_images
from core.turn.closing import read_slice
from core.turn.deps import TurnDeps
from core.turn.events import EventSink
from core.turn.history import slice_history
from core.turn.prompting import frozen_prompt, with_card_note
from core.turn.state import StepState
from core.turn.steps import TOOL_ROUND_CAP
from core.turn.steps.common import (
    CANCEL_KEY,
    StepContext,
    earlier_rounds,
    load_context,
    round_key,
)
from core.turn.steps.recall import asks_recall
from core.turn.steps.results import calls_of
from core.turn.stream import CallOutcome, stream_call
from core.turn.wire import message_to_json

MAX_CONTINUATIONS = 5
CONTINUE_NUDGE = "Your reply was cut off by the length limit. Continue exactly where you stopped."


def respond(state: StepState, deps: TurnDeps) -> StepState:
    """Run round `state.round` of the main model."""
    record = deps.run_store.get(state.turn_id, round_key(state.round))
    if not isinstance(record, dict):
        record = _run_round(load_context(state, deps, "respond"))
    wants_tools = record["finish"] == "tool_calls" and state.round < TOOL_ROUND_CAP and _has_calls(record)
    if not wants_tools:
        return state.then("finalize", calls=())
    # Every call, recall's too: if the recall state fails and is caught, tools answers them.
    every = tuple(range(len(calls_of(record))))
    return state.then("recall" if asks_recall(record) else "tools", calls=every)


def _has_calls(record: dict[str, Any]) -> bool:
    last = record["messages"][-1] if record["messages"] else {}
    return bool(last.get("tool_calls"))


def _run_round(ctx: StepContext) -> dict[str, Any]:
    deps, turn_id, rnd, models = ctx.deps, ctx.turn_id, ctx.state.round, ctx.models
    if models is None:
        record = _record([], "error", Usage(), ("no_model", "No model is configured."))
    elif ctx.cancelled():
        record = _record([], "interrupted", Usage())
    else:
        batch, config, prepared = ctx.batch, ctx.config, ctx.prepared
        current = read_slice(batch, ctx.slice_id)
        # The tools' specs are all this step needs of them; the tools step runs the calls.
        tool_ctx = ToolContext(
            view=batch, clock=deps.clock, models=models, slice_id=ctx.slice_id, config=config, web=deps.web
        )
        closed = prepared.slice_closed if prepared else None
        system = frozen_prompt(deps, turn_id, batch, current, config, closed, ctx.timezone)
        history = slice_history(current, turn_id, ctx.request.message, 2 * config.max_turns_per_slice)
        history = with_card_note(history, prepared.card_note if prepared else None)
        vision = sees_images(models.main)
        history = with_images(history, ctx.request.attachments, vision)
        if ctx.request.attachments and not vision and rnd == 0:
            ctx.sink.emit("attachment.unseen", count=len(ctx.request.attachments), model=models.main.info.id)
        messages = [*history, *earlier_rounds(deps, turn_id, rnd)]
        record = _call(deps, ctx.sink, turn_id, models.main, messages, system, main_tools(tool_ctx), rnd)
    deps.run_store.put(turn_id, round_key(rnd), record)
    return record


def _call(
    deps: TurnDeps,
    sink: EventSink,
    turn_id: str,
    model: BoundModel,
    messages: list[Message],
    system: str,
    tools: list[Tool],
    rnd: int,
) -> dict[str, Any]:
    """The round's model call(s): the first, plus continuations while the reply hits the length limit."""
    specs: tuple[ToolSpec, ...] = tuple(t.spec for t in tools)
    choice = "none" if rnd >= TOOL_ROUND_CAP and specs else "auto"
    produced: list[Message] = []
    usage = Usage()
    outcome: CallOutcome | None = None
    for _ in range(MAX_CONTINUATIONS + 1):
        request = model.request(
            [*messages, *produced],
            system=system,
            tools=specs,
            tool_choice=choice,
            timeout=deps.model_timeout,
            cache_system=True,
        )
        outcome = stream_call(
            model.client, request, sink, lambda: bool(deps.run_store.get(turn_id, CANCEL_KEY)), deps.monotonic
        )
        usage = usage + outcome.usage
        if outcome.reason not in ("error", "interrupted") or _said_something(outcome):
            produced.append(outcome.message)
        if outcome.reason != "length":
            break
        produced.append(UserMessage(CONTINUE_NUDGE))
    assert outcome is not None
    error = ("model_error", outcome.error or "") if outcome.reason == "error" else None
    return _record(produced, outcome.reason, usage, error)


def _said_something(outcome: CallOutcome) -> bool:
    message = outcome.message
    return bool(message.text or message.reasoning or message.tool_calls)


def _record(
    produced: list[Message], finish: str, usage: Usage, error: tuple[str, str] | None = None
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "messages": [message_to_json(m) for m in produced],
        "finish": finish,
        "usage": usage.as_dict(),
    }
    if error is not None:
        record["error"] = {"code": error[0], "message": error[1]}
    return record
