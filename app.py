"""CDK entry point (`cdk synth` / `cdk deploy`): the Previously stack for one stage.

Synth needs no AWS credentials and no network: the account and region come from the stage
config or the CLI's environment (`CDK_DEFAULT_ACCOUNT` / `CDK_DEFAULT_REGION`) when known, and
the stack is otherwise environment-agnostic.
"""

from __future__ import annotations

import os

import aws_cdk as cdk

from infra import nag
from infra.config import stage_from_context
from infra.stack import PreviouslyStack
from infra.turn_flow import turn_flow


def main() -> None:
    """Build the app for the stage named by `-c stage=NAME` and write the cloud assembly."""
    app = cdk.App()
    config = stage_from_context(app.node.get_all_context())
    account = config.account or os.environ.get("CDK_DEFAULT_ACCOUNT")
    region = config.region or os.environ.get("CDK_DEFAULT_REGION")
    env = cdk.Environment(account=account, region=region) if account or region else None
    PreviouslyStack(
        app,
        config.stack_name,
        config=config,
        flow=turn_flow(),
        env=env,
        description=f"Previously ({config.name}): a personal agent with episodic memory",
    )
    nag.attach(app)  # AWS Solutions checks: an unaccepted finding stops synth and deploy
    cdk.Tags.of(app).add("app", "previously")
    cdk.Tags.of(app).add("stage", config.name)
    app.synth()


if __name__ == "__main__":
    main()
