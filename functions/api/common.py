"""What every router shares: the Deps of the app, authentication, the origin guard."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection

from core.errors import InvalidInput
from core.reltime import zone
from functions.api.guard import STATE_CHANGING, visitor_in
from functions.compose.demo import PERSONA_COOKIE, PERSONA_PARAM, persona_deps
from functions.compose.deps import Deps


def get_deps(request: Request) -> Deps:
    """The Deps the app was created with; in a demo with several personas, those of the
    persona the request names (`?persona=`, else the picker's cookie, else the default); in a
    demo, under the visitor's own overlay (made by their first state-changing request)."""
    return request_deps(request.app.state.deps, request, request.method in STATE_CHANGING)


def request_deps(deps: Deps, request: HTTPConnection, create: bool, hold: bool = True) -> Deps:
    """The Deps one request or socket reads and writes (see `get_deps`; `hold`: see
    DemoVisitors.get)."""
    asked, remembered = request.query_params.get(PERSONA_PARAM), request.cookies.get(PERSONA_COOKIE)
    return persona_deps(deps, asked, remembered, visitor_in(request.scope), create, hold)


DepsDep = Annotated[Deps, Depends(get_deps)]


def client_of(request: Request) -> str:
    """The caller's address for throttling (CloudFront's viewer header on AWS, else the peer)."""
    peer = request.client.host if request.client else None
    return get_deps(request).security.request_guard.client(request.headers, peer)


async def authenticate(request: Request) -> None:
    """Refuse the call unless auth is not required or the caller shows the key or a session.

    Asynchronous so that a server which requires no sign-in decides on the event loop: a sync
    dependency is a round trip to a worker thread, which on a busy machine costs a search
    more than its own question (docs/RECALL.md). Checking a key (scrypt) runs on a worker.
    """
    deps: Deps = request.app.state.deps  # security is one for every persona and visitor
    if not deps.security.required:
        return
    await run_in_threadpool(
        lambda: get_deps(request).security.require(request.headers, request.cookies, client_of(request))
    )


def same_origin(request: Request) -> None:
    """The same-origin rule on a mutation (docs/API.md "Authentication"): the guard middleware has
    refused other sites' pages; a script must still show the key when one is configured."""
    get_deps(request).security.guard(request.method, request.headers, client_of(request))


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
