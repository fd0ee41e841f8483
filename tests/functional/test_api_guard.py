"""The trust boundary, tried as a hostile web page would (docs/API.md "Authentication"): another
site's page, a hostile host name resolved to 127.0.0.1, simple cross-site bodies, forged
forwarded headers, and a burst of guesses — on the default server (loopback, no key) too."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from functions.api.app import create_app
from tests.functional.api_env import HOST, KEY, ApiEnv, make_env, same_origin, with_key

pytestmark = pytest.mark.functional

EVIL = "https://evil.example"
CHANGES = [
    ("POST", "/api/turns", {"message": "hi"}),
    ("POST", "/api/evolution/run", None),
    ("POST", "/api/episodic/flush", None),
    ("PATCH", "/api/config", {"timezone": "UTC"}),
]


def open_server() -> ApiEnv:
    """`make run`: 127.0.0.1, no access key."""
    return make_env(key=None, required=False)


def _nothing_happened(env: ApiEnv) -> None:
    assert env.turns.started == [] and env.files() == {}


@pytest.mark.parametrize(("method", "path", "body"), CHANGES)
def test_another_sites_page_changes_nothing_on_a_server_without_a_key(
    method: str, path: str, body: object
) -> None:
    env = open_server()
    r = env.client.request(method, path, json=body, headers={"origin": EVIL})
    assert r.status_code == 403 and r.json()["error"] == "forbidden", r.text
    _nothing_happened(env)


def test_a_foreign_websocket_is_refused_before_any_turn() -> None:
    env = open_server()
    with (
        pytest.raises(WebSocketDisconnect),
        env.client.websocket_connect("/api/ws", headers={"origin": EVIL}) as ws,
    ):
        ws.send_json({"action": "turn.start", "message": "read me the card"})
        ws.receive_json()
    _nothing_happened(env)


def test_the_own_page_and_a_script_still_pass_without_a_key() -> None:
    env = open_server()
    assert env.client.post("/api/turns", json={"message": "hi"}, headers=same_origin()).status_code == 202
    assert env.client.post("/api/turns", json={"message": "again"}).status_code == 202  # curl
    with env.client.websocket_connect("/api/ws", headers=same_origin()) as ws:
        ws.send_json({"action": "turn.start", "message": "by socket"})
        assert ws.receive_json()["type"] == "turn.accepted"


@pytest.mark.parametrize("site", ["same-site", "cross-site"])
def test_fetch_metadata_other_than_same_origin_is_refused(site: str) -> None:
    env = open_server()
    r = env.client.post("/api/turns", json={"message": "hi"}, headers={"sec-fetch-site": site})
    assert r.status_code == 403
    r = env.client.post(
        "/api/turns", json={"message": "hi"}, headers={**same_origin(), "sec-fetch-site": site}
    )
    assert r.status_code == 403
    _nothing_happened(env)


def test_a_spoofed_forwarded_host_does_not_make_another_site_the_same_origin() -> None:
    env = open_server()
    headers = {"origin": EVIL, "x-forwarded-host": "evil.example"}
    assert env.client.post("/api/turns", json={"message": "hi"}, headers=headers).status_code == 403
    _nothing_happened(env)


@pytest.mark.parametrize(
    "path", ["/api/evolution/run", "/api/import/accept?format=chatgpt&digest=" + "0" * 64]
)
@pytest.mark.parametrize("media", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"])
def test_a_simple_cross_site_body_is_refused(path: str, media: str) -> None:
    env = open_server()
    hostile = {"origin": EVIL, "content-type": media}
    assert env.client.post(path, content=b'{"a": 1}', headers=hostile).status_code in (403, 415)
    r = env.client.post(path, content=b'{"a": 1}', headers={**same_origin(), "content-type": media})
    assert r.status_code == 415 and r.json()["error"] == "unsupported_media_type"
    assert "application/json" in r.json()["message"]
    _nothing_happened(env)


def test_an_import_upload_as_the_page_sends_it_still_passes_the_guard() -> None:
    env = open_server()
    headers = {**same_origin(), "content-type": "application/octet-stream"}
    r = env.client.post("/api/import/preview?format=jsonl", content=b"", headers=headers)
    assert r.status_code not in (403, 415), r.text


@pytest.mark.parametrize(
    "path", ["/api/export", "/api/card", "/api/timeline", "/api/state", "/", "/api/health"]
)
def test_a_rebound_host_name_reads_nothing(path: str) -> None:
    env = open_server()
    r = env.client.get(path, headers={"host": "evil.example"})
    assert r.status_code == 421 and r.json()["error"] == "misdirected_request"
    assert "PREVIOUSLY_PUBLIC_HOSTS" in r.json()["message"]


def test_a_rebound_host_name_reaches_no_websocket_and_no_mcp() -> None:
    env = open_server()
    with (
        pytest.raises(WebSocketDisconnect),
        env.client.websocket_connect("/api/ws", headers={"host": "evil.example"}),
    ):
        pass
    assert env.client.post("/mcp", json={}, headers={"host": "evil.example"}).status_code == 421


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:5173", "[::1]:8000", "LOCALHOST"])
def test_loopback_names_on_any_port_are_answered(host: str) -> None:
    env = open_server()
    assert env.client.get("/api/health", headers={"host": host}).status_code == 200


def test_the_forwarded_host_is_believed_behind_cloudfront_only() -> None:
    env = open_server()
    spoof = {"host": "127.0.0.1:8000", "x-forwarded-host": "evil.example"}
    assert env.client.get("/api/health", headers=spoof).status_code == 200  # Host is what counts
    from functions.api.guard import RequestGuard

    env.deps.security.request_guard = RequestGuard.build(("site.example",), behind_cloudfront=True)
    behind = TestClient(create_app(env.deps), base_url="https://abc.execute-api.example")
    assert behind.get("/api/health", headers={"x-forwarded-host": "site.example"}).status_code == 200
    assert behind.get("/api/health", headers={"x-forwarded-host": "evil.example"}).status_code == 421


def _burst(client_for: object, n: int) -> Counter[int]:
    statuses: Counter[int] = Counter()
    start = threading.Barrier(n)

    def guess(i: int) -> None:
        client = client_for(i)  # type: ignore[operator]
        start.wait()
        r = client.post("/api/auth/sign-in", json={"key": f"wrong guess {i}"}, headers=same_origin())
        statuses[r.status_code] += 1

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return statuses


def test_forty_guesses_at_once_from_one_address_are_judged_at_most_five_times() -> None:
    env = make_env(required=True)
    statuses = _burst(lambda i: env.client, 40)
    assert statuses[401] <= 5 and statuses[401] + statuses[429] == 40, statuses


def test_strangers_failures_never_lock_out_the_owner() -> None:
    env = make_env(required=True)
    app = env.client.app

    def from_address(address: str) -> TestClient:
        return TestClient(app, base_url=f"http://{HOST}", client=(address, 40000))

    for i in range(110):  # past any lock-out of everyone
        stranger = from_address(f"198.51.100.{i}")
        r = stranger.post("/api/auth/sign-in", json={"key": "a guess"}, headers=same_origin())
        assert r.status_code == 401
    owner = from_address("192.0.2.10")
    assert owner.post("/api/auth/sign-in", json={"key": KEY}, headers=same_origin()).status_code == 200
    assert from_address("192.0.2.11").get("/api/state", headers=with_key()).status_code == 200
