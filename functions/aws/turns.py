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
from core.errors import domain_errors
from core.turn.events import Event, turn_error
from core.turn.failures import failure_code, failure_message
from core.turn.runstore import RunStore
from core.turn.runtime import RunStoreTurns, TurnIdTaken, ending_event, reply_from
from core.turn.service import TurnInput
from functions.aws.steps import caught_exception

__all__ = ["StepFunctionsLauncher", "StepFunctionsTurns", "execution_input", "reply_from"]

_FAILED = {"FAILED", "TIMED_OUT", "ABORTED"}


def execution_input(
    turn_id: str, request: TurnInput, persona: str | None = None, visitor: str | None = None
) -> dict[str, Any]:
    """The state machine's input: ids only (the request itself is in the run store); `persona`
    names a demo persona other than the default, whose run store holds the request; `visitor`
    the demo visitor whose own overlay the turn reads and writes."""
    found: dict[str, Any] = {"turn_id": turn_id, "connection_id": request.connection_id}
    if persona is not None:
        found["persona"] = persona
    if visitor is not None:
        found["visitor"] = visitor
    return found


class StepFunctionsLauncher:
    """Starts executions and tells a dead one from a running one."""

    def __init__(
        self, client: Any, state_machine_arn: str, persona: str | None = None, visitor: str | None = None
    ) -> None:
        self.client = client
        self.state_machine_arn = state_machine_arn
        self.persona = persona
        self.visitor = visitor

    def launch(self, turn_id: str, request: TurnInput) -> None:
        try:
            self.client.start_execution(
                stateMachineArn=self.state_machine_arn,
                name=turn_id,
                input=json.dumps(execution_input(turn_id, request, self.persona, self.visitor)),
            )
        except self.client.exceptions.ExecutionAlreadyExists as exc:
            raise TurnIdTaken(turn_id) from exc

    def lost(self, turn_id: str, events: list[Event]) -> Event | None:
        execution = self._describe(turn_id)
        status = str(execution.get("status"))
        if status not in _FAILED:
            return None
        last = next((e for e in reversed(events) if e["type"] == "step.started"), None)
        step = str(last["step"]) if last else "save"
        saved = any(e["type"] == "turn.started" for e in events)
        exc = _execution_exception(status, execution)
        fields = turn_error(failure_code(exc), failure_message(step, exc, saved))
        return ending_event(turn_id, events, "turn.error", fields)

    def _describe(self, turn_id: str) -> dict[str, Any]:
        arn = f"{self.state_machine_arn.replace(':stateMachine:', ':execution:')}:{turn_id}"
        try:
            return dict(self.client.describe_execution(executionArn=arn))
        except self.client.exceptions.ExecutionDoesNotExist:
            return {"status": "FAILED"}


def _execution_exception(status: str, execution: dict[str, Any]) -> BaseException:
    """What ended a dead execution: a failed one's own error when it is one of ours (a step that
    failed before its failure could be recorded, e.g. a persona the steps do not offer), else a
    stand-in whose name the message shows (e.g. "ExecutionTimedOut")."""
    if status == "FAILED" and execution.get("error") in domain_errors():
        return caught_exception({"Error": execution["error"], "Cause": execution.get("cause")})
    return type("Execution" + status.title().replace("_", ""), (Exception,), {})()


class StepFunctionsTurns(RunStoreTurns):
    """The shared turn service with turns running as Step Functions executions; with `persona`
    (a demo persona other than the default) over that persona's run store; with `visitor` over
    that demo visitor's own overlay."""

    def __init__(
        self,
        runs: RunStore,
        client: Any,
        state_machine_arn: str,
        ids: IdSource,
        status_every: float = 2.0,
        monotonic: Callable[[], float] = time.monotonic,
        persona: str | None = None,
        visitor: str | None = None,
    ) -> None:
        self.client = client
        self.state_machine_arn = state_machine_arn
        launcher = StepFunctionsLauncher(client, state_machine_arn, persona, visitor)
        super().__init__(runs, ids, launcher, poll_seconds=status_every, monotonic=monotonic)
