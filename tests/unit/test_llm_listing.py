"""A model listing's failures, classified: a 404 is "lists no models", never "unreachable"."""

from __future__ import annotations

import io
import socket
import urllib.error

import pytest

from core.llm.errors import connection_failed
from core.llm.listing import Listing, listing_failure, listing_from, unreachable_reason

pytestmark = pytest.mark.unit
BASE = "http://127.0.0.1:9/v1"


def http_error(code: int) -> urllib.error.HTTPError:
    return urllib.error.HTTPError(BASE + "/models", code, "x", {}, io.BytesIO(b"{}"))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("exc", "state", "sentence"),
    [
        (http_error(404), "no_listing", f"the server at {BASE} lists no models"),
        (http_error(405), "no_listing", f"the server at {BASE} lists no models"),
        (http_error(401), "refused", f"the server at {BASE} refused the key (401): check OPENAI_API_KEY"),
        (http_error(403), "refused", "refused the key (403)"),
        (
            urllib.error.URLError(ConnectionRefusedError(111, "x")),
            "unreachable",
            f"cannot reach {BASE} (connection refused)",
        ),
        (urllib.error.URLError(socket.gaierror(-2, "x")), "unreachable", "(the host name does not resolve)"),
        (TimeoutError("timed out"), "unreachable", "(no answer in time)"),
        (ValueError("Expecting value: line 1"), "no_listing", "lists no models"),
    ],
)
def test_failures_are_classified(exc: BaseException, state: str, sentence: str) -> None:
    found = listing_failure(exc)
    assert found.state == state and sentence in found.describe(BASE)


def test_an_answer_is_listed_or_empty() -> None:
    assert listing_from(["a", "b", "a"]) == Listing("listed", ("a", "b"))
    assert listing_from([]).state == "empty"
    assert "lists no models" in listing_from([]).describe(BASE)


def test_sdk_connection_errors_say_cannot_reach() -> None:
    class ConnectError(Exception):
        pass

    never = connection_failed("X", BASE, ConnectError("[Errno 111] Connection refused"), "Connection error.")
    assert str(never) == f"cannot reach {BASE} (connection refused)"
    dropped = connection_failed("X", BASE, None, "peer closed connection")
    assert str(dropped).startswith("lost the connection to X")


def test_unknown_reasons_are_kept_short() -> None:
    assert unreachable_reason(OSError("something odd " * 50)).startswith("something odd")
    assert len(unreachable_reason(OSError("x " * 500))) <= 200
