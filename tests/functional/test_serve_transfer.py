"""What the local server sends over the wire: text gzipped, nothing streamed held back, and a
Cache-Control on every static file (functions/api/site.py)."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from fastapi.responses import StreamingResponse
from fastapi.testclient import TestClient

from bench.bench_web import BUDGET_BYTES, WEB, served
from functions.api.limits import NO_STORE
from functions.api.site import IMMUTABLE, REVALIDATE
from functions.server import ServeOptions, build_app, prepare
from functions.settings import load_settings
from tests.fakes.fake_turns import ScriptedTurns
from tests.fakes.live_server import live_server
from tests.functional.api_env import make_env

pytestmark = pytest.mark.functional
LOCAL = "http://127.0.0.1:8000"  # a loopback Host: the guard answers any other name 421
OPTIONS = ServeOptions(demo=True, maintenance_minutes=0)
GZIP = {"Accept-Encoding": "gzip"}


def demo_app(web_dir: Path = WEB) -> FastAPI:
    return build_app(prepare(OPTIONS, load_settings()), OPTIONS, web_dir=web_dir)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(demo_app(), base_url=LOCAL) as c:
        yield c


@pytest.mark.parametrize("path", ["/", "/app/app.js", "/styles/base.css", "/manifest.json", "/api/timeline"])
def test_text_is_sent_gzipped(client: TestClient, path: str) -> None:
    response = client.get(path, headers=GZIP)
    assert response.status_code == 200
    assert response.headers["content-encoding"] == "gzip"
    assert "accept-encoding" in response.headers["vary"].lower()
    assert response.num_bytes_downloaded < len(response.content)


@pytest.mark.parametrize("path", ["/vendor/fonts/raleway-latin.woff2", "/icons/icon-512.png"])
def test_what_is_already_compressed_is_sent_as_it_is(client: TestClient, path: str) -> None:
    response = client.get(path, headers=GZIP)
    assert response.status_code == 200 and "content-encoding" not in response.headers


def test_a_client_that_accepts_no_gzip_gets_plain_text(client: TestClient) -> None:
    response = client.get("/app/app.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in response.headers


@pytest.mark.parametrize("path", ["/", "/index.html", "/sw.js", "/sign-in", "/app/app.js", "/manifest.json"])
def test_pages_worker_and_unhashed_files_are_revalidated(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.headers["cache-control"] == REVALIDATE
    etag = response.headers.get("etag")
    if etag and path != "/sign-in":
        assert client.get(path, headers={"If-None-Match": etag}).status_code == 304


@pytest.mark.parametrize("path", ["/api/timeline", "/api/state", "/api/card", "/api/demo/personas"])
def test_api_replies_are_never_stored(client: TestClient, path: str) -> None:
    """They hold the user's memory: no browser cache or proxy may keep a copy."""
    response = client.get(path, headers=GZIP)
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == NO_STORE


def test_refusals_are_never_stored_either(client: TestClient) -> None:
    missing = client.get("/api/slices/2001-01-01-0000")
    assert missing.status_code == 404 and missing.headers["cache-control"] == NO_STORE
    refused = client.get("/api/timeline", headers={"Host": "elsewhere.example"})  # the guard's 421
    assert refused.status_code == 421 and refused.headers["cache-control"] == NO_STORE
    assert client.get("/no/such/file.js").headers["cache-control"] == NO_STORE


def test_the_turn_stream_still_streams_through_compression() -> None:
    """Each event reaches the page while the turn is still running, not when it ends."""
    turns = ScriptedTurns(reply=None)
    env = make_env(turns=turns)
    app = build_app(env.deps, OPTIONS, web_dir=WEB)
    with (
        TestClient(app, base_url=LOCAL) as c,
        c.websocket_connect("ws://127.0.0.1:8000/api/ws", headers={"origin": LOCAL, **GZIP}) as ws,
    ):
        ws.send_json({"action": "turn.start", "message": "hi"})
        turn_id = ws.receive_json()["turn_id"]
        assert ws.receive_json()["type"] == "turn.started"
        turns.emit(turn_id, "text.delta", text="one ")
        assert ws.receive_json()["text"] == "one "  # while the turn still runs
        turns.emit(turn_id, "text.delta", text="two")
        assert ws.receive_json()["text"] == "two"
        turns.finish(turn_id, "")
        assert [ws.receive_json()["type"] for _ in range(3)][-1] == "turn.done"
        polled = c.get(f"/api/turns/{turn_id}", headers=GZIP)
    assert polled.headers["cache-control"] == NO_STORE
    assert [e["seq"] for e in polled.json()["events"]] == [1, 2, 3, 4, 5, 6]


def test_hashed_files_are_kept_a_year(tmp_path: Path) -> None:
    web = tmp_path / "web"
    shutil.copytree(WEB, web, ignore=shutil.ignore_patterns("tests", "node_modules"))
    (web / "app" / "chunk.3f9a1c2e5b.js").write_text("export const x = 1;\n", encoding="utf-8")
    with TestClient(demo_app(web), base_url=LOCAL) as c:
        assert c.get("/app/chunk.3f9a1c2e5b.js").headers["cache-control"] == IMMUTABLE
        assert c.get("/index.html").headers["cache-control"] == REVALIDATE


@pytest.mark.parametrize("media_type", ["text/event-stream", "application/x-ndjson"])
def test_a_stream_is_not_held_back_by_compression(media_type: str) -> None:
    """The first line arrives while the route still holds the second (as import progress and the
    MCP event stream need); the turn's own events go over the WebSocket, which gzip never sees."""
    release = threading.Event()

    def lines() -> Iterator[bytes]:
        yield b"data: first\n\n"
        release.wait(10)
        yield b"data: second\n\n"

    app = demo_app()

    @app.get("/_probe/stream")
    def probe() -> StreamingResponse:
        return StreamingResponse(lines(), media_type=media_type)

    app.router.routes.insert(0, app.router.routes.pop())  # ahead of the static mount at "/"
    with live_server(app) as url, httpx.stream("GET", f"{url}/_probe/stream", headers=GZIP, timeout=5) as r:
        first = next(r.iter_raw())
        release.set()
        assert b"first" in first and "content-encoding" not in r.headers


def test_the_first_load_as_served_is_within_budget(client: TestClient) -> None:
    """The figure README and docs/UI.md give: bytes on the wire, fonts apart."""
    code = [a for a in served(client) if not a.font]
    total = sum(a.gz for a in code)
    assert total < BUDGET_BYTES, f"first load as served: {total / 1024:.1f} KB"
    assert total < sum(a.raw for a in code) / 2, "the first load is sent compressed"
