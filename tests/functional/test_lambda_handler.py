"""The Lambda handler answers API Gateway (HTTP API, payload 2.0) events, with auth always on."""

from __future__ import annotations

import base64
import gzip
import importlib
import json
from pathlib import Path
from typing import Any

import pytest
from moto import mock_aws

from tests.fakes.aws_events import http_event

pytestmark = pytest.mark.functional
KEY = "a-long-random-access-key-for-tests"


def _event(path: str, headers: dict[str, str] | None = None, method: str = "GET") -> dict[str, Any]:
    return http_event(method, path, headers, host="example.cloudfront.net", route="$default")


class _Context:
    aws_request_id = "r1"


@pytest.fixture
def handler_module(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):  # type: ignore[no-untyped-def]
    for name in ("GITHUB_TOKEN", "PREVIOUSLY_ACCESS_KEY_SHA256", "PREVIOUSLY_SESSION_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("PREVIOUSLY_SECRET_ARN", raising=False)
    monkeypatch.setenv("STORAGE", "local")
    monkeypatch.setenv("PREVIOUSLY_MEMORY", str(tmp_path))
    monkeypatch.setenv("PREVIOUSLY_ACCESS_KEY", KEY)
    monkeypatch.setenv("PREVIOUSLY_PUBLIC_HOSTS", "example.cloudfront.net")
    # What the stack sets for the API function (the run store and state machine are moto's here).
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("RUN_BUCKET", "runs")
    monkeypatch.setenv("STATE_MACHINE_ARN", "arn:aws:states:us-east-1:123456789012:stateMachine:turn")
    from functions.compose import aws as compose

    compose.reset()
    import functions.handlers.api as module

    with mock_aws():
        yield importlib.reload(module)
    compose.reset()


def test_health_is_open_and_data_needs_the_key(handler_module) -> None:  # type: ignore[no-untyped-def]
    health = handler_module.handler(_event("/api/health"), _Context())
    assert health["statusCode"] == 200 and json.loads(health["body"])["ok"] is True
    refused = handler_module.handler(_event("/api/state"), _Context())
    assert refused["statusCode"] == 401
    allowed = handler_module.handler(_event("/api/state", {"x-access-key": KEY}), _Context())
    assert allowed["statusCode"] == 200
    assert json.loads(allowed["body"])["flags"]["auth_required"] is True


def test_replies_are_gzipped_for_a_client_that_accepts_it(handler_module) -> None:  # type: ignore[no-untyped-def]
    """CloudFront's API behaviours do not cache, so they do not compress: the function does."""
    headers = {"x-access-key": KEY, "accept-encoding": "gzip, br"}
    zipped = handler_module.handler(_event("/api/state", headers), _Context())
    assert zipped["statusCode"] == 200 and zipped["headers"]["content-encoding"] == "gzip"
    assert zipped["isBase64Encoded"] is True
    state = json.loads(gzip.decompress(base64.b64decode(zipped["body"])))
    plain = handler_module.handler(_event("/api/state", {"x-access-key": KEY}), _Context())
    assert "content-encoding" not in plain["headers"] and json.loads(plain["body"]) == state
