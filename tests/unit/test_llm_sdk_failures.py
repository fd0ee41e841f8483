"""`errors.sdk_failures`: the one ladder from an SDK's exceptions to the domain's errors."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from core.errors import KeyRefused, ModelError, ModelTimeout, ModelUnavailable, NotFound, Unreachable
from core.llm import errors

pytestmark = pytest.mark.unit


class APIError(Exception):
    """Stands in for the hierarchy both SDKs share (the ladder reads it off the module)."""


class APIStatusError(APIError):
    pass


class APIConnectionError(APIError):
    pass


class APITimeoutError(APIConnectionError):
    pass


class APIResponseValidationError(APIError):
    pass


SDK: Any = SimpleNamespace(
    APIError=APIError,
    APIStatusError=APIStatusError,
    APIConnectionError=APIConnectionError,
    APITimeoutError=APITimeoutError,
    APIResponseValidationError=APIResponseValidationError,
)


def _how(**kw: Any) -> errors.SdkErrors:
    return errors.SdkErrors(
        SDK, "Prov", "http://x.test", lambda exc, model: KeyRefused(f"{model}: {exc}"), **kw
    )


def _raised(exc: BaseException, how: errors.SdkErrors | None = None) -> BaseException:
    with pytest.raises(BaseException) as info, errors.sdk_failures(how or _how(), "m-1", 7.0):
        raise exc
    return info.value


def test_each_sdk_failure_becomes_a_domain_error() -> None:
    refused = _raised(APIStatusError("401"))
    assert isinstance(refused, KeyRefused) and str(refused) == "m-1: 401"
    assert isinstance(refused.__cause__, APIStatusError)
    timed = _raised(APITimeoutError("slow"))
    assert isinstance(timed, ModelTimeout) and str(timed) == "Prov did not answer within 7 s"
    lost = _raised(APIConnectionError("reset"))
    assert isinstance(lost, ModelUnavailable) and "lost the connection to Prov: reset" in str(lost)
    assert isinstance(_raised(ValueError("bad json")), ModelError)
    assert "malformed" in str(_raised(APIResponseValidationError("odd")))
    assert isinstance(_raised(OSError("socket closed")), ModelUnavailable)


def test_a_refused_connection_names_the_endpoint() -> None:
    exc = APIConnectionError("boom")
    exc.__cause__ = ConnectionRefusedError("refused")
    out = _raised(exc)
    assert isinstance(out, Unreachable) and "cannot reach http://x.test" in str(out)


def test_other_api_errors_pass_through_unless_a_translation_is_given() -> None:
    odd = APIError("in-stream")
    assert _raised(odd) is odd
    out = _raised(
        APIError("in-stream"), _how(api_error=lambda exc, model: ModelUnavailable(f"{model} busy: {exc}"))
    )
    assert isinstance(out, ModelUnavailable) and str(out) == "m-1 busy: in-stream"


def test_our_errors_and_unknown_ones_pass_through_unchanged() -> None:
    ours = NotFound("gone")
    assert _raised(ours) is ours
    other = RuntimeError("a bug")
    assert _raised(other) is other


def test_a_generator_closed_early_is_not_an_error() -> None:
    def stream() -> Any:
        with errors.sdk_failures(_how(), "m-1", 7.0):
            yield 1
            yield 2

    events = stream()
    assert next(events) == 1
    events.close()  # GeneratorExit passes through the ladder untouched
