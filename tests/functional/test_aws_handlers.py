"""The Lambda entry points, called as Lambda calls them: the API (Mangum), WebSocket auth, maintenance."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from moto import mock_aws

from functions.aws import compose

pytestmark = pytest.mark.functional
ROOT = Path(__file__).resolve().parents[2]
SITE = "d111111abcdef8.cloudfront.net"


def http_event(
    method: str, path: str, headers: dict[str, str] | None = None, body: str = ""
) -> dict[str, Any]:
    """An API Gateway HTTP API (payload 2.0) event."""
    return {
        "version": "2.0",
        "routeKey": "ANY /api/{proxy+}",
        "rawPath": path,
        "rawQueryString": "",
        "headers": {"host": "abc.execute-api.us-east-1.amazonaws.com", **(headers or {})},
        "requestContext": {
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": "203.0.113.9"},
            "requestId": "r1",
            "stage": "$default",
        },
        "body": body,
        "isBase64Encoded": False,
    }


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    memory = tmp_path / "memory-root"
    (memory / "memory").mkdir(parents=True)
    env = {
        "AWS_DEFAULT_REGION": "us-east-1",
        "RUN_BUCKET": "runs",
        "STATE_MACHINE_ARN": "arn:aws:states:us-east-1:123456789012:stateMachine:turn",
        "WS_CALLBACK_URL": "https://abc.execute-api.us-east-1.amazonaws.com/live",
        "STORAGE": "local",
        "PREVIOUSLY_MEMORY": str(memory),
        "PREVIOUSLY_ACCESS_KEY": "open sesame",
        "PREVIOUSLY_SESSION_SECRET": "s" * 32,
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for name in (
        "PREVIOUSLY_SECRET_ARN",
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "DEEPSEEK_API_KEY",
        "GITHUB_TOKEN",
    ):
        monkeypatch.delenv(name, raising=False)
    compose.reset()
    with mock_aws():
        yield memory
    compose.reset()


def test_the_maintenance_handler_runs_a_pass_and_reports(aws_env: Path) -> None:
    from functions.handlers.maintain import handler

    report = handler({"source": "aws.events"}, None)
    assert isinstance(report, dict) and json.dumps(report)
