"""Health, and the browser session: sign in with the access key, sign out, ask whether signed in."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel

from functions.api.common import DepsDep, client_of, same_origin
from functions.api.errors import ApiError
from functions.api.guard import served_over_https
from functions.api.schemas import ErrorBody, Health, SignIn
from functions.api.security import SESSION_COOKIE

router = APIRouter(tags=["auth"])


class SessionView(BaseModel):
    """Whether this server asks for sign-in, and whether this caller is signed in."""

    auth_required: bool
    signed_in: bool
    key_configured: bool


class Ok(BaseModel):
    """The request did what it asked."""

    ok: bool = True


def _secure(request: Request) -> bool:
    return served_over_https(request.headers, request.url.scheme)


@router.get("/api/health", response_model=Health)
def health() -> Health:
    """Liveness: no authentication, no storage access."""
    from functions.api.app import version

    return Health(ok=True, version=version())


@router.get("/api/auth/session", response_model=SessionView)
def session(request: Request, deps: DepsDep) -> SessionView:
    """Whether sign-in is required and whether the caller already passes."""
    sec = deps.security
    return SessionView(
        auth_required=sec.required,
        signed_in=sec.authenticated(request.headers, request.cookies, client_of(request)),
        key_configured=sec.key is not None,
    )


@router.post(
    "/api/auth/sign-in",
    response_model=Ok,
    responses={401: {"model": ErrorBody}, 403: {"model": ErrorBody}, 429: {"model": ErrorBody}},
)
def sign_in(body: SignIn, request: Request, response: Response, deps: DepsDep) -> Ok:
    """Trade the access key for a session cookie (HttpOnly, SameSite=Strict, Secure over https)."""
    same_origin(request)
    sec = deps.security
    if sec.key is None or sec.sessions is None:
        raise ApiError(
            400, "auth_not_configured", "This server has no access key, so there is nothing to sign in to."
        )
    if not sec.check_key(body.key, client_of(request)):
        raise ApiError(401, "unauthorized", "That access key is not right.")
    response.set_cookie(
        SESSION_COOKIE,
        sec.sessions.issue(),
        max_age=sec.sessions.max_age,
        httponly=True,
        samesite="strict",
        secure=_secure(request),
        path="/",
    )
    return Ok()


@router.post("/api/auth/sign-out", response_model=Ok)
def sign_out(request: Request, response: Response) -> Ok:
    """Drop the session cookie."""
    same_origin(request)
    response.delete_cookie(
        SESSION_COOKIE, path="/", httponly=True, samesite="strict", secure=_secure(request)
    )
    return Ok()
