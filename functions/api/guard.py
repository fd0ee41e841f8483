"""The trust boundary every request crosses before a route sees it (docs/API.md "Authentication").

One `RequestGuard`, built once from the settings, decides for the FastAPI app (as ASGI
middleware: every route, `/mcp` and the WebSocket), and for the Lambda WebSocket entry
(`$connect`). In order:

1. Behind CloudFront with an origin secret: the request must carry CloudFront's secret origin
   header, so nobody reaches the API Gateway endpoint directly with forged forwarded headers (403).
2. The host the request addressed (its `Host`; behind CloudFront, CloudFront's `X-Forwarded-Host`)
   must be loopback or a configured public host (421): a hostile name resolved to 127.0.0.1
   (DNS rebinding) reaches nothing.
3. A state-changing request (and a WebSocket upgrade) from a browser must come from the app's own
   page: `Origin` equal to the host addressed (or a configured CORS origin) and `Sec-Fetch-Site`
   `same-origin` or `none` (403). A request with neither `Origin` nor any `Sec-Fetch-*` header is
   a script and passes here (the access key, when one is configured, is asked for by the route).
4. A state-changing request may not carry a body a cross-site form or a "simple" fetch could send
   (`text/plain`, `application/x-www-form-urlencoded`, `multipart/form-data`): 415.

In a demo the middleware also names the visitor: the `previously_visitor` cookie's id, or a
fresh random one (a missing or malformed cookie), set on the response as an HttpOnly,
SameSite=Lax cookie (Secure over https) that lives as long as the visitor's changes are kept.
Routes find it with `visitor_in(scope)` and read and write that visitor's own overlay.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from dataclasses import dataclass
from enum import Enum
from typing import Any
from urllib.parse import urlsplit

from core.storage.visitor import visitor_id
from functions.api.errors import ApiError, error_response
from functions.compose.demo import VISITOR_COOKIE, new_visitor_id

ORIGIN_SECRET_HEADER = "x-previously-origin"
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# The bodies a page on another site can send without a CORS preflight.
SIMPLE_BODIES = frozenset({"text/plain", "application/x-www-form-urlencoded", "multipart/form-data"})
_PAGE_SITES = frozenset({"same-origin", "none"})


class Caller(Enum):
    """Who the guard judged the sender of a state-changing request to be."""

    PAGE = "page"  # the app's own page (same origin)
    SCRIPT = "script"  # no browser fetch metadata at all: curl, the CLI, an MCP client
    LISTED = "listed"  # a page on an origin the deployment lists for CORS


def host_name(host: str) -> str:
    """The name in a `Host` value, without port or brackets, lowercased (`[::1]:8000` → `::1`)."""
    text = host.strip().lower()
    if text.startswith("["):
        return text[1:].split("]", 1)[0]
    if text.count(":") > 1:  # a bare IPv6 address
        return text
    return text.split(":", 1)[0].rstrip(".")


def origin_host(origin: str) -> str | None:
    """`host[:port]` of an Origin as a browser's URL.host gives it (default port dropped)."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if not parts.scheme or not parts.hostname:
        return None
    host = parts.netloc.rsplit("@", 1)[-1].lower()
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    if port is not None and port == default:
        host = host.rsplit(":", 1)[0]
    return host


def _refused(message: str) -> ApiError:
    return ApiError(403, "forbidden", message)


