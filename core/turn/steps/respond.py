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
from core.storage.base import WriteBatch
from core.turn.closing import read_slice
from core.turn.deps import TurnDeps
from core.turn.events import EventSink
from core.turn.history import slice_history
from core.turn.prompting import frozen_prompt, with_card_note
from core.turn.steps import TOOL_ROUND_CAP
from core.turn.steps.common import (
    CANCEL_KEY,
    PREPARED_KEY,
    load_request,
    output,
    resolve_models,
    results_key,
    round_key,
    sink_of,
    skip,
    user_config,
)
from core.turn.stream import CallOutcome, stream_call
from core.turn.table import StepInput, StepOutput
from core.turn.wire import message_to_json, messages_from_json

MAX_CONTINUATIONS = 5
CONTINUE_NUDGE = "Your reply was cut off by the length limit. Continue exactly where you stopped."


def respond(state: StepInput, deps: TurnDeps) -> StepOutput:
    """Run round `state["round"]` of the main model."""
    if skip(state, "respond"):
        return dict(state)
    turn_id, rnd = str(state["turn_id"]), int(state.get("round", 0))
    record = deps.run_store.get(turn_id, round_key(rnd))
    if not isinstance(record, dict):
        record = _run_round(state, deps, turn_id, rnd)
    wants_tools = record["finish"] == "tool_calls" and rnd < TOOL_ROUND_CAP and _has_calls(record)
    return output(state, next="tools" if wants_tools else "finalize")


def _has_calls(record: dict[str, Any]) -> bool:
    last = record["messages"][-1] if record["messages"] else {}
    return bool(last.get("tool_calls"))


def _run_round(state: StepInput, deps: TurnDeps, turn_id: str, rnd: int) -> dict[str, Any]:
    sink = sink_of(deps, state, "respond")
    request = load_request(deps, turn_id)
    prepared = deps.run_store.get(turn_id, PREPARED_KEY) or {}
    batch = WriteBatch.open(deps.storage)
    config = user_config(batch)
    models = resolve_models(deps, request, config, sink)
    if models is None:
        record = _record([], "error", Usage(), ("no_model", "No model is configured."))
    elif deps.run_store.get(turn_id, CANCEL_KEY):
        record = _record([], "interrupted", Usage())
    else:
        slice_id = str(prepared.get("slice_id") or state["slice_id"])
        current = read_slice(batch, slice_id)
        # The tools' specs are all this step needs of them; the tools step runs the calls.
        ctx = ToolContext(
            view=batch, clock=deps.clock, models=models, slice_id=slice_id, config=config, web=deps.web
        )
        system = frozen_prompt(deps, turn_id, batch, current, config, prepared, request.timezone or "UTC")
        history = slice_history(current, turn_id, request.message, 2 * config.max_turns_per_slice)
        history = with_card_note(history, prepared.get("card_note"))
        vision = sees_images(models.main)
        history = with_images(history, request.attachments, vision)
        if request.attachments and not vision and rnd == 0:
            sink.emit("attachment.unseen", count=len(request.attachments), model=models.main.info.id)
        messages = [*history, *_earlier_rounds(deps, turn_id, rnd)]
        tools = main_tools(ctx)
        record = _call(deps, sink, turn_id, models.main, messages, system, tools, rnd)
    deps.run_store.put(turn_id, round_key(rnd), record)
    return record


def _earlier_rounds(deps: TurnDeps, turn_id: str, rnd: int) -> list[Message]:
    out: list[Message] = []
    for n in range(rnd):
        record = deps.run_store.get(turn_id, round_key(n)) or {}
        out += messages_from_json(record.get("messages"))
        out += messages_from_json(deps.run_store.get(turn_id, results_key(n)))
    return out


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
