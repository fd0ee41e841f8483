"""A round's tool calls and their results in the run store, collected in call order.

respond stores round `n` (its model messages) under `round-<n>`; the recall state stores what it
found under `recall-<n>`; each run of the tools state stores the result of its one call under
`tool-<n>-<position>` (the call's position in the round, not its id: ids come from the model).
The round's results, in the order of its calls, are collected once into `tools-<n>` the first
time a later step reads them.
"""

from __future__ import annotations

from typing import Any

from core.llm.types import ToolCall, ToolResult
from core.turn.runstore import RunStore
from core.turn.wire import message_from_json, message_to_json

RECALL_TOOL = "recall"
NO_RESULT = "ERROR: this call got no result (its run did not finish); try again if it matters."


def round_key(n: int) -> str:
    """Run-store key of respond round `n`: the model messages and how the round ended."""
    return f"round-{n}"


def results_key(n: int) -> str:
    """Run-store key of the tool results answering round `n`, in call order."""
    return f"tools-{n}"


def recall_key(n: int) -> str:
    """Run-store key of the results the recall state found for round `n`."""
    return f"recall-{n}"


def call_key(n: int, position: int) -> str:
    """Run-store key of the result of call `position` of round `n`."""
    return f"tool-{n}-{position}"


def calls_of(record: Any) -> list[ToolCall]:
    """The tool calls a stored round ends with ([] for none, or for no round)."""
    messages = record.get("messages") if isinstance(record, dict) else None
    if not messages:
        return []
    last = message_from_json(messages[-1])
    return list(getattr(last, "tool_calls", ()))


def stored_results(runs: RunStore, turn_id: str, key: str) -> dict[str, ToolResult]:
    """Tool results stored under `key`, by call id."""
    out: dict[str, ToolResult] = {}
    for data in runs.get(turn_id, key) or []:
        result = message_from_json(data)
        if isinstance(result, ToolResult):
            out[result.call_id] = result
    return out


def round_results(runs: RunStore, turn_id: str, n: int, *, fill: bool = True) -> list[Any]:
    """The results of round `n` as JSON, in call order: collected (and kept) on first read.

    A call with no result (its run died, or the round's calls never ran) reads as an error
    result the model can act on when `fill` (a model needs an answer to every call), and is
    left out otherwise; an incomplete collection is not kept, so a later read looks again.
    """
    kept = runs.get(turn_id, results_key(n))
    if kept is not None:
        return list(kept)
    calls = calls_of(runs.get(turn_id, round_key(n)))
    recalled = stored_results(runs, turn_id, recall_key(n))
    out, complete = [], True
    for position, call in enumerate(calls):
        data = runs.get(turn_id, call_key(n, position))
        if data is None and call.id in recalled:
            data = message_to_json(recalled[call.id])
        if data is None:
            complete = False
            if not fill:
                continue
            data = message_to_json(ToolResult(call.id, NO_RESULT, is_error=True))
        out.append(data)
    if complete and calls:
        runs.put(turn_id, results_key(n), out)
    return out
