"""Lambda entry of the scheduled maintenance pass (EventBridge, every few minutes), and of the
evolve-now runs the API starts (an asynchronous invoke with `{"job": "evolve", "run_id": ...}`)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from functions.aws.evolve import EVOLVE_JOB
from functions.aws.metrics import record_maintenance_stopped
from functions.compose import aws as compose
from functions.handlers.snapshot import MAINTAIN_MODULES, preload
from functions.logs import correlate, lambda_logger

preload(*MAINTAIN_MODULES)
log = lambda_logger()


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Close expired slices and run their close-time passes; the report is logged and returned.
    An evolve job runs that one recorded run instead and returns how it ended."""
    from core.jobs.maintain import run_maintenance

    correlate(context)
    if event.get("job") == EVOLVE_JOB:
        return _evolve(str(event.get("run_id", "")))
    report = asdict(run_maintenance(compose.turn_deps(compose.secret_key())))
    log.info("maintenance pass", extra={"report": report})
    if report["stopped"]:  # not a success: counted, and the stack's alarm watches the count
        log.warning("maintenance stopped before the end", extra={"stopped": report["stopped"]})
        record_maintenance_stopped()
    return report


def _evolve(run_id: str) -> dict[str, Any]:
    from core.jobs.evolve_runs import EvolveRuns

    run = EvolveRuns(compose.turn_deps(compose.secret_key()), launcher=_no_launch).execute(run_id)
    log.info("evolve-now run", extra={"run_id": run_id, "status": run.status, "error": run.error})
    return run.to_dict()


def _no_launch(run_id: str) -> None:
    raise RuntimeError("The maintenance function runs evolve-now jobs; it does not start them.")
