"""The events Lambda hands our entry points, built as API Gateway sends them."""

from __future__ import annotations

from typing import Any

API_HOST = "abc.execute-api.us-east-1.amazonaws.com"


def http_event(
    method: str,
    path: str,
    headers: dict[str, str] | None = None,
    body: str = "",
    *,
    host: str = API_HOST,
    route: str = "ANY /api/{proxy+}",
    query: str = "",
) -> dict[str, Any]:
    """An API Gateway HTTP API (payload 2.0) event; `host` and `route` as the API or CloudFront gives them,
    `query` the raw query string."""
    return {
        "version": "2.0",
        "routeKey": route,
        "rawPath": path,
        "rawQueryString": query,
        "headers": {"host": host, **(headers or {})},
        "requestContext": {
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": "203.0.113.9"},
            "requestId": "r1",
            "stage": "$default",
        },
        "body": body,
        "isBase64Encoded": False,
    }
