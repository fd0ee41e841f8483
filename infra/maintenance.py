"""Scheduled maintenance: an EventBridge rule runs the maintenance pass every few minutes."""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra.config import StageConfig


class MaintenanceSchedule(Construct):
    """Every `maintenance_minutes`: close expired slices and run their close-time passes."""

    def __init__(self, scope: Construct, id: str, *, config: StageConfig, fn: lambda_.IFunction) -> None:
        super().__init__(scope, id)
        self.rule = events.Rule(
            self,
            "Every",
            description="Previously maintenance pass",
            schedule=events.Schedule.rate(Duration.minutes(config.maintenance_minutes)),
            # The next tick is the retry; a failed pass must not pile up behind itself.
            targets=[targets.LambdaFunction(fn, retry_attempts=0)],
        )
