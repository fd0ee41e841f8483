"""Small ASGI middlewares: a request-body size cap, protective response headers, OPTIONS answers.

A response that names no Cache-Control of its own gets `no-store`: the API's replies hold the
user's memory and no browser or proxy may keep them. The static files say theirs
(functions/api/site.py), and so does a slice's picture (routes_slices.py).

The body cap reads at most `max_bytes` before the application sees anything, so an oversized
request is refused with 413 and nothing is parsed or written.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any

from core.errors import TooLarge

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]
NO_STORE = "no-store"


async def _refuse(send: Send, max_bytes: int) -> None:
    body = json.dumps(
        {
            "error": "too_large",
            "message": f"The request body is larger than {max_bytes} bytes; send less.",
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """Refuse request bodies over `max_bytes` (413), reading no more than that.

    Paths under a `streamed` prefix (file uploads) get their own cap and are passed through
    unbuffered: the route spools them to disk, and reading past the cap raises TooLarge. Paths
    under a `larger` prefix (a message with pictures) are buffered like the rest, with their own cap.
    """

    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int,
        streamed: Mapping[str, int] | None = None,
        larger: Mapping[str, int] | None = None,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.streamed = dict(streamed or {})
        self.larger = dict(larger or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        cap = next((n for p, n in self.streamed.items() if path.startswith(p)), None)
        buffered = next((n for p, n in self.larger.items() if path.startswith(p)), self.max_bytes)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        limit = cap if cap is not None else buffered
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await _refuse(send, limit)
            return
        if cap is not None:
            await self.app(scope, _counting(receive, cap), send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > buffered:
                await _refuse(send, buffered)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _counting(receive: Receive, cap: int) -> Receive:
    """`receive`, raising TooLarge once more than `cap` bytes of body have arrived."""
    seen = 0

    async def counted() -> Message:
        nonlocal seen
        message = await receive()
        seen += len(message.get("body", b""))
        if seen > cap:
            raise TooLarge(f"The upload is larger than {cap} bytes; import a file that large with the CLI.")
        return message

    return counted


class SecurityHeaders:
    """Add no-sniff, same-origin referrer and no-framing headers to every HTTP response, and
    `Cache-Control: no-store` to any that does not say its own (every API reply, refusals too)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or []) + _HEADERS
                if not any(name.lower() == b"cache-control" for name, _ in headers):
                    headers.append((b"cache-control", NO_STORE.encode()))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


class Preflight:
    """OPTIONS on any route answers 204 with `Allow`, before authentication (preflights stay open).

    A cross-site CORS preflight is answered earlier by the CORS middleware where it is enabled;
    this one answers the rest, naming the methods the path accepts.
    """

    def __init__(self, app: ASGIApp, routes: list[Any]) -> None:
        self.app = app
        self.routes = routes

    def allowed(self, scope: Scope) -> set[str]:
        """The methods some route accepts on this path, asked of the routes' own matching."""
        from starlette.routing import Match

        methods: set[str] = set()
        for method in _METHODS:
            probe = {**scope, "method": method}
            if any(route.matches(probe)[0] is Match.FULL for route in self.routes):
                methods.add(method)
        return methods

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "OPTIONS":
            await self.app(scope, receive, send)
            return
        methods = self.allowed(scope)
        if not methods:
            await self.app(scope, receive, send)
            return
        allow = ", ".join(sorted(methods | {"OPTIONS"})).encode()
        await send({"type": "http.response.start", "status": 204, "headers": [(b"allow", allow)]})
        await send({"type": "http.response.body", "body": b""})
