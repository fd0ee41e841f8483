"""The request guard's pure decisions: host names, who sent a change, which bodies are refused."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from functions.api.errors import ApiError
from functions.api.guard import Caller, RequestGuard, host_name

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("127.0.0.1:8000", "127.0.0.1"),
        ("[::1]:8000", "::1"),
        ("[::1]", "::1"),
        ("::1", "::1"),
        ("LocalHost.:80", "localhost"),
        ("notes.example.org", "notes.example.org"),
    ],
)
def test_host_names(value: str, name: str) -> None:
    assert host_name(value) == name


def _status(call: Callable[[], object]) -> int:
    try:
        call()
    except ApiError as refusal:
        return refusal.status
    return 200


@pytest.mark.parametrize(
    ("headers", "caller"),
    [
        ({}, Caller.SCRIPT),
        ({"host": "127.0.0.1:8000", "origin": "http://127.0.0.1:8000"}, Caller.PAGE),
        (
            {"host": "127.0.0.1:8000", "origin": "http://127.0.0.1:8000", "sec-fetch-site": "same-origin"},
            Caller.PAGE,
        ),
        ({"sec-fetch-site": "none"}, Caller.PAGE),
        ({"origin": "https://listed.example"}, Caller.LISTED),
    ],
)
def test_who_sent_a_change(headers: dict[str, str], caller: Caller) -> None:
    assert RequestGuard.build(cors_origins=("https://listed.example",)).caller(headers) is caller


@pytest.mark.parametrize(
    "headers",
    [
        {"host": "127.0.0.1:8000", "origin": "http://127.0.0.1:9000"},  # another port is another origin
        {"host": "127.0.0.1:8000", "origin": "null"},
        {"host": "127.0.0.1:8000", "origin": "http://127.0.0.1:8000", "sec-fetch-site": "same-site"},
        {"sec-fetch-mode": "cors"},  # a browser that names no site
        {"sec-fetch-site": "cross-site"},
    ],
)
def test_other_pages_are_refused(headers: dict[str, str]) -> None:
    assert _status(lambda: RequestGuard().caller(headers)) == 403


def test_bodies_and_safe_methods() -> None:
    guard = RequestGuard()
    for media in (
        "text/plain; charset=utf-8",
        "Application/X-WWW-Form-Urlencoded",
        "multipart/form-data; b=x",
    ):
        assert _status(lambda m=media: guard.admit("POST", {"content-type": m})) == 415
    for media in ("application/json", "application/octet-stream", ""):
        assert _status(lambda m=media: guard.admit("POST", {"content-type": m})) == 200
    assert guard.admit("GET", {"origin": "https://evil.example", "content-type": "text/plain"}) is None
    assert _status(lambda: guard.admit("GET", {"origin": "https://evil.example"}, upgrade=True)) == 403


def test_the_origin_secret_is_asked_for_behind_cloudfront_only() -> None:
    behind = RequestGuard.build(("site.example",), behind_cloudfront=True, origin_secret="s3cret-value")
    assert _status(lambda: behind.admit("GET", {"x-forwarded-host": "site.example"})) == 403
    ok = {"x-forwarded-host": "site.example", "x-previously-origin": "s3cret-value"}
    assert _status(lambda: behind.admit("GET", ok)) == 200
    local = RequestGuard.build(origin_secret="s3cret-value")  # not behind CloudFront: not checked
    assert _status(lambda: local.admit("GET", {"host": "localhost"})) == 200
