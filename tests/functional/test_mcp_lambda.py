"""`/mcp` behind Mangum on Lambda (lifespan off): each invocation is one complete, stateless exchange."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.functional.test_lambda_handler import KEY, _Context, _event, handler_module  # noqa: F401

pytestmark = pytest.mark.functional
MCP_HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
}


def call(handler: Any, method: str, params: dict[str, Any], key: str | None = KEY) -> dict[str, Any]:
    event = _event("/mcp", {**MCP_HEADERS, **({"x-access-key": key} if key else {})}, method="POST")
    event["body"] = json.dumps({"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
    out: dict[str, Any] = handler.handler(event, _Context())
    return out


def test_mcp_on_lambda_needs_the_key_and_answers_in_json(handler_module) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    refused = call(handler_module, "tools/list", {}, key=None)
    assert refused["statusCode"] == 401 and json.loads(refused["body"])["error"] == "unauthorized"

    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    first = call(handler_module, "initialize", hello)
    assert first["statusCode"] == 200, first
    assert json.loads(first["body"])["result"]["serverInfo"]["name"] == "previously"
    # A warm container serves the next invocation with no session carried over.
    listed = call(handler_module, "tools/list", {})
    assert listed["statusCode"] == 200 and listed["headers"]["content-type"].startswith("application/json")
    names = [t["name"] for t in json.loads(listed["body"])["result"]["tools"]]
    assert names[0] == "recall" and "remember" in names
    card = call(handler_module, "tools/call", {"name": "read_card", "arguments": {}})
    result = json.loads(card["body"])["result"]
    assert result["isError"] is False and "still empty" in result["content"][0]["text"]
    refused_write = call(handler_module, "tools/call", {"name": "remember", "arguments": {"text": "hi"}})
    assert json.loads(refused_write["body"])["result"]["isError"] is True
