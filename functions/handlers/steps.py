"""Lambda entry of every turn step: the Step Functions task runs one attempt of one step.

The payload names the step (`{"step", "state", "retry"}`); the step table is imported on first
use and each step's module only when it runs, so a step loads only what it needs.
"""

from __future__ import annotations

from typing import Any

from functions.aws import compose
from functions.aws.steps import run_task
from functions.handlers.snapshot import STEP_MODULES, preload
from functions.logs import correlate, step_keys

preload(*STEP_MODULES)


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """One attempt of the named step; its exceptions reach Step Functions by class name."""
    from core.turn.steps import STEP_TABLE

    correlate(context, **step_keys(event))  # every log line of this attempt carries them as fields
    return run_task(event, STEP_TABLE, compose.step_environment(compose.secret_key()))
