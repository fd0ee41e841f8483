"""Step 4, finalize (docs/ARCHITECTURE.md, step "finalize"; docs/FORMAT.md "agent.md"): the reply and the
cognition log are saved — **commit #2**.

The agent turn is all assistant text of this turn (`[partial] …` when it was interrupted or
failed midway; nothing when there is no text to keep); agent.md gets the turn's reasoning, tool
calls with ok/error, the pages webSearch cited, and thinkDeep reports. Both are storage Updates
keyed by the turn id, so a conflict re-applies them on the other writer's text and a re-run adds
nothing. Then the terminal event: `turn.done` {status, agent_turn_id, usage}, or `turn.error`
after a model error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from core.agent.recall.use import recall_uses
from core.clock import iso
from core.errors import InvalidInput
from core.llm.types import AssistantMessage, ToolResult, Usage
from core.memory.evolution.fitness import Signal
from core.memory.evolution.store import record_signal
from core.memory.paths import core_md
from core.memory.slice import agent_md as cognition
from core.memory.slice.agent_parts import queue_entry
from core.memory.slice.merge import append_turn, has_turn
from core.memory.slice.model import Turn, parse_core_md
from core.memory.slice.slicer import overflows
from core.storage.base import WriteBatch
from core.turn.deps import TurnDeps
from core.turn.events import TERMINAL_TYPES, turn_done
from core.turn.overflow import spill_reply
from core.turn.state import Prepared, StepState
from core.turn.steps.analyze import queue_tags
from core.turn.steps.common import CANCEL_KEY, TAGS_KEY, load_prepared, round_key, sink_of
from core.turn.steps.results import round_results
from core.turn.wire import messages_from_json
from core.web.search import parse_sources

DEEP_TOOL = "thinkDeep"
SEARCH_TOOL = "webSearch"
MODEL_ERROR_ADVICE = (
    "Your message is saved. Check the model settings (`previously models`), then send it again."
)


@dataclass
class Rounds:
    """This turn's model rounds as the run store holds them."""

    assistant: list[AssistantMessage] = field(default_factory=list)
    results: dict[str, ToolResult] = field(default_factory=dict)
    finish: str = ""
    usage: Usage = field(default_factory=Usage)
    error: dict[str, str] | None = None
    count: int = 0


def load_rounds(deps: TurnDeps, turn_id: str) -> Rounds:
    """Every stored round of the turn, in order."""
    out = Rounds()
    while isinstance(record := deps.run_store.get(turn_id, round_key(out.count)), dict):
        out.assistant += [
            m for m in messages_from_json(record.get("messages")) if isinstance(m, AssistantMessage)
        ]
        for result in messages_from_json(round_results(deps.run_store, turn_id, out.count, fill=False)):
            if isinstance(result, ToolResult):
                out.results[result.call_id] = result
        out.finish = str(record.get("finish", ""))
        out.usage = out.usage + Usage(**record.get("usage", {}))
        out.error = record.get("error")
        out.count += 1
    return out


def build_cognition(rounds: Rounds) -> cognition.Cognition:
    """agent.md's record of the turn: one step per model call, then the thinkDeep reports."""
    steps = []
    reports = []
    sources: list[cognition.CitedSource] = []
    for message in rounds.assistant:
        calls = []
        for call in message.tool_calls:
            result = rounds.results.get(call.id)
            status = (
                cognition.STATUS_UNKNOWN
                if result is None
                else (cognition.STATUS_ERROR if result.is_error else cognition.STATUS_OK)
            )
            shown = call.arguments if not call.error else call.raw_arguments
            calls.append(cognition.ToolCall(call.name, shown, status, result.content if result else None))
            if call.name == DEEP_TOOL and result is not None and not result.is_error:
                reports.append(_deep_report(call.arguments, result.content))
            if call.name == SEARCH_TOOL and result is not None and not result.is_error:
                sources += parse_sources(result.content)
        steps.append(cognition.Step([r.text for r in message.reasoning], calls))
    invocations = [cognition.Invocation(steps)] if rounds.assistant else []
    return cognition.Cognition(invocations, reports, sources)


def _deep_report(arguments: dict[str, Any], content: str) -> cognition.DeepReport:
    try:
        data = json.loads(content)
    except ValueError:
        data = {"answer": content}
    data = data if isinstance(data, dict) else {"answer": content}
    question = str(data.get("question") or arguments.get("question") or "")
    return cognition.DeepReport(question, str(data.get("answer") or ""), str(data.get("reasoning") or ""))


