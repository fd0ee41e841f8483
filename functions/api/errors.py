"""The one mapping of domain errors (core/errors.py) to HTTP: status, `{"error": code, "message": …}`.

Every 4xx/5xx the API sends goes through here, so a client can branch on `error` and show
`message` (a sentence saying what to do). Unexpected exceptions are logged with their stack and
answered with a generic sentence: no internals, and never a secret, reach the client.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from core import errors as e
from core.redact import redact

log = logging.getLogger("previously.api")

# Most specific first: the first class in an exception's MRO found here decides.
STATUS: dict[type[e.PreviouslyError], int] = {
    e.SliceFormatError: 422,
    e.PathDenied: 400,
    e.TooLarge: 413,
    e.InvalidInput: 400,
    e.NotFound: 404,
    e.ReadOnly: 409,
    e.SliceIdTaken: 409,
    e.ConflictError: 409,
    e.ModelTransientError: 503,
    e.TransientError: 503,
    e.StorageError: 502,
    e.ModelError: 502,
    e.NoModelConfigured: 503,
    e.PreviouslyError: 500,
}
_RETRY_AFTER_SECONDS = "5"
_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    415: "unsupported_media_type",
    429: "too_many_requests",
}
INTERNAL_MESSAGE = "Something went wrong on the server; the details are in the server log."


class ApiError(Exception):
    """An HTTP-level refusal raised by the adapter itself (auth, throttling, origin guard)."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}


def status_for(exc: e.PreviouslyError) -> int:
    """The HTTP status of a domain error (by the nearest class in its MRO)."""
    status = e.nearest_class(exc, STATUS)
    return 500 if status is None else status


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    """The body of every error response (its message redacted: an adapter's own refusal or an
    HTTPException's detail may quote what a caller or an upstream sent)."""
    return {"error": code, "message": redact(message), **extra}


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    """A JSON error response in the one shape the API uses."""
    return JSONResponse(error_body(code, message), status_code=status, headers=headers)


def domain_response(exc: e.PreviouslyError) -> JSONResponse:
    """The response for a domain error (a 5xx keeps its message only when it says what to do)."""
    status = status_for(exc)
    headers = {"Retry-After": _RETRY_AFTER_SECONDS} if status == 503 else None
    if type(exc) is e.PreviouslyError:
        log.error("unclassified domain error", exc_info=exc)
        return error_response(500, "internal", INTERNAL_MESSAGE)
    return error_response(status, exc.code, str(exc) or INTERNAL_MESSAGE, headers)


def validation_message(exc: RequestValidationError) -> str:
    """One readable sentence out of pydantic's error list (field path and what is wrong)."""
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path"))
        if err.get("type") == "json_invalid":
            return "The request body is not valid JSON."
        if err.get("type") == "extra_forbidden":
            parts.append(f"unknown field '{loc}'")
        else:
            parts.append(f"{loc or 'body'}: {err.get('msg', 'invalid')}")
    return "Invalid request: " + "; ".join(parts) + "."


def install(app: FastAPI) -> None:
    """Register the handlers on `app`."""

    @app.exception_handler(e.PreviouslyError)
    async def _domain(_: Request, exc: e.PreviouslyError) -> JSONResponse:
        return domain_response(exc)

    @app.exception_handler(ApiError)
    async def _api(_: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(400, "invalid_request", validation_message(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        message = exc.detail if isinstance(exc.detail, str) else "The request was refused."
        if exc.status_code == 404 and message == "Not Found":
            message = "There is no such route; see /docs for the API."
        return error_response(exc.status_code, code, message, dict(exc.headers or {}))

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.error("unhandled error", exc_info=exc)
        return error_response(500, "internal", INTERNAL_MESSAGE)
