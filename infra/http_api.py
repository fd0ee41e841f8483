"""The HTTP API: API Gateway (HTTP API) in front of the FastAPI Lambda, with throttling.

Every `/api/*` request, and `/mcp` (the MCP server), goes to the one function (FastAPI routes it;
Mangum adapts the event).
Sign-in gets its own route so the gateway can throttle it harder than the rest.
"""

from __future__ import annotations

from aws_cdk import Fn
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_apigatewayv2_integrations as integrations
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra.access_logs import StageAccessLog
from infra.config import StageConfig
from infra.lambdas import retention

SIGN_IN_ROUTE = "POST /api/auth/sign-in"


class HttpApi(Construct):
    """API Gateway HTTP API → the API function."""

    def __init__(self, scope: Construct, id: str, *, config: StageConfig, fn: lambda_.IFunction) -> None:
        super().__init__(scope, id)
        integration = integrations.HttpLambdaIntegration("Api", fn)
        self.api = apigwv2.HttpApi(
            self, "Http", api_name=f"previously-{config.name}", create_default_stage=False
        )
        self.api.add_routes(path="/api/{proxy+}", methods=[apigwv2.HttpMethod.ANY], integration=integration)
        self.api.add_routes(path="/sign-in", methods=[apigwv2.HttpMethod.GET], integration=integration)
        # The MCP server (docs/MCP.md): POST carries each exchange; the app answers other methods 405.
        self.api.add_routes(path="/mcp", methods=[apigwv2.HttpMethod.ANY], integration=integration)
        sign_in = self.api.add_routes(
            path="/api/auth/sign-in", methods=[apigwv2.HttpMethod.POST], integration=integration
        )
        self.stage = apigwv2.HttpStage(
            self,
            "Stage",
            http_api=self.api,
            stage_name="$default",
            auto_deploy=True,
            access_log_settings=StageAccessLog(self, "AccessLogs", retention(config.log_retention_days)),
            throttle=apigwv2.ThrottleSettings(
                rate_limit=config.api_rate_per_second, burst_limit=config.api_burst
            ),
        )
        cfn_stage = self.stage.node.default_child
        assert isinstance(cfn_stage, apigwv2.CfnStage)
        # The L2 stage has no per-route throttling; the route must exist before the stage names it.
        cfn_stage.add_property_override(
            "RouteSettings",
            {
                SIGN_IN_ROUTE: {
                    "ThrottlingRateLimit": config.sign_in_rate_per_second,
                    "ThrottlingBurstLimit": config.sign_in_burst,
                }
            },
        )
        for route in sign_in:
            cfn_stage.node.add_dependency(route)

    @property
    def domain(self) -> str:
        """The API's host name (its endpoint without the scheme), for CloudFront."""
        return Fn.select(2, Fn.split("/", self.api.api_endpoint))
