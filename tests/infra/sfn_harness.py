"""Run a CDK-synthesized state machine under moto, with Lambda invocations routed to Python callables.

moto executes ASL in-process (`stepfunctions.execute_state_machine`), but without Docker its Lambda
backend only echoes payloads; replacing `LambdaSimpleBackend.invoke` with a call to the local
handler is the one sanctioned patch (ARCHITECTURE.md §9). Retry sleeps are skipped so a test with
backoff runs in milliseconds. Handler errors take Lambda's unhandled-error shape, so the state
machine sees the exception's class name as the error name, exactly as on AWS.
"""

from __future__ import annotations

import json
import time
import types
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import boto3
import pytest
from moto import mock_aws
from moto.awslambda_simple.models import LambdaSimpleBackend
from moto.s3.models import FakeKey
from moto.stepfunctions.parser.asl.component.common.retry import retrier_decl

ACCOUNT = "123456789012"
REGION = "us-east-1"
Handler = Callable[[dict[str, Any]], Any]
MOTO_CONFIG: Any = {"stepfunctions": {"execute_state_machine": True}, "lambda": {"use_docker": False}}


def pushed_messages(connection_id: str) -> list[dict[str, Any]]:
    """The messages moto recorded as posted to a WebSocket connection (it concatenates their bytes)."""
    from urllib.parse import quote

    from moto.apigatewaymanagementapi.models import apigatewaymanagementapi_backends

    # moto keys connections by their URL-encoded id.
    connections = apigatewaymanagementapi_backends[ACCOUNT][REGION].connections
    data = connections[quote(connection_id, safe="")].data.decode()
    decoder, pos, found = json.JSONDecoder(), 0, []
    while pos < len(data):
        obj, pos = decoder.raw_decode(data, pos)
        found.append(obj)
    return found


def function_arn(name: str) -> str:
    return f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}"


def resolve(node: Any, resources: Mapping[str, Any]) -> Any:
    """Replace CloudFormation intrinsics in a synthesized value with fake but well-formed values."""
    if isinstance(node, list):
        return [resolve(n, resources) for n in node]
    if not isinstance(node, dict):
        return node
    if "Fn::Join" in node:
        sep, parts = node["Fn::Join"]
        return sep.join(str(resolve(p, resources)) for p in parts)
    if "Fn::GetAtt" in node:
        logical_id, attr = node["Fn::GetAtt"]
        kind = resources.get(logical_id, {}).get("Type", "")
        if kind == "AWS::Lambda::Function" and attr == "Arn":
            return function_arn(logical_id)
        return f"{logical_id}.{attr}"
    if "Ref" in node:
        target = resources.get(node["Ref"], {})
        if target.get("Type") == "AWS::Lambda::Alias":  # a SnapStart alias: moto runs the function itself
            return function_arn(target["Properties"]["FunctionName"]["Ref"])
        return {"AWS::Partition": "aws", "AWS::Region": REGION, "AWS::AccountId": ACCOUNT}.get(
            node["Ref"], node["Ref"]
        )
    return {k: resolve(v, resources) for k, v in node.items()}


def state_machine_definition(template: Mapping[str, Any], logical_id_prefix: str = "") -> str:
    """The resolved ASL of the (first matching) state machine in a synthesized template."""
    resources = template["Resources"]
    for logical_id, res in resources.items():
        if res["Type"] == "AWS::StepFunctions::StateMachine" and logical_id.startswith(logical_id_prefix):
            return str(resolve(res["Properties"]["DefinitionString"], resources))
    raise AssertionError(f"no state machine {logical_id_prefix!r} in the template")


def lambda_ids(template: Mapping[str, Any]) -> list[str]:
    return [k for k, v in template["Resources"].items() if v["Type"] == "AWS::Lambda::Function"]


@dataclass
class Execution:
    """A finished execution: status, output, and the history's state names."""

    status: str
    output: Any
    error: str | None
    cause: str | None
    entered: list[str]
    events: list[dict[str, Any]] = field(repr=False)


