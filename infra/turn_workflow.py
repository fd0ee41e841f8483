"""The turn workflow: one Lambda per step, and the Standard state machine generated from the table."""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from infra.config import StageConfig
from infra.lambdas import LambdaFactory
from infra.workflow import FAILURE_STEP, Flow, build_definition

STEP_HANDLER = "functions.handlers.steps.handler"
STATE_MACHINE_ENV = "STATE_MACHINE_ARN"


def function_id(step_name: str) -> str:
    """The construct id of a step's function (tests route invocations by this prefix)."""
    return "Step" + "".join(part.capitalize() for part in step_name.replace("-", "_").split("_"))


class TurnWorkflow(Construct):
    """Step functions + state machine; `grant_start` lets another function start and read turns."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        config: StageConfig,
        factory: LambdaFactory,
        flow: Flow,
        environment: dict[str, str] | None = None,
    ) -> None:
        super().__init__(scope, id)
        self.functions: dict[str, lambda_.Function] = {}
        for spec in flow.steps:
            self.functions[spec.name] = factory.function(
                self,
                function_id(spec.name),
                handler=STEP_HANDLER,
                timeout=Duration.seconds(spec.timeout_seconds),
                environment=environment,
                description=f"Turn step: {spec.label}",
                snap_start=True,  # the model SDKs and PyGithub are imported before the snapshot
            )
        self.record_failure = factory.function(
            self,
            function_id(FAILURE_STEP),
            handler=STEP_HANDLER,
            timeout=Duration.seconds(60),
            memory_mb=256,
            environment=environment,
            description="Turn step: record why a turn failed",
        )
        self.state_machine = sfn.StateMachine(
            self,
            "Turn",
            state_machine_type=sfn.StateMachineType.STANDARD,
            definition_body=sfn.DefinitionBody.from_chainable(
                build_definition(
                    self,
                    flow,
                    {name: factory.entry(fn) for name, fn in self.functions.items()},
                    self.record_failure,
                )
            ),
            timeout=Duration.minutes(config.turn_timeout_minutes),
            tracing_enabled=True,
            logs=sfn.LogOptions(
                destination=logs.LogGroup(
                    self,
                    "TurnLogs",
                    retention=logs.RetentionDays.ONE_MONTH,
                    removal_policy=RemovalPolicy.DESTROY,
                ),
                level=sfn.LogLevel.ERROR,
            ),
        )

    @property
    def all_functions(self) -> list[lambda_.Function]:
        return [*self.functions.values(), self.record_failure]

    def grant_start(self, fn: lambda_.Function) -> None:
        """Let `fn` start executions and read their status, and tell it the state machine's ARN."""
        self.state_machine.grant_start_execution(fn)
        self.state_machine.grant_read(fn)
        fn.add_environment(STATE_MACHINE_ENV, self.state_machine.state_machine_arn)
