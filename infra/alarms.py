"""Alarms: failed turns, failed maintenance passes and passes a rate limit stopped, optionally e-mailed."""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from functions.aws import metrics
from infra.config import StageConfig

PERIOD = Duration.minutes(5)


class Alarms(Construct):
    """One topic; alarms on failed executions, on maintenance errors and on stopped passes."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        config: StageConfig,
        state_machine: sfn.StateMachine,
        maintenance: lambda_.Function,
    ) -> None:
        super().__init__(scope, id)
        self.topic = sns.Topic(
            self, "Topic", display_name=f"Previously {config.name} alarms", enforce_ssl=True
        )
        if config.alarm_email:
            self.topic.add_subscription(subscriptions.EmailSubscription(config.alarm_email))
        failed = cloudwatch.MathExpression(
            expression="failed + timedout + aborted",
            using_metrics={
                "failed": state_machine.metric_failed(period=PERIOD),
                "timedout": state_machine.metric_timed_out(period=PERIOD),
                "aborted": state_machine.metric_aborted(period=PERIOD),
            },
            period=PERIOD,
            label="Turns that did not finish",
        )
        self.failed_turns = self._alarm(
            "FailedTurns", failed, "A turn's execution failed, timed out or aborted"
        )
        self.failed_maintenance = self._alarm(
            "FailedMaintenance",
            maintenance.metric_errors(period=PERIOD),
            "The maintenance pass raised an error",
        )
        stopped = cloudwatch.Metric(
            namespace=metrics.NAMESPACE,
            metric_name=metrics.MAINTENANCE_STOPPED,
            dimensions_map={"service": metrics.SERVICE, metrics.STAGE_DIMENSION: config.name},
            statistic="Sum",
            period=PERIOD,
        )
        self.stopped_maintenance = self._alarm(
            "StoppedMaintenance",
            stopped,
            "A maintenance pass stopped early: GitHub's rate limit (or another request budget) was spent",
        )

    def _alarm(self, id: str, metric: cloudwatch.IMetric, description: str) -> cloudwatch.Alarm:
        alarm = cloudwatch.Alarm(
            self,
            id,
            metric=metric,
            threshold=1,
            evaluation_periods=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
            alarm_description=description,
        )
        alarm.add_alarm_action(actions.SnsAction(self.topic))
        return alarm