@dataclass
class MotoStateMachine:
    """A state machine created in moto from a synthesized definition."""

    client: Any
    arn: str

    def run(self, payload: Mapping[str, Any], name: str | None = None, timeout: float = 60) -> Execution:
        """Start an execution and wait for it to end."""
        kwargs: dict[str, Any] = {"stateMachineArn": self.arn, "input": json.dumps(payload)}
        if name:
            kwargs["name"] = name
        execution_arn = self.client.start_execution(**kwargs)["executionArn"]
        deadline = time.monotonic() + timeout
        while True:
            desc = self.client.describe_execution(executionArn=execution_arn)
            if desc["status"] != "RUNNING":
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"execution still running after {timeout}s")
            time.sleep(0.02)
        history = self.client.get_execution_history(executionArn=execution_arn, maxResults=1000)["events"]
        entered = [
            e["stateEnteredEventDetails"]["name"] for e in history if e["type"].endswith("StateEntered")
        ]
        output = json.loads(desc["output"]) if desc.get("output") else None
        return Execution(desc["status"], output, desc.get("error"), desc.get("cause"), entered, history)

    def wait_idle(self, timeout: float = 120) -> None:
        """Wait until no execution of the machine runs. A turn answers before its execution ends
        (the close passes run after `turn.done`); leaving the mock while one still runs would let
        its steps meet the next test's environment and a reset moto (closed S3 objects, unset
        variables) — failures that then show up in whichever test runs next."""
        deadline = time.monotonic() + timeout
        while True:
            running = self.client.list_executions(stateMachineArn=self.arn, statusFilter="RUNNING")
            if not running["executions"]:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"executions still running after {timeout}s: {running['executions']}")
            time.sleep(0.05)


def _mark_disposed(self: FakeKey, garbage: bool = False) -> None:
    self.disposed = True


def _router(handlers: Mapping[str, Handler]) -> Callable[..., bytes]:
    def invoke(
        self: Any, function_name: str, qualifier: Any, body: Any, headers: Any, response_headers: Any
    ) -> bytes:
        name = function_name.split(":")[-1]
        matches = [k for k in handlers if name.startswith(k)]
        if not matches:
            raise AssertionError(f"no local handler for Lambda {name}")
        handler = handlers[max(matches, key=len)]
        try:
            return json.dumps(handler(json.loads(body or "{}"))).encode()
        except Exception as exc:  # Lambda reports any unhandled exception this way
            response_headers["x-amz-function-error"] = "Unhandled"
            return json.dumps({"errorType": type(exc).__name__, "errorMessage": str(exc)}).encode()

    return invoke


@contextmanager
def moto_state_machine(
    template: Mapping[str, Any],
    handlers: Mapping[str, Handler],
    monkeypatch: pytest.MonkeyPatch,
    logical_id_prefix: str = "",
) -> Iterator[MotoStateMachine]:
    """Inside mock_aws: functions for the template's Lambdas, the state machine, routed invocations."""
    monkeypatch.setattr(LambdaSimpleBackend, "invoke", _router(handlers))
    # moto closes an S3 object's buffer the moment a newer version replaces it, so a GET that
    # got the old object a moment before reads a closed file ("I/O operation on closed file"):
    # parallel Map iterations writing the run record hit it under load. Real S3 serves the old or
    # the new bytes; here the replaced buffer is left to the garbage collector.
    monkeypatch.setattr(FakeKey, "dispose", _mark_disposed)
    monkeypatch.setattr(retrier_decl, "time", types.SimpleNamespace(sleep=lambda s: None))
    with mock_aws(config=MOTO_CONFIG):
        role = boto3.client("iam", region_name=REGION).create_role(
            RoleName="sfn-test", AssumeRolePolicyDocument="{}"
        )["Role"]["Arn"]
        lam = boto3.client("lambda", region_name=REGION)
        for logical_id in lambda_ids(template):
            lam.create_function(
                FunctionName=logical_id,
                Runtime="python3.13",
                Role=role,
                Handler="index.handler",
                Code={"ZipFile": b"local handler"},
            )
        sfn = boto3.client("stepfunctions", region_name=REGION)
        arn = sfn.create_state_machine(
            name="turn", definition=state_machine_definition(template, logical_id_prefix), roleArn=role
        )["stateMachineArn"]
        machine = MotoStateMachine(sfn, arn)
        try:
            yield machine
        finally:
            machine.wait_idle()
