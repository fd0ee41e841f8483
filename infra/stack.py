"""The Previously stack: every capability wired together, one construct each."""

from __future__ import annotations

from aws_cdk import Annotations, CfnOutput, Duration, Stack
from aws_cdk import aws_iam as iam
from constructs import Construct

from infra import nag
from infra.alarms import Alarms
from infra.config import StageConfig
from infra.http_api import HttpApi
from infra.lambdas import LambdaFactory
from infra.maintenance import MaintenanceSchedule
from infra.packaging import prepare_assets
from infra.run_store import RunStoreBucket
from infra.secrets import ORIGIN_HEADER, AppSecrets, OriginSecret
from infra.site import StaticSite
from infra.turn_workflow import TurnWorkflow
from infra.websocket_api import WS_STAGE, WebSocketApi
from infra.workflow import Flow

API_HANDLER = "functions.handlers.api.handler"
WS_HANDLER = "functions.handlers.ws.handler"
MAINTAIN_HANDLER = "functions.handlers.maintain.handler"


def memory_environment(config: StageConfig) -> dict[str, str]:
    """Where the functions find the memory: the stage's GitHub repository, or the bundled demo."""
    if config.demo:
        return {"STORAGE": "demo"}
    return {
        "STORAGE": "github",
        "GITHUB_REPO": config.github_repo,
        "GITHUB_BRANCH": config.github_branch,
        "GITHUB_API_URL": config.github_api_url,
    }


class PreviouslyStack(Stack):
    """HTTP API, WebSocket API, turn workflow, maintenance, static site, secrets, alarms."""

    def __init__(
        self, scope: Construct, id: str, *, config: StageConfig, flow: Flow, **kwargs: object
    ) -> None:
        super().__init__(scope, id, **kwargs)  # type: ignore[arg-type]
        assets = prepare_assets(config.layer_dir, config.build_dir, demo=config.demo)
        if not config.github_repo and not config.demo:
            Annotations.of(self).add_warning_v2(
                "previously:no-repo",
                "No memory repository: set github_repo (owner/name) for this stage in cdk.json "
                "or pass -c previously:github_repo=owner/name.",
            )
        if not assets.layer_built:
            Annotations.of(self).add_warning_v2(
                "previously:layer-missing",
                "The dependency layer is not built: run `python -m layers.build` before deploying.",
            )
        if not assets.code_compiled:
            Annotations.of(self).add_warning_v2(
                "previously:no-bytecode",
                "No Python 3.13 on this machine: the functions ship without bytecode and compile "
                "at start (SnapStart hides it after the first start of a version). Install one "
                "or set PREVIOUSLY_LAMBDA_PYTHON, then synth again.",
            )
        factory = LambdaFactory(self, "Lambdas", config=config, assets=assets)
        secrets = AppSecrets(self, "Secrets", config=config)
        runs = RunStoreBucket(self, "RunStore", config=config)
        memory_env = memory_environment(config)
        workflow = TurnWorkflow(
            self, "Workflow", config=config, factory=factory, flow=flow, environment=memory_env
        )

        # The API and WebSocket functions are reached only through CloudFront (they check its
        # origin secret), whose viewer-address header names the client for the key throttle and
        # whose forwarded host is the host they answer to.
        viewer_env = {**memory_env, "PREVIOUSLY_BEHIND_CLOUDFRONT": "true"}
        api_fn = factory.function(
            self,
            "ApiFunction",
            handler=API_HANDLER,
            timeout=Duration.seconds(29),
            memory_mb=config.api_memory_mb,
            environment=viewer_env,
            description="HTTP API (FastAPI)",
            snap_start=True,
        )
        ws_fn = factory.function(
            self,
            "WsFunction",
            handler=WS_HANDLER,
            timeout=Duration.seconds(29),
            memory_mb=512,
            environment=viewer_env,
            description="WebSocket routes: connect, start and follow turns",
            snap_start=True,
        )
        maintain_fn = factory.function(
            self,
            "MaintainFunction",
            handler=MAINTAIN_HANDLER,
            timeout=Duration.minutes(min(14, config.maintenance_minutes)),
            environment=memory_env,
            description="Scheduled maintenance pass",
            snap_start=True,  # every tick is a cold start more often than not: start from a snapshot
        )
        maintain = factory.entry(maintain_fn)
        # Evolve now runs in the maintenance function (its timeout is minutes, the API's 29 s):
        # the API invokes it asynchronously, once (a failed run is reported, not retried).
        maintain.configure_async_invoke(retry_attempts=0)
        api_fn.add_environment("EVOLVE_FUNCTION", maintain.function_arn)
        api_fn.add_to_role_policy(
            iam.PolicyStatement(actions=["lambda:InvokeFunction"], resources=[maintain.function_arn])
        )
        http = HttpApi(self, "HttpApi", config=config, fn=factory.entry(api_fn))
        ws = WebSocketApi(self, "WebSocketApi", config=config, fn=ws_fn, entry=factory.entry(ws_fn))

        for fn in [*workflow.all_functions, api_fn, ws_fn, maintain_fn]:
            secrets.grant_read(fn)
        for fn in [*workflow.all_functions, api_fn, ws_fn, maintain_fn]:
            runs.grant(fn)
        for fn in workflow.all_functions:
            ws.grant_push(fn)
        for fn in (api_fn, ws_fn):
            workflow.grant_start(fn)

        MaintenanceSchedule(self, "Maintenance", config=config, fn=maintain)
        Alarms(self, "Alarms", config=config, state_machine=workflow.state_machine, maintenance=maintain_fn)
        origin = OriginSecret(self, "OriginSecret")
        site = StaticSite(
            self,
            "Site",
            config=config,
            http_api_domain=http.domain,
            ws_api_domain=ws.domain,
            ws_stage=WS_STAGE,
            origin_headers={ORIGIN_HEADER: origin.header_value},
        )
        for fn in (api_fn, ws_fn):
            origin.grant_read(fn)
            fn.add_environment("PREVIOUSLY_PUBLIC_HOSTS", site.domain)
        nag.accept(self)
        CfnOutput(self, "Url", value=site.url, description="Open this in a browser")
        CfnOutput(self, "SecretName", value=secrets.secret.secret_name, description="Fill in with your keys")
        CfnOutput(self, "StateMachineArn", value=workflow.state_machine.state_machine_arn)
