"""A stack holding only the turn workflow, for running a synthetic step table under moto."""

from __future__ import annotations

from aws_cdk import Stack
from constructs import Construct

from infra.config import StageConfig
from infra.lambdas import LambdaFactory
from infra.packaging import prepare_assets
from infra.turn_workflow import TurnWorkflow
from infra.workflow import Flow


class WorkflowStack(Stack):
    """LambdaFactory + TurnWorkflow, nothing else."""

    def __init__(self, scope: Construct, id: str, *, config: StageConfig, flow: Flow) -> None:
        super().__init__(scope, id)
        assets = prepare_assets(config.layer_dir, config.build_dir / id)
        factory = LambdaFactory(self, "Lambdas", config=config, assets=assets)
        self.workflow = TurnWorkflow(self, "Workflow", config=config, factory=factory, flow=flow)
