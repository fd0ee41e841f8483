"""The real turn's flow, read from the step table (core/turn/steps) for the workflow generator."""

from __future__ import annotations

from core.turn.table import Flow


def turn_flow() -> Flow:
    """The one flow the in-process runner also follows."""
    from core.turn.steps import TURN_FLOW

    return TURN_FLOW
