"""How provider failures become the domain's error vocabulary (shared by both adapters).

Transient (rate limits, overload, 5xx, timeouts, dropped connections) → `ModelUnavailable`, a
`ModelTransientError` that may carry the server's suggested wait; bad credentials → a
`ModelError` naming the environment variable to fix; a refused request → a `ModelError`
carrying the provider's own message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from core.errors import (
    KeyRefused,
    ModelError,
    ModelTimeout,
    ModelUnavailable,
    ModelUnknown,
    PreviouslyError,
    Unreachable,
)

TRANSIENT_STATUSES = frozenset({408, 409, 425, 429})
_MAX_DETAIL = 500


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """The provider's suggested wait from `retry-after-ms` / `retry-after` (seconds), if readable."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = lowered.get(name)
        if raw is None:
            continue
        try:
            value = float(raw) * scale
        except ValueError:
            continue  # an HTTP date: rare from model APIs; fall back to our own backoff
        if value >= 0:
            return value
    return None


def from_status(
    status: int,
    detail: str,
    *,
    provider: str,
    env_var: str,
    model: str,
    headers: Mapping[str, str] | None = None,
) -> ModelError | ModelUnavailable:
    """Classify an HTTP error answer from a provider."""
    detail = " ".join(detail.split())[:_MAX_DETAIL] or "no details given"
    if status in TRANSIENT_STATUSES or status >= 500:
        return ModelUnavailable(
            f"{provider} is busy or unavailable (HTTP {status}): {detail}", retry_after_seconds(headers)
        )
    if status in (401, 403):
        return KeyRefused(
            f"{provider}: the key was refused ({status}): {detail}. "
            f"Check {env_var} — it must be a valid key for this endpoint."
        )
    if status == 404:
        return ModelUnknown(
            f"{provider} does not know the model or endpoint (HTTP 404) for {model!r}: {detail}. "
            "Pick another model (`previously models` lists them) or check the base URL."
        )
    return ModelError(f"{provider} refused the request (HTTP {status}) for {model!r}: {detail}")


# Error types providers report inside a stream (after an HTTP 200), as the status they stand for.
_STREAM_ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "rate_limit_exceeded": 429,
    "api_error": 500,
    "server_error": 500,
    "overloaded_error": 529,
}


def status_of_stream_error(kind: object, code: object = None) -> int:
    """The HTTP status an in-stream error stands for; an unknown one counts as a server fault."""
    if isinstance(code, int | str) and str(code).isdigit() and 400 <= int(code) < 600:
        return int(code)
    return _STREAM_ERROR_STATUS.get(str(kind), 500)


def timed_out(provider: str, timeout: float) -> ModelTimeout:
    """A request that got no answer within its timeout."""
    return ModelTimeout(f"{provider} did not answer within {timeout:g} s")


def unreachable(endpoint: str, detail: str) -> Unreachable:
    """A connection that could not be made: "cannot reach http://… (connection refused)"."""
    from core.llm.listing import unreachable_reason

    return Unreachable(f"cannot reach {endpoint} ({unreachable_reason(Exception(detail))})")


def connection_failed(
    provider: str, endpoint: str, cause: BaseException | None, detail: str
) -> ModelUnavailable:
    """An SDK connection error: never connected (`unreachable`) or dropped mid-answer (`connection_lost`)."""
    if cause is not None and type(cause).__name__ in ("ConnectError", "ConnectionRefusedError", "gaierror"):
        return unreachable(endpoint, str(cause) or detail)
    return connection_lost(provider, detail)


def connection_lost(provider: str, detail: str) -> ModelUnavailable:
    """A connection that failed or dropped (before or during the answer)."""
    return ModelUnavailable(f"lost the connection to {provider}: {' '.join(detail.split())[:_MAX_DETAIL]}")


def malformed(provider: str, detail: str) -> ModelError:
    """An answer that is not what the provider's API promises."""
    return ModelError(
        f"{provider} sent a malformed response ({' '.join(detail.split())[:_MAX_DETAIL]}). "
        "If this is a local or proxy endpoint, check that it speaks the provider's API."
    )


def is_transport_failure(exc: BaseException) -> bool:
    """A network-level failure surfacing raw from an SDK's stream (socket, HTTP client or protocol)."""
    if isinstance(exc, OSError | EOFError):
        return True
    module = type(exc).__module__ or ""
    return module.split(".")[0] in ("httpx", "httpx2", "httpcore", "h11", "h2")


@dataclass(frozen=True)
class SdkErrors:
    """How one adapter words the failures of its SDK, for `sdk_failures`.

    `status_error(exc, model)` turns the SDK's `APIStatusError` into ours; `api_error`, when
    given, does the same for any other `APIError` (an error object inside a stream after an
    HTTP 200); without it such an error propagates as it came.
    """

    sdk: ModuleType
    label: str
    endpoint: str
    status_error: Callable[[Any, str], PreviouslyError]
    api_error: Callable[[Any, str], PreviouslyError] | None = None


@contextmanager
def sdk_failures(how: SdkErrors, model: str, timeout: float) -> Iterator[None]:
    """Translate what an SDK call for `model` (or the stream it returns) raises into the domain's errors.

    Both SDKs share one exception hierarchy (`APIStatusError`, `APITimeoutError`,
    `APIConnectionError`, `APIResponseValidationError`, `APIError`), so the module is a parameter.
    Our own errors pass through; anything unrecognised that is not a transport failure propagates.
    """
    sdk = how.sdk
    try:
        yield
    except PreviouslyError:
        raise
    except sdk.APIStatusError as exc:
        raise how.status_error(exc, model) from exc
    except sdk.APITimeoutError as exc:
        raise timed_out(how.label, timeout) from exc
    except sdk.APIConnectionError as exc:
        cause = exc.__cause__
        raise connection_failed(how.label, how.endpoint, cause, str(cause or exc)) from exc
    except (ValueError, sdk.APIResponseValidationError) as exc:
        raise malformed(how.label, str(exc)) from exc
    except sdk.APIError as exc:
        if how.api_error is None:
            raise
        raise how.api_error(exc, model) from exc
    except Exception as exc:
        if is_transport_failure(exc):
            raise connection_lost(how.label, str(exc)) from exc
        raise
