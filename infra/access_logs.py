"""Access logs for the API Gateway stages: who called what and how it ended, never a body."""

from __future__ import annotations

import json

import jsii
from aws_cdk import RemovalPolicy
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_logs as logs
from constructs import Construct

# Request id, caller, route and outcome only: the path holds slice ids at most, never words.
_FIELDS = {
    "requestId": "$context.requestId",
    "ip": "$context.identity.sourceIp",
    "time": "$context.requestTime",
    "route": "$context.routeKey",
    "status": "$context.status",
    "latencyMs": "$context.integrationLatency",
    "error": "$context.integrationErrorMessage",
}


@jsii.implements(apigwv2.IAccessLogSettings)
class StageAccessLog:
    """The access-log settings of one stage, into a log group of its own."""

    def __init__(self, scope: Construct, id: str, retention: logs.RetentionDays) -> None:
        self.group = logs.LogGroup(scope, id, retention=retention, removal_policy=RemovalPolicy.DESTROY)
        self._destination = apigwv2.LogGroupLogDestination(self.group)

    @property
    def destination(self) -> apigwv2.IAccessLogDestination:
        return self._destination

    @property
    def format(self) -> apigw.AccessLogFormat:
        return apigw.AccessLogFormat.custom(json.dumps(_FIELDS))