def content_reason(rounds: Rounds) -> str:
    """The finish reason that decides how the agent turn is stored (stop, or anything partial)."""
    return "stop" if rounds.finish == "stop" and rounds.error is None else rounds.finish or "error"


def finalize(state: StepState, deps: TurnDeps) -> StepState:
    """Save the reply and the cognition entry; announce the end of the turn."""
    turn_id = state.turn_id
    prepared = load_prepared(deps, turn_id)
    if prepared is None:
        raise InvalidInput(f"Turn {turn_id} has no saved message to answer; send it again.")
    rounds = load_rounds(deps, turn_id)
    text = cognition.join_assistant_texts(m.text for m in rounds.assistant)
    content = cognition.agent_turn_content(content_reason(rounds), text) if rounds.count else None
    _save(deps, turn_id, prepared, content, rounds)
    _announce(state, deps, rounds, text, content is not None)
    # The close-time passes of a slice this turn closed run after the announced end.
    return state.then("close" if state.closed_slice_id else "after")


def _save(deps: TurnDeps, turn_id: str, prepared: Prepared, content: str | None, rounds: Rounds) -> None:
    now_iso = iso(deps.clock.now())
    slice_id = prepared.slice_id
    batch = WriteBatch.open(deps.storage)
    tags = deps.run_store.get(turn_id, TAGS_KEY)
    queue_tags(batch, slice_id, [str(t) for t in tags] if isinstance(tags, list) else [], now_iso)
    if content is not None:
        agent = Turn(turn_id, now_iso, "agent", content)
        current = batch.read(core_md(slice_id))
        if current is not None and not has_turn(parse_core_md(current), agent) and overflows(current, agent):
            spill_reply(batch, deps, slice_id, agent, timezone=prepared.timezone, locale=prepared.locale)
        else:
            append_turn(agent, now_iso).queue(batch, slice_id)
    body = cognition.render_cognition(build_cognition(rounds)) if rounds.assistant else ""
    if body:  # appended once, in the log's last part or the next (core/memory/slice/agent_parts.py)
        queue_entry(batch, slice_id, f"{turn_id} — {now_iso}", body, once_for=turn_id)
    if deps.run_store.get(turn_id, CANCEL_KEY):  # the person pressed stop: a signal for the evolution layer
        record_signal(batch, Signal("stop", now_iso, slice_id, turn_id))
    _record_recall_use(batch, rounds, slice_id, turn_id, now_iso)
    # Besides the analyzer's tags (strands), the agent turn changes no index: nothing else to write.
    batch.commit(f"Turn {turn_id} — agent response")


def _record_recall_use(batch: WriteBatch, rounds: Rounds, slice_id: str, turn_id: str, now_iso: str) -> None:
    """Whether this turn's recalls were used or redone (core/agent/recall/use.py), as ledger signals."""
    reply = cognition.join_assistant_texts(m.text for m in rounds.assistant)
    calls = [m.tool_calls for m in rounds.assistant]
    for use in recall_uses(calls, rounds.results, reply, slice_id):
        # keyed by turn and recall, so a re-run of this step records each verdict once
        record_signal(batch, Signal(use.kind, now_iso, slice_id, f"{turn_id} recall {use.ordinal}"))


def turn_status(finish_reason: str, text: str) -> str:
    """How the turn ended (docs/API.md "A turn's events"): done on a normal stop, interrupted when
    it was cut short but said something (or the user stopped it), else error."""
    if finish_reason == "stop":
        return "done"
    return "interrupted" if finish_reason == "interrupted" or text else "error"


def _announce(state: StepState, deps: TurnDeps, rounds: Rounds, text: str, stored: bool) -> None:
    turn_id = state.turn_id
    if any(e["type"] in TERMINAL_TYPES for e in deps.run_store.events(turn_id)):
        return
    sink = sink_of(deps, state, "finalize")
    status = turn_status(rounds.finish, text)
    if rounds.error is not None or status == "error":
        error = rounds.error or {"code": "model_error", "message": "The model gave no answer."}
        message = error.get("message") or "The model failed."
        sink.emit(
            "turn.error", code=error.get("code", "model_error"), message=f"{message} {MODEL_ERROR_ADVICE}"
        )
        return
    usage = rounds.usage.as_dict()
    sink.emit("turn.done", **turn_done(status, turn_id if stored else None, usage))  # type: ignore[arg-type]
