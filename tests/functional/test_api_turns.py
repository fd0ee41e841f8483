"""Turns over HTTP and the WebSocket, against a scripted TurnService and a real in-memory run store."""

from __future__ import annotations

import threading
import time

import pytest

from core.errors import NoModelConfigured
from tests.fakes.fake_turns import ScriptedTurns
from tests.functional.api_env import make_env, same_origin

pytestmark = pytest.mark.functional


def test_post_answers_202_with_the_turn_id_and_passes_the_request_on() -> None:
    env = make_env()
    body = {
        "message": "Where were we?",
        "timezone": "europe/lisbon",
        "client": {"slice_id": "2026-08-11-1100", "agent_turns_seen": 3},
        "effort": "high",
    }
    r = env.client.post("/api/turns", json=body, headers=same_origin())
    assert r.status_code == 202
    assert r.json() == {"turn_id": "turn00001"}
    sent = env.turns.started[0]
    assert (sent.message, sent.timezone, sent.client_slice_id, sent.agent_turns_seen, sent.effort) == (
        "Where were we?",
        "Europe/Lisbon",
        "2026-08-11-1100",
        3,
        "high",
    )


def test_wait_answers_200_with_the_finished_turn() -> None:
    env = make_env()
    r = env.client.post("/api/turns?wait=5", json={"message": "hi"}, headers=same_origin())
    assert r.status_code == 200
    data = r.json()
    assert data["status"] == "done" and data["reply"] == "Hello back."
    assert [e["seq"] for e in data["events"]] == [1, 2, 3, 4]
    assert data["events"][-1]["type"] == "turn.done"


def test_wait_that_runs_out_answers_202() -> None:
    env = make_env(turns=ScriptedTurns(reply=None))
    started = time.monotonic()
    r = env.client.post("/api/turns?wait=0.3", json={"message": "hi"}, headers=same_origin())
    assert r.status_code == 202 and r.json() == {"turn_id": "turn00001"}
    assert time.monotonic() - started < 5


def test_wait_is_capped_at_25_seconds() -> None:
    env = make_env()
    r = env.client.post("/api/turns?wait=26", json={"message": "hi"}, headers=same_origin())
    assert r.status_code == 400
    assert env.turns.started == []


def test_get_after_returns_exactly_the_later_events() -> None:
    env = make_env()
    turn_id = env.client.post("/api/turns", json={"message": "hi"}, headers=same_origin()).json()["turn_id"]
    data = env.client.get(f"/api/turns/{turn_id}?after=2").json()
    assert [e["seq"] for e in data["events"]] == [3, 4]
    assert data["status"] == "done"
    assert env.client.get(f"/api/turns/{turn_id}?after=4").json()["events"] == []


def test_unknown_and_malformed_turn_ids() -> None:
    env = make_env()
    r = env.client.get("/api/turns/nope")
    assert r.status_code == 404 and r.json()["error"] == "not_found"
    assert env.client.get("/api/turns/bad%20id").status_code == 400
    assert env.client.get("/api/turns/turn00001?after=-1").status_code == 400
    # A turn id is never all digits (that reads as a legacy numbered turn): refused, not looked up.
    assert env.client.get("/api/turns/12345").status_code == 400
    assert env.client.post("/api/turns/12345/cancel", headers=same_origin()).status_code == 400


def test_unknown_timezone_is_refused_before_anything_starts() -> None:
    env = make_env()
    r = env.client.post(
        "/api/turns", json={"message": "hi", "timezone": "Mars/Olympus"}, headers=same_origin()
    )
    assert r.status_code == 400
    assert "IANA" in r.json()["message"]
    assert env.turns.started == []


def test_a_refused_start_maps_to_its_error() -> None:
    env = make_env(turns=ScriptedTurns(refuse=NoModelConfigured("Set OPENAI_API_KEY.")))
    r = env.client.post("/api/turns", json={"message": "hi"}, headers=same_origin())
    assert r.status_code == 503
    assert r.json() == {"error": "no_model", "message": "Set OPENAI_API_KEY."}


def test_websocket_start_streams_every_event_in_order() -> None:
    env = make_env()
    with env.client.websocket_connect("/api/ws", headers=same_origin()) as ws:
        ws.send_json({"action": "turn.start", "message": "hi"})
        assert ws.receive_json() == {"type": "turn.accepted", "turn_id": "turn00001"}
        events = [ws.receive_json() for _ in range(4)]
    assert [e["seq"] for e in events] == [1, 2, 3, 4]
    assert "".join(e["text"] for e in events if e["type"] == "text.delta") == "Hello back."


