"""Authentication on every route: missing and wrong credentials, the access key, sessions, throttling."""

from __future__ import annotations

import dataclasses
import logging
import re

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from functions.api.security import SESSION_COOKIE, AuthThrottle
from tests.functional.api_env import KEY, make_env, same_origin, with_key

pytestmark = pytest.mark.functional

OPEN_ROUTES = {"/api/health", "/api/auth/session", "/api/auth/sign-in", "/api/auth/sign-out"}
SAMPLE_PARAMS = {
    "slice_id": "2026-08-11-1115",
    "turn_id": "turn00001",
    "section": "now",
    "n": "1",
    "name": "turn00001-1.png",
}
SAMPLE_PARAMS |= {"hypothesis_id": "h1", "agent": "recall", "target": "direction"}  # the evolution routes
SAMPLE_PARAMS |= {"run_id": "r1"}  # an evolve-now run
SAMPLE_PARAMS |= {"version_id": "000001-20261203T125350Z-user-0a1b2c3d"}  # a card version


def _api_routes(client: TestClient) -> list[tuple[str, str]]:
    """Every HTTP route the OpenAPI schema lists, with sample path parameters filled in."""
    out = []
    for template, operations in client.get("/openapi.json", headers=with_key()).json()["paths"].items():
        path = re.sub(r"\{(\w+)\}", lambda m: SAMPLE_PARAMS[m.group(1)], template)
        out += [(method.upper(), path) for method in sorted(operations)]
    return out


def _call(client: TestClient, method: str, path: str, headers: dict[str, str]) -> int:
    body = {"message": "hi"} if path == "/api/turns" else {"text": "x"} if method == "PATCH" else None
    if path.startswith("/api/search"):
        path += "?q=flights"
    return client.request(method, path, json=body, headers={**same_origin(), **headers}).status_code


def test_every_data_route_refuses_without_and_with_wrong_credentials() -> None:
    env = make_env(required=True)
    routes = _api_routes(env.client)
    assert len(routes) >= 17
    for method, path in routes:
        if path in OPEN_ROUTES:
            continue
        assert _call(env.client, method, path, {}) == 401, (method, path)
        env.deps.security.throttle = AuthThrottle()  # one wrong key per route: under the limit
        assert _call(env.client, method, path, with_key("wrong")) == 401, (method, path)
        env.client.cookies.set(SESSION_COOKIE, "forged.token.value")
        assert _call(env.client, method, path, {}) == 401, (method, path)
        env.client.cookies.clear()
    assert env.turns.started == []


def test_guessing_the_key_in_the_header_is_throttled() -> None:
    env = make_env(required=True)
    codes = [_call(env.client, "GET", "/api/state", with_key(f"guess-{i}")) for i in range(30)]
    assert codes[:5] == [401] * 5 and set(codes[5:]) == {429}
    r = env.client.get("/api/state", headers=with_key("guess-x"))
    assert r.status_code == 429 and int(r.headers["retry-after"]) > 0
    assert "Too many wrong access keys" in r.json()["message"]


def test_a_spoofed_forwarded_for_does_not_pick_the_bucket() -> None:
    env = make_env(required=True)
    for i in range(6):
        _call(env.client, "GET", "/api/state", {**with_key("guess"), "x-forwarded-for": f"10.9.9.{i}"})
    assert _call(env.client, "GET", "/api/state", {**with_key("guess"), "x-forwarded-for": "10.1.1.1"}) == 429


def test_every_data_route_passes_with_the_key() -> None:
    env = make_env(required=True)
    for method, path in _api_routes(env.client):
        assert _call(env.client, method, path, with_key()) not in (401, 403), (method, path)


def test_health_is_open_and_the_error_body_says_what_to_do() -> None:
    env = make_env(required=True)
    assert env.client.get("/api/health").json()["ok"] is True
    r = env.client.get("/api/state")
    assert r.status_code == 401
    assert r.json()["error"] == "unauthorized"
    assert "x-access-key" in r.json()["message"]


def test_sign_in_sets_a_strict_http_only_cookie_that_opens_the_routes() -> None:
    env = make_env(required=True)
    r = env.client.post("/api/auth/sign-in", json={"key": KEY}, headers=same_origin())
    assert r.status_code == 200
    cookie = r.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Secure" not in cookie
    assert KEY not in cookie
    assert env.client.get("/api/state").status_code == 200
    assert env.client.get("/api/auth/session").json() == {
        "auth_required": True,
        "signed_in": True,
        "key_configured": True,
    }
    env.client.post("/api/auth/sign-out", headers=same_origin())
    assert env.client.get("/api/state").status_code == 401


def test_cookie_is_secure_behind_https() -> None:
    env = make_env(required=True)
    headers = {**same_origin(), "x-forwarded-proto": "https"}
    r = env.client.post("/api/auth/sign-in", json={"key": KEY}, headers=headers)
    assert "Secure" in r.headers["set-cookie"]


def test_wrong_key_sign_in_is_refused_then_throttled() -> None:
    env = make_env(required=True)
    for _ in range(5):
        r = env.client.post("/api/auth/sign-in", json={"key": "guess"}, headers=same_origin())
        assert r.status_code == 401
    r = env.client.post("/api/auth/sign-in", json={"key": KEY}, headers=same_origin())
    assert r.status_code == 429
    assert int(r.headers["retry-after"]) > 0
    assert "set-cookie" not in r.headers


def test_sign_in_from_another_site_is_refused() -> None:
    env = make_env(required=True)
    r = env.client.post("/api/auth/sign-in", json={"key": KEY}, headers={"origin": "https://evil.example"})
    assert r.status_code == 403


