"""The CloudWatch metrics the functions record (EMF lines on stdout, read by CloudWatch) and the
names the stack's alarms watch (infra/alarms.py)."""

from __future__ import annotations

import os

NAMESPACE = "Previously"
SERVICE = "maintenance"
STAGE_DIMENSION = "stage"
# A maintenance pass that a rate limit (or another spent budget) stopped before the end.
MAINTENANCE_STOPPED = "MaintenanceStopped"


def record_maintenance_stopped() -> None:
    """One `MaintenanceStopped` count for this stage, flushed at once (the pass is over)."""
    from aws_lambda_powertools import Metrics
    from aws_lambda_powertools.metrics import MetricUnit

    metrics = Metrics(namespace=NAMESPACE, service=SERVICE)
    metrics.add_dimension(name=STAGE_DIMENSION, value=os.environ.get("PREVIOUSLY_STAGE", "local"))
    metrics.add_metric(name=MAINTENANCE_STOPPED, unit=MetricUnit.Count, value=1)
    metrics.flush_metrics()
