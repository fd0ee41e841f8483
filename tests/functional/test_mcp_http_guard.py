"""`/mcp` refuses like the rest of the API before the MCP layer reads anything, and never hangs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from functions.compose.local import build_deps
from functions.server import ServeOptions, build_app
from functions.settings import load_settings
from tests.conftest import SAMPLE_ROOT

pytestmark = pytest.mark.functional
KEY = "guard test key, long and random"
MCP = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


def client(*, auth: bool, base_url: str = "http://127.0.0.1:8000") -> TestClient:
    settings = load_settings(
        STORAGE="local",
        PREVIOUSLY_ACCESS_KEY=KEY if auth else "",
        PREVIOUSLY_PUBLIC_HOSTS="previously.example",
    )
    deps = build_deps(settings, memory_override=Path(SAMPLE_ROOT), require_auth=auth)
    return TestClient(
        build_app(deps, ServeOptions(require_auth=auth, maintenance_minutes=0)), base_url=base_url
    )


def post(c: TestClient, body: Any = LIST, **headers: str) -> Any:
    return c.post("/mcp", json=body, headers={**MCP, **headers})


def test_the_key_is_checked_first() -> None:
    c = client(auth=True, base_url="https://previously.example")
    for headers in ({}, {"x-access-key": "wrong"}):
        r = post(c, **headers)
        assert r.status_code == 401 and r.json()["error"] == "unauthorized"
    ok = post(c, **{"x-access-key": KEY})
    assert ok.status_code == 200 and ok.headers["content-type"].startswith("application/json")
    assert [t["name"] for t in ok.json()["result"]["tools"]][:2] == ["recall", "read_slice"]


def test_a_session_cookie_works_as_for_every_route() -> None:
    c = client(auth=True, base_url="https://previously.example")
    signed = c.post("/api/auth/sign-in", json={"key": KEY}, headers={"origin": "https://previously.example"})
    assert signed.status_code == 200
    r = post(c, origin="https://previously.example")
    assert r.status_code == 200 and "result" in r.json()


def test_other_methods_are_refused_at_once_rather_than_held_open() -> None:
    c = client(auth=False)
    for method in ("GET", "DELETE", "PUT"):
        r = c.request(method, "/mcp", headers=MCP)
        assert r.status_code == 405 and r.headers["allow"] == "POST"
        assert r.json()["error"] == "method_not_allowed"


def test_bad_bodies_get_protocol_errors_and_oversized_ones_the_api_limit() -> None:
    c = client(auth=False)
    parse = c.post("/mcp", content=b"{not json", headers=MCP)
    assert parse.status_code == 400 and parse.json()["error"]["code"] == -32700
    big = c.post("/mcp", content=b"x" * (3 * 1024 * 1024), headers=MCP)
    assert big.status_code == 413 and big.json()["error"] == "too_large"


def test_without_sign_in_only_this_machine_may_call() -> None:
    assert post(client(auth=False)).status_code == 200
    assert post(client(auth=False), origin="http://evil.example").status_code == 403
    assert post(client(auth=False, base_url="http://evil.example")).status_code == 421  # DNS rebinding


def test_a_401_challenges_for_a_bearer_token_and_the_bearer_key_is_accepted() -> None:
    c = client(auth=True)
    r = post(c)
    assert r.status_code == 401 and r.headers["www-authenticate"] == 'Bearer realm="previously"'
    wrong = post(c, authorization="Bearer not the key")
    assert wrong.status_code == 401
    assert wrong.headers["www-authenticate"] == 'Bearer realm="previously", error="invalid_token"'
    ok = post(c, authorization=f"Bearer {KEY}")
    assert ok.status_code == 200 and "result" in ok.json()


def test_strangers_wrong_keys_throttle_them_and_not_the_owner() -> None:
    c = client(auth=True)
    app = c.app
    for i in range(6):
        stranger = TestClient(app, base_url="http://127.0.0.1:8000", client=(f"198.51.100.{i}", 5000))
        for _ in range(5):
            assert post(stranger, authorization="Bearer a guess").status_code == 401
        assert post(stranger, authorization="Bearer a guess").status_code == 429  # throttled: itself
    owner = TestClient(app, base_url="http://127.0.0.1:8000", client=("192.0.2.10", 5000))
    assert post(owner, authorization=f"Bearer {KEY}").status_code == 200
