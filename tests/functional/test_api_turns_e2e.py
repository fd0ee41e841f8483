"""Turns end to end through the API with the real in-process runner, a local memory folder and the
fake model server: two messages at once to one slice, and a reconnect in the middle of a turn."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from core.clock import FixedClock
from core.memory.paths import core_md
from core.memory.slice.model import parse_core_md
from core.storage.local import LocalStorage
from core.turn.runstore import status_of
from functions.api.app import create_app
from tests.fakes.fake_model_server import FakeModelServer, Reply
from tests.fakes.live_server import live_server
from tests.functional.api_env import harness_deps, same_origin, with_key
from tests.functional.turn_support import Harness, make_harness

pytestmark = pytest.mark.functional


@pytest.fixture
def harness(tmp_path: Path, fake_models: FakeModelServer) -> Harness:
    return make_harness(LocalStorage(tmp_path), FixedClock.at("2026-08-11T11:15:00.000Z"), fake_models)


def _wait_done(http: httpx.Client, turn_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        view = http.get(f"/api/turns/{turn_id}", params={"wait": 5}).json()
        if view["status"] != "running":
            return http.get(f"/api/turns/{turn_id}").json()
    raise AssertionError(f"turn {turn_id} did not finish")


def test_two_messages_at_once_to_one_slice_are_both_kept_in_order(harness: Harness, tmp_path: Path) -> None:
    assert harness.brain is not None
    harness.brain.main("First reply.", "Reply one.", "Reply two.")
    with (
        live_server(create_app(harness_deps(harness))) as url,
        httpx.Client(base_url=url, headers=with_key(), timeout=60) as http,
    ):
        first = http.post("/api/turns?wait=20", json={"message": "Opening the slice."}).json()
        assert first["status"] == "done", first
        slice_id = first["slice_id"]
        body = {"client": {"slice_id": slice_id, "agent_turns_seen": 1}}
        ids: list[str] = []

        def send(text: str) -> None:
            ids.append(http.post("/api/turns", json={"message": text, **body}).json()["turn_id"])

        senders = [threading.Thread(target=send, args=(t,)) for t in ("Message A", "Message B")]
        for t in senders:
            t.start()
        for t in senders:
            t.join()
        views = [_wait_done(http, turn_id) for turn_id in ids]
    assert [v["status"] for v in views] == ["done", "done"]
    assert {v["slice_id"] for v in views} == {slice_id}
    text = LocalStorage(tmp_path).snapshot().read(core_md(slice_id))
    turns = parse_core_md(text or "").turns
    users = [t.content for t in turns if t.role == "user"]
    agents = [t.content for t in turns if t.role == "agent"]
    assert users[0] == "Opening the slice." and sorted(users[1:]) == ["Message A", "Message B"]
    assert sorted(agents) == ["First reply.", "Reply one.", "Reply two."]
    position = {(t.turn_id, t.role): i for i, t in enumerate(turns)}
    for t in turns:
        if t.role == "agent":
            assert position[(t.turn_id, "user")] < position[(t.turn_id, "agent")]


def test_reconnect_mid_turn_gets_exactly_the_missed_events(harness: Harness) -> None:
    assert harness.brain is not None
    harness.brain.main(Reply(text="A reply that takes its time to arrive.", delay=1.5))
    app = create_app(harness_deps(harness))
    from fastapi.testclient import TestClient

    client = TestClient(app, base_url="http://testserver")
    headers = {**with_key(), **same_origin()}
    with client.websocket_connect("/api/ws", headers=headers) as ws:
        ws.send_json({"action": "turn.start", "message": "Tell me something.", "timezone": "Europe/Berlin"})
        turn_id = ws.receive_json()["turn_id"]
        seen = [ws.receive_json()]
        while seen[-1]["type"] != "turn.started":
            seen.append(ws.receive_json())
    last = seen[-1]["seq"]
    assert status_of(harness.runs.events(turn_id)) == "running"
    with client.websocket_connect("/api/ws", headers=headers) as ws:
        ws.send_json({"action": "turn.follow", "turn_id": turn_id, "after": last})
        rest = [ws.receive_json()]
        while rest[-1]["type"] not in ("turn.done", "turn.error"):
            rest.append(ws.receive_json())
    assert harness.service.join(turn_id, 30)
    stored = harness.runs.events(turn_id)
    done = next(e["seq"] for e in stored if e["type"] == "turn.done")
    assert [e["seq"] for e in seen] == list(range(1, last + 1))
    assert rest == [e for e in stored if last < e["seq"] <= done]
    assert [e["seq"] for e in rest] == list(range(last + 1, done + 1))
    http_view = client.get(f"/api/turns/{turn_id}?after={last}", headers=with_key()).json()
    assert http_view["events"] == [e for e in stored if e["seq"] > last]
    assert http_view["reply"] == "A reply that takes its time to arrive."