def test_session_from_an_old_key_is_refused() -> None:
    old = make_env(required=True, key="old key")
    old.client.post("/api/auth/sign-in", json={"key": "old key"}, headers=same_origin())
    token = old.client.cookies.get(SESSION_COOKIE)
    new = make_env(required=True, key="new key")
    new.client.cookies.set(SESSION_COOKIE, token or "")
    assert new.client.get("/api/state").status_code == 401


def test_loopback_without_require_auth_is_open_and_mutations_still_guarded() -> None:
    env = make_env(required=False)
    assert env.client.get("/api/state").status_code == 200
    r = env.client.post("/api/turns", json={"message": "hi"}, headers={"origin": "https://evil.example"})
    assert r.status_code == 403
    assert env.turns.started == []
    r = env.client.post("/api/turns", json={"message": "hi"}, headers=same_origin())
    assert r.status_code == 202


def test_required_auth_without_a_key_says_how_to_configure() -> None:
    env = make_env(required=True, key=None)
    r = env.client.get("/api/state", headers=with_key("anything"))
    assert r.status_code == 503
    assert "PREVIOUSLY_ACCESS_KEY" in r.json()["message"]


def test_websocket_needs_credentials() -> None:
    env = make_env(required=True)
    with pytest.raises(WebSocketDisconnect), env.client.websocket_connect("/api/ws") as ws:
        ws.receive_text()
    with (
        pytest.raises(WebSocketDisconnect),
        env.client.websocket_connect("/api/ws", headers=with_key("x")) as ws,
    ):
        ws.receive_text()
    with env.client.websocket_connect("/api/ws", headers=with_key()) as ws:
        ws.send_json({"action": "turn.follow", "turn_id": "nope", "after": 0})
        assert ws.receive_json()["error"] == "not_found"


def test_a_binary_websocket_frame_gets_an_error_and_the_connection_stays() -> None:
    env = make_env(required=True)
    with env.client.websocket_connect("/api/ws", headers=with_key()) as ws:
        ws.send_bytes(b"\x00\x01binary")
        reply = ws.receive_json()
        assert (
            reply["type"] == "error" and reply["error"] == "invalid_input" and "JSON text" in reply["message"]
        )
        ws.send_json({"action": "turn.follow", "turn_id": "nope", "after": 0})
        assert ws.receive_json()["error"] == "not_found"


@pytest.mark.parametrize("path", ["/docs", "/openapi.json", "/redoc"])
def test_the_api_description_is_for_signed_in_callers_when_sign_in_is_required(path: str) -> None:
    env = make_env(required=True)
    assert env.client.get(path).status_code == 401
    assert env.client.get(path, headers=with_key()).status_code == 200
    assert make_env(required=False).client.get(path).status_code == 200


def test_websocket_from_another_site_is_refused() -> None:
    env = make_env(required=False)
    headers = {"origin": "https://evil.example"}
    with pytest.raises(WebSocketDisconnect), env.client.websocket_connect("/api/ws", headers=headers) as ws:
        ws.receive_text()


def test_no_secret_reaches_the_log(caplog: pytest.LogCaptureFixture) -> None:
    env = make_env(required=True)
    with caplog.at_level(logging.DEBUG):
        env.client.post("/api/auth/sign-in", json={"key": "wrong guess"}, headers=same_origin())
        env.client.post("/api/auth/sign-in", json={"key": KEY}, headers=same_origin())
        env.client.get("/api/state", headers=with_key())
        env.client.get("/api/state", headers=with_key("wrong guess"))
    text = caplog.text
    assert KEY not in text and "wrong guess" not in text


def test_cors_is_closed_unless_configured() -> None:
    closed = make_env()
    r = closed.client.get("/api/health", headers={"origin": "https://other.example"})
    assert "access-control-allow-origin" not in r.headers
    from functions.api.app import create_app

    open_env = make_env()
    guard = dataclasses.replace(open_env.deps.security.request_guard, cors_origins=("https://other.example",))
    open_env.deps.security.request_guard = guard
    client = TestClient(create_app(open_env.deps))
    r = client.options(
        "/api/state",
        headers={"origin": "https://other.example", "access-control-request-method": "GET"},
    )
    assert r.headers["access-control-allow-origin"] == "https://other.example"
    r = client.get("/api/health", headers={"origin": "https://third.example"})
    assert "access-control-allow-origin" not in r.headers


def test_settings_refuse_a_malformed_cors_origin() -> None:
    from core.errors import InvalidInput
    from functions.settings import load_settings

    with pytest.raises(InvalidInput, match="PREVIOUSLY_CORS_ORIGINS"):
        load_settings(PREVIOUSLY_CORS_ORIGINS="not an origin")
    assert load_settings(PREVIOUSLY_CORS_ORIGINS="https://a.example, http://b:8000").cors_origin_list == (
        "https://a.example",
        "http://b:8000",
    )


def test_websocket_accepts_the_session_cookie_from_the_same_origin() -> None:
    env = make_env(required=True)
    env.client.post("/api/auth/sign-in", json={"key": KEY}, headers=same_origin())
    token = env.client.cookies.get(SESSION_COOKIE)
    headers = {**same_origin(), "cookie": f"{SESSION_COOKIE}={token}"}
    with env.client.websocket_connect("/api/ws", headers=headers) as ws:
        ws.send_json({"action": "turn.start", "message": "hi"})
        assert ws.receive_json()["type"] == "turn.accepted"
