"""Pushing events over the WebSocket: batched deltas, stored before pushed, gone clients dropped."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws

from core.turn.runstore import MemoryRunStore
from functions.aws.push import MAX_MESSAGE_BYTES, ConnectionPusher, encode_message
from functions.aws.sink import PushingSink

pytestmark = pytest.mark.functional
ENDPOINT = "https://abc.execute-api.us-east-1.amazonaws.com/live"


class RecordingClient:
    """Stands in for the management API: records what each connection received."""

    def __init__(self) -> None:
        self.sent: dict[str, list[dict[str, Any]]] = {}
        self.exceptions = boto3.client(
            "apigatewaymanagementapi", region_name="us-east-1", endpoint_url=ENDPOINT
        ).exceptions

    def post_to_connection(self, ConnectionId: str, Data: bytes) -> None:
        self.sent.setdefault(ConnectionId, []).append(json.loads(Data))


class Ticks:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def client() -> RecordingClient:
    return RecordingClient()


def sink(runs: MemoryRunStore, pusher: ConnectionPusher | None, ticks: Ticks) -> PushingSink:
    return PushingSink(runs, "t1", "respond", 1, pusher=pusher, monotonic=ticks)


def test_deltas_arriving_together_become_one_event(client: RecordingClient) -> None:
    runs, ticks = MemoryRunStore(), Ticks()
    s = sink(runs, ConnectionPusher(client, ["c1"]), ticks)
    s.emit("step.started", label="Thinking")
    for piece in ["Hel", "lo", " there"]:
        s.emit("text.delta", text=piece)
    ticks.now = 0.3
    s.emit("text.delta", text="!")  # due: flushes the joined delta
    s.emit("reasoning.delta", text="hmm")  # another kind starts a new event
    s.emit("step.done", label="Thinking")
    stored = runs.events("t1")
    assert [(e["seq"], e["type"], e.get("text")) for e in stored] == [
        (1, "step.started", None),
        (2, "text.delta", "Hello there!"),
        (3, "reasoning.delta", "hmm"),
        (4, "step.done", None),
    ]
    assert client.sent["c1"] == stored


def test_nothing_is_pushed_that_is_not_stored(client: RecordingClient) -> None:
    runs, ticks = MemoryRunStore(), Ticks()
    s = sink(runs, ConnectionPusher(client, ["c1"]), ticks)
    s.emit("text.delta", text="a")
    assert client.sent == {} and runs.events("t1") == []
    ticks.now = 1.0
    s.emit("text.delta", text="b")
    assert client.sent["c1"] == runs.events("t1")


def test_a_retried_step_numbers_on_after_what_was_stored(client: RecordingClient) -> None:
    runs, ticks = MemoryRunStore(), Ticks()
    first = sink(runs, None, ticks)
    first.emit("step.started", label="x")
    first.emit("text.delta", text="part")
    first.flush()
    second = PushingSink(runs, "t1", "respond", 2, monotonic=ticks)
    second.emit("step.started", label="x")
    assert [(e["seq"], e["attempt"]) for e in runs.events("t1")] == [(1, 1), (2, 1), (3, 2)]


def test_a_gone_client_is_dropped_and_never_fails_the_step() -> None:
    with mock_aws():
        real = boto3.client("apigatewaymanagementapi", region_name="us-east-1", endpoint_url=ENDPOINT)
        forgotten: list[str] = []
        with Stubber(real) as stub:
            stub.add_client_error(
                "post_to_connection", service_error_code="GoneException", http_status_code=410
            )
            stub.add_response("post_to_connection", {})
            pusher = ConnectionPusher(real, ["gone", "alive"], on_gone=forgotten.append)
            pusher.push([{"type": "step.started", "seq": 1}])
            pusher.push([{"type": "step.done", "seq": 2}])  # nothing left to call for "gone"
        assert forgotten == ["gone"] and pusher.connections == ["alive"]


def test_other_push_errors_are_logged_not_raised() -> None:
    real = boto3.client("apigatewaymanagementapi", region_name="us-east-1", endpoint_url=ENDPOINT)
    with Stubber(real) as stub:
        stub.add_client_error(
            "post_to_connection", service_error_code="LimitExceededException", http_status_code=429
        )
        pusher = ConnectionPusher(real, ["c1"])
        pusher.push([{"type": "step.started", "seq": 1}])
    assert pusher.connections == ["c1"]


def test_followers_join_the_push_list(client: RecordingClient) -> None:
    runs, ticks = MemoryRunStore(), Ticks()
    followers = ["late"]
    s = PushingSink(
        runs,
        "t1",
        "respond",
        1,
        pusher=ConnectionPusher(client, [None]),
        followers=lambda: followers,
        monotonic=ticks,
    )
    s.emit("step.started", label="x")
    assert client.sent["late"][0]["seq"] == 1


def test_an_oversized_event_travels_as_a_marked_envelope() -> None:
    event = {
        "turn_id": "t1",
        "seq": 7,
        "type": "tool.call",
        "step": "tools",
        "attempt": 1,
        "item": 2,
        "output": "x" * 200_000,
    }
    data = encode_message(event)
    assert len(data) < MAX_MESSAGE_BYTES
    assert json.loads(data) == {
        "turn_id": "t1",
        "seq": 7,
        "type": "tool.call",
        "step": "tools",
        "attempt": 1,
        "item": 2,
        "truncated": True,
    }
