"""What every router shares: the Deps of the app, authentication, the origin guard."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from core.errors import InvalidInput
from core.reltime import zone
from functions.api.security import viewer_address
from functions.deps import PERSONA_COOKIE, PERSONA_PARAM, Deps, persona_deps


def get_deps(request: Request) -> Deps:
    """The Deps the app was created with; in a demo with several personas, those of the
    persona the request names (`?persona=`, else the picker's cookie, else the default)."""
    deps: Deps = request.app.state.deps
    return persona_deps(deps, request.query_params.get(PERSONA_PARAM), request.cookies.get(PERSONA_COOKIE))


DepsDep = Annotated[Deps, Depends(get_deps)]


def client_of(request: Request) -> str:
    """The caller's address for throttling (CloudFront's viewer header on AWS, else the peer)."""
    security = get_deps(request).security
    peer = request.client.host if request.client else None
    return viewer_address(request.headers, peer, security.trust_viewer_header)


def authenticate(request: Request) -> None:
    """Refuse the call unless auth is not required or the caller shows the key or a session."""
    get_deps(request).security.require(request.headers, request.cookies, client_of(request))


def same_origin(request: Request) -> None:
    """The same-origin guard on a mutation (docs/API.md "Authentication")."""
    get_deps(request).security.guard(request.method, request.headers)


AUTH = [Depends(authenticate)]
MUTATION = [Depends(authenticate), Depends(same_origin)]


def checked_timezone(tz: str | None) -> str | None:
    """The canonical IANA name of `tz` (None stays None); InvalidInput for an unknown zone."""
    if tz is None:
        return None
    found = zone(tz)
    if found is None:
        raise InvalidInput(f'Unknown timezone "{tz}". Send an IANA name such as Europe/Lisbon.')
    return found.key
