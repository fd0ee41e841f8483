"""Lambda entry of the scheduled maintenance pass (EventBridge, every few minutes)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from functions.aws import compose
from functions.logs import correlate, lambda_logger

log = lambda_logger()


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Close expired slices and run their close-time passes; the report is logged and returned."""
    from core.turn.maintain import run_maintenance

    correlate(context)
    report = asdict(run_maintenance(compose.turn_deps(compose.secret_key())))
    log.info("maintenance pass", extra={"report": report})
    return report
