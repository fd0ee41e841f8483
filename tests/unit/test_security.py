"""Access key, sessions, the sign-in throttle and loopback detection."""

from __future__ import annotations

import pytest

from functions.api.errors import ApiError
from functions.api.guard import RequestGuard
from functions.api.security import (
    AccessKey,
    AuthThrottle,
    Security,
    Sessions,
    generate_key,
    is_loopback,
    key_weakness,
    load_session_secret,
    sha256_hex,
)

pytestmark = pytest.mark.unit


def test_key_matches_only_itself_and_works_from_its_hash() -> None:
    key = AccessKey.from_plain("s3cret")
    assert (
        key.matches("s3cret") and not key.matches("s3cret ") and not key.matches("") and not key.matches(None)
    )
    assert AccessKey.parse(sha256_hex("s3cret")).matches("s3cret")  # an older deployment's hash
    assert "s3cret" not in repr(key)


def test_the_stored_form_is_salted_scrypt_and_parses_back() -> None:
    a, b = AccessKey.from_plain("s3cret"), AccessKey.from_plain("s3cret")
    assert a.encoded().startswith("scrypt$16384$8$1$") and a.encoded() != b.encoded()  # salted
    assert sha256_hex("s3cret") not in a.encoded()
    again = AccessKey.parse(a.encoded())
    assert again.matches("s3cret") and not again.matches("s3cret!")
    for bad in ("", "scrypt$3$8$1$aaaaaaaa$bbbbbbbbbbbbbbbbbbbb", "md5$x", "abc"):
        with pytest.raises(ValueError):
            AccessKey.parse(bad)


def test_weak_keys_are_named_and_generated_keys_are_strong() -> None:
    assert key_weakness("k") and key_weakness("a" * 20) and key_weakness("correct horse battery staple")
    assert key_weakness(generate_key()) is None and len({generate_key() for _ in range(5)}) == 5


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
    key = AccessKey.from_plain("k")
    a = Sessions(key, "secret-a")
    b = Sessions(key, "secret-b")
    assert not b.valid(a.issue())
    assert Sessions(key, "secret-a").valid(a.issue())


def test_a_session_cannot_be_made_from_the_stored_hash() -> None:
    # Before: the cookie was signed with a key derived from the stored digest, and carried its
    # first 64 bits. Now the cookie reveals nothing of the hash, and the hash signs nothing.
    import base64
    import json

    key = AccessKey.parse(sha256_hex("s3cret"))
    sessions = Sessions(key, None)
    token = sessions.issue()
    payload = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    assert sha256_hex("s3cret")[:16] not in json.dumps(payload)
    import hmac

    from itsdangerous import URLSafeTimedSerializer

    derived = hmac.new(key.digest.hex().encode(), b"previously session cookies", "sha256").hexdigest()
    forged = URLSafeTimedSerializer(derived, salt="previously.session").dumps({"k": key.digest.hex()[:16]})
    assert not sessions.valid(forged)


def test_rotating_the_key_ends_sessions() -> None:
    old = Sessions(AccessKey.from_plain("k1"), "secret")
    new = Sessions(AccessKey.from_plain("k2"), "secret")
    assert not new.valid(old.issue())


def test_the_session_secret_file_is_created_once_and_private(tmp_path) -> None:
    path = tmp_path / "runs" / "session-secret"
    first = load_session_secret(path)
    assert len(first) >= 32 and load_session_secret(path) == first
    assert path.stat().st_mode & 0o777 == 0o600
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_wrong_header_keys_are_throttled_like_sign_in() -> None:
    now = [0.0]
    sec = Security.build("right-key-0123456789", None, "s", required=True)
    sec.throttle = AuthThrottle(limit=3, now=lambda: now[0])
    for _ in range(3):
        with pytest.raises(ApiError) as err:
            sec.require({"x-access-key": "guess"}, {}, "9.9.9.9")
        assert err.value.status == 401
    with pytest.raises(ApiError) as err:
        sec.require({"x-access-key": "right-key-0123456789"}, {}, "9.9.9.9")
    assert err.value.status == 429 and "Retry-After" in err.value.headers
    sec.require({"x-access-key": "right-key-0123456789"}, {}, "1.1.1.1")  # another client passes


def test_viewer_address_is_believed_only_behind_cloudfront() -> None:
    headers = {"cloudfront-viewer-address": "203.0.113.9:4431", "x-forwarded-for": "6.6.6.6"}
    behind, direct = RequestGuard(behind_cloudfront=True), RequestGuard()
    assert behind.client(headers, "130.176.0.1") == "203.0.113.9"
    assert behind.client({"cloudfront-viewer-address": "[2001:db8::1]:443"}, None) == "2001:db8::1"
    assert direct.client(headers, "127.0.0.1") == "127.0.0.1"  # X-Forwarded-For never counts
    assert behind.client({"cloudfront-viewer-address": "junk"}, "10.0.0.1") == "10.0.0.1"


def _judge(throttle: AuthThrottle, client: str, right: bool = False) -> None:
    throttle.acquire(client)
    throttle.release(client, right)


def test_throttle_blocks_after_the_limit_and_forgets_after_the_window() -> None:
    now = [0.0]
    throttle = AuthThrottle(limit=3, window=60, now=lambda: now[0])
    for _ in range(3):
        _judge(throttle, "1.2.3.4")
    with pytest.raises(ApiError) as err:
        throttle.acquire("1.2.3.4")
    assert err.value.status == 429 and int(err.value.headers["Retry-After"]) <= 61
    _judge(throttle, "5.6.7.8")  # others are not affected
    now[0] += 61
    _judge(throttle, "1.2.3.4")


def test_slots_in_flight_count_before_any_verdict() -> None:
    throttle = AuthThrottle(limit=2, now=lambda: 0.0)
    throttle.acquire("a")
    throttle.acquire("a")
    with pytest.raises(ApiError) as err:  # two judgments running: a third waits for them
        throttle.acquire("a")
    assert err.value.status == 429
    throttle.release("a", True)
    throttle.acquire("a")


def test_there_is_no_lock_out_of_everyone() -> None:
    throttle = AuthThrottle(limit=5, now=lambda: 0.0)
    for i in range(500):
        for _ in range(5):
            _judge(throttle, f"10.0.{i // 250}.{i % 250}")
    _judge(throttle, "192.0.2.7", right=True)  # a caller that has not failed is judged


def test_an_ipv6_caller_counts_by_its_64() -> None:
    throttle = AuthThrottle(limit=2, now=lambda: 0.0)
    _judge(throttle, "2001:db8:1:2::1")
    _judge(throttle, "2001:db8:1:2::ffff")
    with pytest.raises(ApiError):
        throttle.acquire("2001:db8:1:2:aaaa::3")
    _judge(throttle, "2001:db8:1:3::1")


def test_success_clears_the_client_record() -> None:
    throttle = AuthThrottle(limit=2, now=lambda: 0.0)
    _judge(throttle, "a")
    _judge(throttle, "a", right=True)
    _judge(throttle, "a")
    throttle.acquire("a")


def test_the_memory_of_callers_is_bounded_without_forgetting_everyone() -> None:
    throttle = AuthThrottle(limit=1, max_callers=3, now=lambda: 0.0)
    for client in ("a", "b", "c", "d"):
        _judge(throttle, client)
    assert len(throttle._failures) == 3
    with pytest.raises(ApiError):
        throttle.acquire("d")


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
