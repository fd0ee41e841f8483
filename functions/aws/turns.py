"""The Step Functions launcher: on AWS a turn is an execution named by its turn id.

The shared service (`core.turn.runtime.RunStoreTurns`) records the request in the run store (a
message may be larger than a state payload) and this launcher starts the execution with only
ids in its input. While the events say the turn is running, the execution's status is asked at
most every `status_every` seconds; one that failed, timed out or was stopped without recording
an end (the failure step itself failed, or the whole execution hit its timeout) gets its
`turn.error` written then, so it reads as an error with a message, not as running for ever.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from core.clock import IdSource
from core.turn.events import Event, turn_error
from core.turn.failures import failure_code, failure_message
from core.turn.runstore import RunStore
from core.turn.runtime import RunStoreTurns, TurnIdTaken, ending_event, reply_from
from core.turn.service import TurnInput

__all__ = ["StepFunctionsLauncher", "StepFunctionsTurns", "execution_input", "reply_from"]

_FAILED = {"FAILED", "TIMED_OUT", "ABORTED"}


def execution_input(turn_id: str, request: TurnInput) -> dict[str, Any]:
    """The state machine's input: ids only (the request itself is in the run store)."""
    return {"turn_id": turn_id, "connection_id": request.connection_id}


class StepFunctionsLauncher:
    """Starts executions and tells a dead one from a running one."""

    def __init__(self, client: Any, state_machine_arn: str) -> None:
        self.client = client
        self.state_machine_arn = state_machine_arn

    def launch(self, turn_id: str, request: TurnInput) -> None:
        try:
            self.client.start_execution(
                stateMachineArn=self.state_machine_arn,
                name=turn_id,
                input=json.dumps(execution_input(turn_id, request)),
            )
        except self.client.exceptions.ExecutionAlreadyExists as exc:
            raise TurnIdTaken(turn_id) from exc

    def lost(self, turn_id: str, events: list[Event]) -> Event | None:
        execution = self._status(turn_id)
        if execution not in _FAILED:
            return None
        last = next((e for e in reversed(events) if e["type"] == "step.started"), None)
        step = str(last["step"]) if last else "save"
        # The stand-in exception's name is what the message shows (e.g. "ExecutionTimedOut").
        exc = type("Execution" + execution.title().replace("_", ""), (Exception,), {})()
        saved = any(e["type"] == "turn.started" for e in events)
        fields = turn_error(failure_code(exc), failure_message(step, exc, saved))
        return ending_event(turn_id, events, "turn.error", fields)

    def _status(self, turn_id: str) -> str:
        arn = f"{self.state_machine_arn.replace(':stateMachine:', ':execution:')}:{turn_id}"
        try:
            return str(self.client.describe_execution(executionArn=arn)["status"])
        except self.client.exceptions.ExecutionDoesNotExist:
            return "FAILED"


class StepFunctionsTurns(RunStoreTurns):
    """The shared turn service with turns running as Step Functions executions."""

    def __init__(
        self,
        runs: RunStore,
        client: Any,
        state_machine_arn: str,
        ids: IdSource,
        status_every: float = 2.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.state_machine_arn = state_machine_arn
        launcher = StepFunctionsLauncher(client, state_machine_arn)
        super().__init__(runs, ids, launcher, poll_seconds=status_every, monotonic=monotonic)
