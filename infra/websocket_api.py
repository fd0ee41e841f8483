"""The WebSocket API: browsers start and follow turns; step functions push events back.

Routes (selected by the message's `action`): `$connect` (authenticated by the session cookie),
`$disconnect`, `turn.start`, `turn.follow`, `turn.cancel`, and `$default` for anything else.
One function serves them all (functions/handlers/ws.py).
"""

from __future__ import annotations

from aws_cdk import Aws
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_apigatewayv2_integrations as integrations
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra.access_logs import StageAccessLog
from infra.config import StageConfig
from infra.lambdas import retention

WS_STAGE = "live"
WS_ACTIONS = ("turn.start", "turn.follow", "turn.cancel")
CALLBACK_ENV = "WS_CALLBACK_URL"


class WebSocketApi(Construct):
    """API Gateway WebSocket API → the WebSocket function; grants for pushing to connections."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        config: StageConfig,
        fn: lambda_.Function,
        entry: lambda_.IFunction | None = None,
    ) -> None:
        super().__init__(scope, id)

        def route() -> apigwv2.WebSocketRouteOptions:
            return apigwv2.WebSocketRouteOptions(
                integration=integrations.WebSocketLambdaIntegration("Ws", entry or fn)
            )

        self.api = apigwv2.WebSocketApi(
            self,
            "Ws",
            api_name=f"previously-{config.name}-ws",
            route_selection_expression="$request.body.action",
            connect_route_options=route(),
            disconnect_route_options=route(),
            default_route_options=route(),
        )
        for action in WS_ACTIONS:
            self.api.add_route(
                action, integration=integrations.WebSocketLambdaIntegration(action, entry or fn)
            )
        self.stage = apigwv2.WebSocketStage(
            self,
            "Stage",
            web_socket_api=self.api,
            stage_name=WS_STAGE,
            auto_deploy=True,
            access_log_settings=StageAccessLog(self, "AccessLogs", retention(config.log_retention_days)),
            throttle=apigwv2.ThrottleSettings(
                rate_limit=config.api_rate_per_second, burst_limit=config.api_burst
            ),
        )
        self.grant_push(fn)

    @property
    def domain(self) -> str:
        """The API's host name, for CloudFront."""
        return f"{self.api.api_id}.execute-api.{Aws.REGION}.{Aws.URL_SUFFIX}"

    def grant_push(self, fn: lambda_.Function) -> None:
        """Let `fn` post to connections, and tell it the management endpoint."""
        self.stage.grant_management_api_access(fn)
        fn.add_environment(CALLBACK_ENV, self.stage.callback_url)