@dataclass(frozen=True)
class RequestGuard:
    """The deployment's answer to "may this request come in?" (see the module docstring)."""

    # Host names besides loopback that this server answers to (PREVIOUSLY_PUBLIC_HOSTS).
    public_hosts: frozenset[str] = frozenset()
    # The deployment sits behind CloudFront: its forwarded headers are believed.
    behind_cloudfront: bool = False
    # The value CloudFront adds in ORIGIN_SECRET_HEADER (None: not checked).
    origin_secret: str | None = None
    # Other sites' origins allowed to call from a browser (CORS), with the access key.
    cors_origins: tuple[str, ...] = ()

    @classmethod
    def build(
        cls,
        public_hosts: tuple[str, ...] = (),
        behind_cloudfront: bool = False,
        origin_secret: str | None = None,
        cors_origins: tuple[str, ...] = (),
    ) -> RequestGuard:
        names = frozenset(host_name(h) for h in public_hosts if h.strip())
        return cls(names, behind_cloudfront, origin_secret or None, cors_origins)

    def addressed(self, headers: Mapping[str, str]) -> str:
        """`host[:port]` the request addressed; CloudFront's X-Forwarded-Host only behind CloudFront."""
        forwarded = headers.get("x-forwarded-host") if self.behind_cloudfront else None
        return (forwarded.split(",")[0] if forwarded else headers.get("host", "")).strip().lower()

    def client(self, headers: Mapping[str, str], peer: str | None) -> str:
        """The caller's address for throttling: CloudFront's viewer address only behind CloudFront
        (CloudFront sets it and a viewer cannot override it), else the socket's peer;
        `X-Forwarded-For` is never believed."""
        if self.behind_cloudfront:
            value = headers.get("cloudfront-viewer-address", "").strip()
            host = value.rsplit(":", 1)[0].strip("[]") if ":" in value else value
            try:
                return str(ipaddress.ip_address(host))
            except ValueError:
                pass
        return peer or "unknown"

    def check_via(self, headers: Mapping[str, str]) -> None:
        """Behind CloudFront with a secret: the request came through CloudFront (403 otherwise)."""
        if not (self.behind_cloudfront and self.origin_secret):
            return
        seen = headers.get(ORIGIN_SECRET_HEADER, "")
        if not hmac.compare_digest(seen.encode(), self.origin_secret.encode()):
            raise _refused("Reach this deployment through its CloudFront address, not the API's own.")

    def check_host(self, headers: Mapping[str, str]) -> None:
        """The addressed host is loopback or a public host of this deployment (421 otherwise)."""
        addressed = self.addressed(headers)
        if not addressed:  # HTTP/1.0 without Host: not a browser, so no rebinding
            return
        name = host_name(addressed)
        if name in LOOPBACK_NAMES or name in self.public_hosts:
            return
        raise ApiError(
            421,
            "misdirected_request",
            f"This server does not answer to the host name {name!r}. Use http://127.0.0.1, or add "
            "the name to PREVIOUSLY_PUBLIC_HOSTS if this server is meant to be reached by it.",
        )

    def caller(self, headers: Mapping[str, str]) -> Caller:
        """Who sent a state-changing request: the app's page, a script, or a listed origin (403 for
        any other browser page)."""
        origin = headers.get("origin")
        site = headers.get("sec-fetch-site")
        if origin is None and not any(name.startswith("sec-fetch-") for name in headers):
            return Caller.SCRIPT
        if origin is not None and origin.strip().rstrip("/") in self.cors_origins:
            return Caller.LISTED
        if origin is not None:
            seen, own = origin_host(origin), self.addressed(headers)
            if not (seen and own and seen == own):
                raise _refused("Cross-site request refused: send it from the app's own page.")
        if site not in _PAGE_SITES and not (origin is not None and site is None):
            raise _refused("Cross-site request refused: send it from the app's own page.")
        return Caller.PAGE

    def check_body(self, headers: Mapping[str, str]) -> None:
        """No body type a cross-site form or simple request can send (415)."""
        media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if media in SIMPLE_BODIES:
            raise ApiError(
                415,
                "unsupported_media_type",
                f"A {media} body is not accepted: send JSON with Content-Type: application/json "
                "(an import's file as application/octet-stream).",
            )

    def admit(self, method: str, headers: Mapping[str, str], *, upgrade: bool = False) -> Caller | None:
        """Every check in order; the caller for a state-changing request or upgrade, else None."""
        self.check_via(headers)
        self.check_host(headers)
        if not upgrade and method.upper() not in STATE_CHANGING:
            return None
        caller = self.caller(headers)
        if not upgrade:
            self.check_body(headers)
        return caller


Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
_POLICY_VIOLATION = 1008


