"""Lambda entry of every turn step: the Step Functions task runs one attempt of one step.

The payload names the step (`{"step", "state", "retry"}`); the step table is imported on first
use and each step's module only when it runs, so a step loads only what it needs. A turn of a
demo persona other than the default names it in the state (`persona`): the step runs over that
persona's memory and run store, and an id the demo does not offer fails the step (InvalidInput).
A demo visitor's turn names them too (`visitor`): the step reads and writes their own overlay.
"""

from __future__ import annotations

from typing import Any

from functions.aws.steps import TaskPayload, run_task
from functions.compose import aws as compose
from functions.handlers.snapshot import STEP_MODULES, preload
from functions.logs import correlate, step_keys

preload(*STEP_MODULES)


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """One attempt of the named step; its exceptions reach Step Functions by class name."""
    from core.turn.steps import STEP_TABLE

    correlate(context, **step_keys(event))  # every log line of this attempt carries them as fields
    task = TaskPayload.parse(event)
    env = compose.step_environment(compose.secret_key(), task.persona, task.visitor)
    return run_task(event, STEP_TABLE, env)