def test_websocket_reconnect_mid_turn_gets_exactly_the_missed_events() -> None:
    turns = ScriptedTurns(reply=None)
    env = make_env(turns=turns)
    with env.client.websocket_connect("/api/ws", headers=same_origin()) as ws:
        ws.send_json({"action": "turn.start", "message": "hi"})
        turn_id = ws.receive_json()["turn_id"]
        turns.emit(turn_id, "text.delta", text="one ")
        seen = [ws.receive_json(), ws.receive_json()]
    assert [e["seq"] for e in seen] == [1, 2]
    # While nobody listens, the turn goes on.
    turns.emit(turn_id, "text.delta", text="two ")
    turns.emit(turn_id, "text.delta", text="three")
    with env.client.websocket_connect("/api/ws", headers=same_origin()) as ws:
        ws.send_json({"action": "turn.follow", "turn_id": turn_id, "after": 2})
        missed = [ws.receive_json(), ws.receive_json()]
        threading.Timer(0.05, turns.finish, args=(turn_id, "")).start()
        rest = [ws.receive_json() for _ in range(3)]
    assert [(e["seq"], e.get("text")) for e in missed] == [(3, "two "), (4, "three")]
    assert [e["seq"] for e in rest] == [5, 6, 7] and rest[-1]["type"] == "turn.done"
    # The HTTP view agrees with what the socket delivered.
    assert [e["seq"] for e in env.client.get(f"/api/turns/{turn_id}?after=2").json()["events"]] == [
        3,
        4,
        5,
        6,
        7,
    ]


def test_websocket_bad_messages_get_an_error_and_the_socket_stays_open() -> None:
    env = make_env()
    with env.client.websocket_connect("/api/ws", headers=same_origin()) as ws:
        ws.send_text("{not json")
        assert ws.receive_json()["error"] == "invalid_request"
        ws.send_json({"action": "turn.start", "message": "hi", "extra": 1})
        assert ws.receive_json()["error"] == "invalid_request"
        ws.send_json({"action": "explode"})
        assert ws.receive_json()["error"] == "invalid_request"
        ws.send_json({"action": "turn.start", "message": "hi", "timezone": "Nowhere/Land"})
        assert ws.receive_json()["error"] == "invalid_input"
        ws.send_json({"action": "turn.start", "message": "ok"})
        assert ws.receive_json()["type"] == "turn.accepted"
    assert [t.message for t in env.turns.started] == ["ok"]


def test_two_followers_of_one_turn_see_the_same_events() -> None:
    turns = ScriptedTurns(reply=None)
    env = make_env(turns=turns)
    turn_id = env.client.post("/api/turns", json={"message": "hi"}, headers=same_origin()).json()["turn_id"]
    with (
        env.client.websocket_connect("/api/ws", headers=same_origin()) as a,
        env.client.websocket_connect("/api/ws", headers=same_origin()) as b,
    ):
        for ws in (a, b):
            ws.send_json({"action": "turn.follow", "turn_id": turn_id, "after": 0})
        threading.Timer(0.05, turns.finish, args=(turn_id, "ab")).start()
        got_a = [a.receive_json()["seq"] for _ in range(4)]
        got_b = [b.receive_json()["seq"] for _ in range(4)]
    assert got_a == got_b == [1, 2, 3, 4]


def test_get_with_wait_long_polls_until_something_new() -> None:
    turns = ScriptedTurns(reply=None)
    env = make_env(turns=turns)
    turn_id = env.client.post("/api/turns", json={"message": "hi"}, headers=same_origin()).json()["turn_id"]
    threading.Timer(0.2, turns.emit, args=(turn_id, "text.delta"), kwargs={"text": "late"}).start()
    started = time.monotonic()
    data = env.client.get(f"/api/turns/{turn_id}?after=1&wait=10").json()
    assert [e.get("text") for e in data["events"]] == ["late"]
    assert time.monotonic() - started < 8
    assert env.client.get(f"/api/turns/{turn_id}?after=2&wait=0.2").json()["events"] == []


def test_cancel_over_http_and_the_socket() -> None:
    turns = ScriptedTurns(reply=None)
    env = make_env(turns=turns)
    first = env.client.post("/api/turns", json={"message": "a"}, headers=same_origin()).json()["turn_id"]
    r = env.client.post(f"/api/turns/{first}/cancel", headers=same_origin())
    assert r.status_code == 202 and turns.cancelled == [first]
    assert env.client.get(f"/api/turns/{first}").json()["status"] == "interrupted"
    assert env.client.post("/api/turns/nope/cancel", headers=same_origin()).status_code == 404
    assert (
        env.client.post(f"/api/turns/{first}/cancel", headers={"origin": "https://evil.example"}).status_code
        == 403
    )
    with env.client.websocket_connect("/api/ws", headers=same_origin()) as ws:
        ws.send_json({"action": "turn.start", "message": "b"})
        second = ws.receive_json()["turn_id"]
        assert ws.receive_json()["type"] == "turn.started"
        ws.send_json({"action": "turn.cancel", "turn_id": second})
        done = ws.receive_json()
    assert done["type"] == "turn.done" and done["status"] == "interrupted"
