"""Lambda entry of the WebSocket API: `$connect`, `$disconnect`, `turn.start`, `turn.follow`."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from functions.aws.push import ConnectionPusher
from functions.aws.ws import WsRoutes, WsTarget
from functions.compose import aws as compose
from functions.compose.demo import new_visitor_id, persona_deps
from functions.compose.deps import Deps
from functions.handlers.snapshot import API_MODULES, preload

preload(*API_MODULES)


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """One WebSocket event → the integration response."""
    return _routes(compose.secret_key()).handle(event)


@lru_cache(maxsize=1)
def _routes(key: compose.SecretKey) -> WsRoutes:
    from functions.api.errors import ApiError
    from functions.api.turns import to_input

    deps = compose.api_deps(key)
    client = compose.push_client()

    def admit(headers: Mapping[str, str], cookies: Mapping[str, str], peer: str | None) -> int:
        # The same checks as the local /api/ws, in the same order: the request guard (CloudFront's
        # secret, host, the page's origin), then a session or the key, then the key of a script.
        security = deps.security
        client = security.request_guard.client(headers, peer)
        try:
            security.request_guard.admit("GET", headers, upgrade=True)
            security.require(headers, cookies, client)
            security.guard("GET", headers, client, upgrade=True)
        except ApiError as refusal:
            return refusal.status
        return 200

    def target(persona: Deps) -> WsTarget:  # pictures sent again are read from that memory
        return WsTarget(persona.turns, persona.runs, lambda action: to_input(action, persona.storage))

    def pick(asked: str | None, remembered: str | None, visitor: str | None) -> WsTarget:
        # The same choice as every route; a socket starts turns, so a visitor's Deps are made.
        return target(persona_deps(deps, asked, remembered, visitor, create=True))

    base = target(deps)
    several = deps.cast is not None or deps.visitors is not None
    return WsRoutes(
        base.turns,
        base.runs,
        lambda cid: ConnectionPusher(client, [cid]),
        admit,
        base.to_input,
        personas=pick if several else None,
        notes=compose.run_store() if several else None,
        new_visitor=new_visitor_id if deps.visitors is not None else None,
    )
