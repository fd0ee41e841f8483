"""Access key, sessions, the sign-in throttle and loopback detection."""

from __future__ import annotations

import pytest

from functions.api.errors import ApiError
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
    viewer_address,
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
    assert viewer_address(headers, "130.176.0.1", True) == "203.0.113.9"
    assert viewer_address({"cloudfront-viewer-address": "[2001:db8::1]:443"}, None, True) == "2001:db8::1"
    assert viewer_address(headers, "127.0.0.1", False) == "127.0.0.1"  # X-Forwarded-For never counts
    assert viewer_address({"cloudfront-viewer-address": "junk"}, "10.0.0.1", True) == "10.0.0.1"


def test_throttle_blocks_after_the_limit_and_forgets_after_the_window() -> None:
    now = [0.0]
    throttle = AuthThrottle(limit=3, window=60, now=lambda: now[0])
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
    throttle = AuthThrottle(limit=100, global_limit=5, now=lambda: 0.0)
    for i in range(5):
        throttle.failed(f"10.0.0.{i}")
    with pytest.raises(ApiError):
        throttle.check("10.0.0.99")


def test_success_clears_the_client_record() -> None:
    throttle = AuthThrottle(limit=2, now=lambda: 0.0)
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
