"""Access key, sessions, the sign-in throttle and loopback detection."""

from __future__ import annotations

import pytest

from functions.api.errors import ApiError
from functions.api.security import AccessKey, Security, Sessions, SignInThrottle, is_loopback, sha256_hex

pytestmark = pytest.mark.unit


def test_key_matches_only_itself_and_works_from_its_hash() -> None:
    key = AccessKey.from_plain("s3cret")
    assert (
        key.matches("s3cret") and not key.matches("s3cret ") and not key.matches("") and not key.matches(None)
    )
    assert AccessKey(sha256_hex("s3cret")).matches("s3cret")
    assert "s3cret" not in repr(key)


def test_sessions_expire_and_resist_tampering() -> None:
    now = [1_000_000.0]
    sessions = Sessions(AccessKey.from_plain("k"), None, max_age=60, now=lambda: now[0])
    token = sessions.issue()
    assert sessions.valid(token)
    assert not sessions.valid(token[:-2] + ("AA" if not token.endswith("AA") else "BB"))
    assert not sessions.valid("x" * 600) and not sessions.valid(None)
    now[0] += 61
    assert not sessions.valid(token)


def test_sessions_are_bound_to_the_secret() -> None:
    a = Sessions(AccessKey.from_plain("k"), "secret-a")
    b = Sessions(AccessKey.from_plain("k"), "secret-b")
    assert not b.valid(a.issue())


def test_throttle_blocks_after_the_limit_and_forgets_after_the_window() -> None:
    now = [0.0]
    throttle = SignInThrottle(limit=3, window=60, now=lambda: now[0])
    for _ in range(3):
        throttle.check("1.2.3.4")
        throttle.failed("1.2.3.4")
    with pytest.raises(ApiError) as err:
        throttle.check("1.2.3.4")
    assert err.value.status == 429 and int(err.value.headers["Retry-After"]) <= 61
    throttle.check("5.6.7.8")  # others are not affected
    now[0] += 61
    throttle.check("1.2.3.4")


def test_throttle_has_a_global_cap() -> None:
    throttle = SignInThrottle(limit=100, global_limit=5, now=lambda: 0.0)
    for i in range(5):
        throttle.failed(f"10.0.0.{i}")
    with pytest.raises(ApiError):
        throttle.check("10.0.0.99")


def test_success_clears_the_client_record() -> None:
    throttle = SignInThrottle(limit=2, now=lambda: 0.0)
    throttle.failed("a")
    throttle.succeeded("a")
    throttle.failed("a")
    throttle.check("a")


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("127.1.2.3", True),
        ("0.0.0.0", False),
        ("192.168.1.5", False),
        ("example.com", False),
        ("::", False),
    ],
)
def test_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_not_required_means_open_even_without_a_key() -> None:
    Security.build(None, None, None, required=False).require({}, {})
    with pytest.raises(ApiError) as err:
        Security.build("k", None, None, required=True).require({}, {})
    assert err.value.status == 401
