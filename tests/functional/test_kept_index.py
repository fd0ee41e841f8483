"""`/api/search` and `/mcp` answer from one index the server keeps open, loaded once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from functions.compose.local import build_deps
from functions.server import ServeOptions, build_app
from functions.settings import load_settings
from tests.conftest import SAMPLE_ROOT

pytestmark = pytest.mark.functional
MCP = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _call(client: TestClient, name: str, arguments: dict[str, object]) -> object:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    reply = client.post("/mcp", json=body, headers=MCP)
    assert reply.status_code == 200, reply.text
    return json.loads(reply.json()["result"]["content"][0]["text"])


def test_search_and_mcp_share_the_kept_index() -> None:
    settings = load_settings(STORAGE="local", PREVIOUSLY_ACCESS_KEY="")
    deps = build_deps(settings, memory_override=Path(SAMPLE_ROOT), require_auth=False)
    client = TestClient(
        build_app(deps, ServeOptions(require_auth=False, maintenance_minutes=0)),
        base_url="http://127.0.0.1:8000",
    )
    first = client.get("/api/search", params={"q": "Chengdu flights"}).json()["hits"]
    assert "2026-11-21-1040" in [h["slice_id"] for h in first]
    for _ in range(3):
        assert client.get("/api/search", params={"q": "Chengdu flights"}).json()["hits"] == first
    found = _call(client, "search", {"q": "Chengdu flights", "k": 10})
    assert "2026-11-21-1040" in json.dumps(found)
    assert deps.kept_index.get().opens == 1  # one load of the stored index for all five questions


def test_a_search_makes_one_trip_to_a_worker_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Routing, sign-in and the answer's model on the event loop, the search itself on one worker:
    each sync dependency was another trip, and on a busy machine those cost more than the
    question on the kept index (issue 33 item 2; `python -m bench warm`)."""
    import anyio.to_thread

    trips: list[object] = []
    real = anyio.to_thread.run_sync

    async def counted(func: object, *args: object, **kwargs: object) -> object:
        trips.append(func)
        return await real(func, *args, **kwargs)  # type: ignore[arg-type]

    settings = load_settings(STORAGE="local", PREVIOUSLY_ACCESS_KEY="")
    deps = build_deps(settings, memory_override=Path(SAMPLE_ROOT), require_auth=False)
    client = TestClient(
        build_app(deps, ServeOptions(require_auth=False, maintenance_minutes=0)),
        base_url="http://127.0.0.1:8000",
    )
    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    hits = client.get("/api/search", params={"q": "Chengdu flights"}).json()["hits"]
    assert "2026-11-21-1040" in [h["slice_id"] for h in hits]
    assert hits[0]["focus"]  # the catalog's entry still fills the hit
    assert len(trips) == 1
