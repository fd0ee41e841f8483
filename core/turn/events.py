"""A turn's events (docs/API.md "A turn's events"): one vocabulary for the CLI, the WebSocket and the run
store.

On the wire every event is a flat JSON object: `turn_id`, `seq` (1, 2, 3… gap-free per turn),
`type`, `step`, `attempt` (plus `item` in one run of a fan-out step: which tool call of the round it
is), plus the fields of its type. Producers build the type-specific part
with the helpers below; an `EventSink` stamps the envelope.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

EventType = Literal[
    "turn.started",
    "step.started",
    "step.done",
    "reasoning.delta",
    "text.delta",
    "tool.call",
    "recall.progress",
    "recall.hits",
    "model.call",
    "card.evolved",
    "card.skipped",
    "attachment.unseen",
    "turn.done",
    "turn.error",
]
ToolState = Literal["running", "completed", "error", "interrupted", "denied"]
TurnStatus = Literal["running", "done", "interrupted", "error"]
TERMINAL_TYPES = frozenset({"turn.done", "turn.error"})

Event = dict[str, Any]


class EventSink(Protocol):
    """Where a step's events go: stamped with turn id, seq, step and attempt, then stored and streamed."""

    def emit(self, type: EventType, **fields: Any) -> Event: ...


def turn_started(
    slice_id: str, slice_opened: bool, slice_closed: str | None, user_turn_id: str
) -> dict[str, Any]:
    return {
        "slice_id": slice_id,
        "slice_opened": slice_opened,
        "slice_closed": slice_closed,
        "user_turn_id": user_turn_id,
    }


def tool_call(
    call_id: str,
    tool: str,
    label: str,
    state: ToolState,
    input: Any,
    output: Any | None = None,
) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "call_id": call_id,
        "tool": tool,
        "label": label,
        "state": state,
        "input": input,
    }
    if state in ("completed", "error") and output is not None:
        fields["output"] = output
    return fields


def recall_hits(
    call_id: str, query: str, hits: list[dict[str, Any]], recommended: list[dict[str, Any]], confidence: float
) -> dict[str, Any]:
    return {
        "call_id": call_id,
        "query": query,
        "hits": hits,
        "recommended": recommended,
        "confidence": confidence,
    }


def turn_done(
    status: Literal["done", "interrupted"], agent_turn_id: str | None, usage: dict[str, int]
) -> dict[str, Any]:
    return {"status": status, "agent_turn_id": agent_turn_id, "usage": usage}


def turn_error(code: str, message: str) -> dict[str, Any]:
    return {"code": code, "message": message}


def envelope(
    turn_id: str,
    seq: int,
    type: str,
    step: str,
    attempt: int,
    fields: dict[str, Any],
    item: int | None = None,
) -> Event:
    """The flat wire form of one event; `item` names the run of a fan-out step it belongs to.

    Attempts are counted per (step, item): one call of a tools round may be at attempt 2 while
    the others are still at attempt 1, so a reader drops only that item's older attempt.
    """
    head: Event = {"turn_id": turn_id, "seq": seq, "type": type, "step": step, "attempt": attempt}
    if item is not None:
        head["item"] = item
    return {**head, **fields}


def run_of(event: Event) -> str:
    """Which run an event belongs to, the unit its `attempt` counts: the step, or step#item in a fan-out."""
    step = str(event.get("step", ""))
    item = event.get("item")
    return step if item is None else f"{step}#{item}"
