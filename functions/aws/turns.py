"""TurnService on AWS: a turn is a Step Functions execution named by its turn id.

`start` records the request in the run store (a message may be larger than a state payload)
and starts the execution with only ids in its input; `state` and `wait` read the run store and,
while the events say the turn is still running, the execution's status. A turn whose execution
failed, timed out or was stopped without recording an end (the failure step itself failed, or
the whole execution hit its timeout) gets its `turn.error` written then, so it reads as an error
with a message, not as running for ever.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from core.clock import IdSource
from core.errors import NotFound, TransientError
from core.turn.events import Event, envelope, turn_error
from core.turn.failures import failure_code, failure_message
from core.turn.runstore import RunStore, status_of
from core.turn.service import TurnInput, TurnState

_FAILED = {"FAILED", "TIMED_OUT", "ABORTED"}
# The run-store key the steps poll to stop early (core/turn/steps/common.py CANCEL_KEY).
CANCEL_KEY = "cancel"
_START_ATTEMPTS = 5


def execution_input(turn_id: str, request: TurnInput) -> dict[str, Any]:
    """The state machine's input: ids only (the request itself is in the run store)."""
    return {"turn_id": turn_id, "connection_id": request.connection_id}


def reply_from(events: list[Event]) -> str | None:
    """The reply as streamed: text deltas, minus those of step attempts that failed and were retried."""
    segments: list[tuple[str, list[str]]] = []
    for event in events:
        if event["type"] == "step.started":
            if int(event.get("attempt", 1)) > 1:
                # A retry: the previous attempt of this step failed, its partial text is void.
                last = next(
                    (i for i in range(len(segments) - 1, -1, -1) if segments[i][0] == event["step"]), None
                )
                if last is not None:
                    del segments[last]
            segments.append((str(event["step"]), []))
        elif event["type"] == "text.delta":
            if not segments or segments[-1][0] != event["step"]:
                segments.append((str(event["step"]), []))
            segments[-1][1].append(str(event.get("text", "")))
    return "".join(text for _, texts in segments for text in texts) or None


class StepFunctionsTurns:
    """Starts and reads turns that run as Step Functions executions."""

    def __init__(
        self,
        runs: RunStore,
        client: Any,
        state_machine_arn: str,
        ids: IdSource,
        status_every: float = 2.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.runs = runs
        self.client = client
        self.state_machine_arn = state_machine_arn
        self.ids = ids
        self.status_every = status_every
        self._monotonic = monotonic

    def start(self, request: TurnInput) -> str:
        """Record the request, start the execution, return the turn id."""
        for _ in range(_START_ATTEMPTS):
            turn_id = self.ids.turn_id()
            if self.runs.exists(turn_id):
                continue
            self.runs.put(turn_id, "request", request.to_json())
            try:
                self.client.start_execution(
                    stateMachineArn=self.state_machine_arn,
                    name=turn_id,
                    input=json.dumps(execution_input(turn_id, request)),
                )
            except self.client.exceptions.ExecutionAlreadyExists:
                continue
            return turn_id
        raise TransientError("Could not find a free turn id; send the message again.")

    def state(self, turn_id: str, after: int = 0) -> TurnState:
        """Status and events after `after`; NotFound for a turn this deployment never started."""
        if not self.runs.exists(turn_id):
            raise NotFound(f"No turn {turn_id!r} (runs expire after a while).")
        events = self.runs.events(turn_id)
        status = status_of(events)
        if status == "running":
            execution = self._execution_status(turn_id)
            if execution in _FAILED:
                # Read again: the failure step may have written its end since the first read.
                events = self.runs.events(turn_id)
                if status_of(events) == "running":
                    events.append(self._record_end(turn_id, events, execution))
                status = status_of(events)
        reply = reply_from(events) if status != "running" else None
        started = next((e for e in events if e["type"] == "turn.started"), {})
        newer = [e for e in events if e["seq"] > after]
        return TurnState(turn_id, status, newer, reply, started.get("slice_id"))

    def wait(self, turn_id: str, after: int, timeout: float) -> TurnState:
        """Block until there is something after `after`, the turn ends, or `timeout` passes."""
        deadline = self._monotonic() + timeout
        while True:
            state = self.state(turn_id, after)
            remaining = deadline - self._monotonic()
            if state.events or state.status != "running" or remaining <= 0:
                return state
            # Cheap polling of the run store between full reads (which also ask Step Functions).
            self.runs.wait(turn_id, after, min(remaining, self.status_every))

    def cancel(self, turn_id: str) -> None:
        """Ask a running turn to stop: the flag the respond and tools steps check (no-op once ended)."""
        if self.state(turn_id).status == "running":
            self.runs.put(turn_id, CANCEL_KEY, True)

    def _record_end(self, turn_id: str, events: list[Event], execution: str) -> Event:
        """Store the `turn.error` a dead execution never wrote (idempotent: same seq, same object)."""
        last = next((e for e in reversed(events) if e["type"] == "step.started"), None)
        step = str(last["step"]) if last else "prepare"
        attempt = int(last["attempt"]) if last else 1
        # The stand-in exception's name is what the message shows (e.g. "ExecutionTimedOut").
        exc = type("Execution" + execution.title().replace("_", ""), (Exception,), {})()
        saved = any(e["type"] == "turn.started" for e in events)
        fields = turn_error(failure_code(exc), failure_message(step, exc, saved))
        seq = events[-1]["seq"] + 1 if events else 1
        event = envelope(turn_id, seq, "turn.error", step, attempt, fields)
        self.runs.append(turn_id, [event])
        return event

    def _execution_status(self, turn_id: str) -> str:
        arn = f"{self.state_machine_arn.replace(':stateMachine:', ':execution:')}:{turn_id}"
        try:
            return str(self.client.describe_execution(executionArn=arn)["status"])
        except self.client.exceptions.ExecutionDoesNotExist:
            return "FAILED"
