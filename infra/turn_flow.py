"""The real turn's flow, read from the step table (core/turn/steps) for the workflow generator."""

from __future__ import annotations

from infra.workflow import Flow, ToolLoop


def turn_flow() -> Flow:
    """STEP_TABLE + FLOW + TOOL_LOOP, as the in-process runner reads them."""
    from core.turn.steps import FIRST_STEP, FLOW, STEP_TABLE, TOOL_LOOP, TOOL_ROUND_CAP

    loop = ToolLoop(head=str(TOOL_LOOP["head"]), body=str(TOOL_LOOP["body"]), cap=TOOL_ROUND_CAP)
    return Flow(tuple(STEP_TABLE.values()), dict(FLOW), FIRST_STEP, loop)