def scope_headers(scope: Scope) -> dict[str, str]:
    """An ASGI scope's headers with lowercase names (the first of a repeated header wins)."""
    out: dict[str, str] = {}
    for name, value in scope.get("headers") or []:
        out.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return out


_VISITOR_STATE = "demo_visitor"
_VISITOR_NEW = "demo_visitor_new"


def served_over_https(headers: Mapping[str, str], scheme: str) -> bool:
    """The browser reached this server over https (the proxy's X-Forwarded-Proto, else the scheme)."""
    proto = headers.get("x-forwarded-proto", scheme)
    return proto.split(",")[0].strip().lower() == "https"


def visitor_is_new(scope: Scope) -> bool:
    """Whether the guard named a new demo visitor for this request (the caller sent no cookie)."""
    state = scope.get("state")
    return bool(state.get(_VISITOR_NEW)) if isinstance(state, Mapping) else False


def visitor_in(scope: Scope) -> str | None:
    """The demo visitor the guard named for this request (None outside a demo)."""
    state = scope.get("state")
    found = state.get(_VISITOR_STATE) if isinstance(state, Mapping) else None
    return found if isinstance(found, str) else None


def _cookie(headers: Mapping[str, str], name: str) -> str | None:
    from starlette.requests import cookie_parser

    return cookie_parser(headers.get("cookie", "")).get(name)


def visitor_cookie(visitor: str, max_age: int, secure: bool) -> str:
    """The Set-Cookie value that names a demo visitor."""
    flags = f"; Max-Age={max_age}; Path=/; HttpOnly; SameSite=Lax" + ("; Secure" if secure else "")
    return f"{VISITOR_COOKIE}={visitor}{flags}"


class GuardMiddleware:
    """Run the request guard before the app: refusals are JSON errors, or a closed socket.

    `visitor_seconds` (a demo): name the visitor and keep their cookie that long.
    """

    def __init__(
        self,
        app: Callable[[Scope, Receive, Send], Awaitable[None]],
        guard: RequestGuard,
        visitor_seconds: int | None = None,
        new_visitor: Callable[[], str] = new_visitor_id,
    ) -> None:
        self.app = app
        self.guard = guard
        self.visitor_seconds = visitor_seconds
        self.new_visitor = new_visitor

    def _named(self, scope: Scope, headers: Mapping[str, str], send: Send) -> Send:
        """Put the request's visitor in its scope; a `send` that sets the cookie of a new one."""
        if self.visitor_seconds is None:
            return send
        known = visitor_id(_cookie(headers, VISITOR_COOKIE))
        visitor = known or self.new_visitor()
        state = scope.setdefault("state", {})
        state[_VISITOR_STATE], state[_VISITOR_NEW] = visitor, known is None
        if known is not None or scope["type"] != "http":
            return send
        secure = served_over_https(headers, scope.get("scheme", ""))
        cookie = visitor_cookie(visitor, self.visitor_seconds, secure)

        async def with_cookie(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"set-cookie", cookie.encode("latin-1"))]
            await send(message)

        return with_cookie

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        upgrade = scope["type"] == "websocket"
        headers = scope_headers(scope)
        try:
            self.guard.admit(str(scope.get("method", "GET")), headers, upgrade=upgrade)
        except ApiError as exc:
            if upgrade:  # before the handshake is accepted: the server answers 403, no turn starts
                await send({"type": "websocket.close", "code": _POLICY_VIOLATION})
                return
            await error_response(exc.status, exc.code, exc.message, exc.headers)(scope, receive, send)
            return
        await self.app(scope, receive, self._named(scope, headers, send))
