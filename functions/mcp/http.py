"""`/mcp`: the MCP server over streamable HTTP, on `previously serve` and behind Mangum on Lambda.

Stateless with JSON responses: every POST is one complete exchange, so nothing has to outlive a
request (a Lambda may serve the next one from another container, and Mangum runs no lifespan).
The caller passes exactly the checks of the rest of the API before the MCP layer sees a byte:
the request guard (functions/api/guard.py: host, origin, body type), then the access key
(`x-access-key`, or `Authorization: Bearer` as MCP clients send it) or a session, throttled by
the caller's own address; a 401 carries `WWW-Authenticate: Bearer`. Writes follow the memory's
config.json (`mcpRemember`).
In a multi-persona demo the exchange reads the persona the request names, as every API route
does (`?persona=`, else the picker's cookie, else the default; an unknown `?persona=` is a 400).
"""

from __future__ import annotations

from fastapi import FastAPI
from starlette.requests import Request
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from core.errors import InvalidInput
from functions.api.common import request_deps
from functions.api.errors import error_response
from functions.api.guard import visitor_is_new
from functions.compose.deps import Deps

PATH = "/mcp"


class McpEndpoint:
    """The ASGI app at `/mcp`: authenticate like the API, then serve one stateless MCP exchange."""

    def __init__(self, deps: Deps, version: str = "") -> None:
        self.deps = deps
        self.version = version

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        security = self.deps.security
        peer = request.client.host if request.client else None
        client = security.request_guard.client(request.headers, peer)
        security.require(request.headers, request.cookies, client)  # ApiError → the API's 401 / 503
        security.guard(request.method, request.headers, client)
        if request.method != "POST":
            # Stateless: no stream to hold open (GET) and no session to end (DELETE). The spec lets
            # a server without a server-to-client stream answer 405, and clients carry on with POST.
            await _not_allowed(scope, receive, send)
            return
        try:
            # A client that sent no visitor cookie gets a sandbox for this exchange alone: MCP
            # clients rarely keep cookies, and one held per POST would push real visitors out.
            deps = request_deps(self.deps, request, create=True, hold=not visitor_is_new(scope))
        except InvalidInput as exc:
            await error_response(400, "invalid_input", str(exc))(scope, receive, send)
            return
        await self._exchange(deps, scope, receive, send)

    async def _exchange(self, deps: Deps, scope: Scope, receive: Receive, send: Send) -> None:
        # Imported on first use: the MCP SDK is not needed by a cold start that serves only /api.
        from mcp.server.transport_security import TransportSecuritySettings

        from functions.compose.mcp import build_access
        from functions.mcp.server import build_server

        access = build_access(
            deps.storage,
            deps.models,
            source="MCP (remote)",
            clock=deps.clock,
            ids=deps.ids,
            remote=True,
            index=deps.kept_index.get(),
        )
        # A fresh server (and so a fresh session manager) per request: a manager runs only once.
        server = build_server(access, self.version)
        # The request guard has judged the host and origin already, for every deployment shape.
        policy = TransportSecuritySettings(enable_dns_rebinding_protection=False)
        server.streamable_http_app(json_response=True, stateless_http=True, transport_security=policy)
        manager = server.session_manager
        async with manager.run():
            await manager.handle_request(scope, receive, send)


async def _not_allowed(scope: Scope, receive: Receive, send: Send) -> None:
    message = "This MCP server is stateless: send each request as a POST."
    await error_response(405, "method_not_allowed", message, {"Allow": "POST"})(scope, receive, send)


def mount(app: FastAPI, deps: Deps, version: str = "") -> None:
    """Serve MCP at `/mcp` (POST carries each exchange; other methods are answered 405)."""
    app.router.routes.append(Route(PATH, endpoint=McpEndpoint(deps, version), include_in_schema=False))
