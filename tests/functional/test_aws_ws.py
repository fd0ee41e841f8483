"""The WebSocket routes on Lambda: connect auth, start with the connection id, follow with replay."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import boto3
import pytest
from moto import mock_aws

from core.errors import InvalidInput, NotFound
from core.turn.service import TurnInput, TurnState
from functions.api.schemas import WsStart
from functions.aws.push import ConnectionPusher
from functions.aws.runstore import S3RunStore
from functions.aws.ws import WsRoutes, WsTarget, cookies_of, lower_headers

pytestmark = pytest.mark.functional


class Recorder:
    """The management API as seen by the pusher: what each connection received."""

    def __init__(self) -> None:
        self.sent: dict[str, list[dict[str, Any]]] = {}
        self.exceptions = boto3.client(
            "apigatewaymanagementapi", region_name="us-east-1", endpoint_url="https://x.example/live"
        ).exceptions

    def post_to_connection(self, ConnectionId: str, Data: bytes) -> None:
        self.sent.setdefault(ConnectionId, []).append(json.loads(Data))


@dataclass
class FakeTurns:
    """A TurnService that records starts and serves events from the run store."""

    runs: S3RunStore
    started: list[TurnInput] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)

    def start(self, request: TurnInput) -> str:
        self.started.append(request)
        self.runs.put("turn1", "request", request.to_json())
        return "turn1"

    def state(self, turn_id: str, after: int = 0) -> TurnState:
        if not self.runs.exists(turn_id):
            raise NotFound(f"No turn {turn_id!r}.")
        events = self.runs.events(turn_id)
        status = "done" if any(e["type"] == "turn.done" for e in events) else "running"
        return TurnState(turn_id, status, [e for e in events if e["seq"] > after])

    def cancel(self, turn_id: str) -> None:
        self.state(turn_id)
        self.cancelled.append(turn_id)


def ev(seq: int, type: str = "step.started") -> dict[str, Any]:
    return {"turn_id": "turn1", "seq": seq, "type": type, "step": "respond", "attempt": 1}


@pytest.fixture
def setup() -> Iterator[tuple[WsRoutes, FakeTurns, Recorder]]:
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="runs")
        runs = S3RunStore(s3, "runs")
        turns = FakeTurns(runs)
        recorder = Recorder()

        def admit(headers: Mapping[str, str], cookies: Mapping[str, str], peer: str | None) -> int:
            good = cookies.get("previously_session") == "good" or headers.get("x-access-key") == "key"
            return 200 if good else 401

        def to_input(action: WsStart) -> TurnInput:
            return TurnInput(message=action.message, timezone=action.timezone)

        routes = WsRoutes(turns, runs, lambda cid: ConnectionPusher(recorder, [cid]), admit, to_input)
        yield routes, turns, recorder


def event(route: str, body: Any = None, headers: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "requestContext": {"routeKey": route, "connectionId": "conn="},
        "headers": headers or {},
        "body": body if body is None or isinstance(body, str) else json.dumps(body),
    }


def test_connect_needs_the_session_cookie_or_the_key(setup: Any) -> None:
    routes, _, _ = setup
    assert (
        routes.handle(event("$connect", headers={"Cookie": "a=1; previously_session=good"}))["statusCode"]
        == 200
    )
    assert routes.handle(event("$connect", headers={"X-Access-Key": "key"}))["statusCode"] == 200
    assert routes.handle(event("$connect", headers={"Cookie": "previously_session=bad"}))["statusCode"] == 401
    assert routes.handle(event("$connect"))["statusCode"] == 401
    assert routes.handle(event("$disconnect"))["statusCode"] == 200


def test_start_passes_the_connection_and_acknowledges(setup: Any) -> None:
    routes, turns, recorder = setup
    body = {"action": "turn.start", "message": "hello", "timezone": "Europe/Lisbon"}
    assert routes.handle(event("turn.start", body))["statusCode"] == 200
    assert turns.started[0].connection_id == "conn=" and turns.started[0].message == "hello"
    assert recorder.sent["conn="] == [{"type": "turn.accepted", "turn_id": "turn1"}]


def test_bad_messages_get_an_error_message_not_a_failure(setup: Any) -> None:
    routes, turns, recorder = setup
    routes.handle(event("$default", "not json"))
    routes.handle(event("turn.start", {"action": "turn.start", "message": ""}))
    routes.handle(event("turn.follow", {"action": "turn.follow", "turn_id": "missing"}))
    errors = recorder.sent["conn="]
    assert [e["type"] for e in errors] == ["error"] * 3
    assert [e["error"] for e in errors] == ["invalid_request", "invalid_request", "not_found"]
    assert turns.started == []


def test_follow_replays_after_a_seq_and_registers_while_running(setup: Any) -> None:
    routes, turns, recorder = setup
    turns.runs.append("turn1", [ev(1), ev(2, "text.delta"), ev(3, "text.delta")])
    routes.handle(event("turn.follow", {"action": "turn.follow", "turn_id": "turn1", "after": 1}))
    assert [e["seq"] for e in recorder.sent["conn="]] == [2, 3]
    assert turns.runs.followers("turn1") == ["conn="]


def test_following_a_finished_turn_does_not_register(setup: Any) -> None:
    routes, turns, recorder = setup
    turns.runs.append("turn1", [ev(1), ev(2, "turn.done")])
    routes.handle(event("turn.follow", {"action": "turn.follow", "turn_id": "turn1"}))
    assert [e["seq"] for e in recorder.sent["conn="]] == [1, 2]
    assert turns.runs.followers("turn1") == []


def test_cancel_asks_the_turn_to_stop_and_an_unknown_turn_is_an_error(setup: Any) -> None:
    routes, turns, recorder = setup
    turns.runs.append("turn1", [ev(1)])
    assert (
        routes.handle(event("turn.cancel", {"action": "turn.cancel", "turn_id": "turn1"}))["statusCode"]
        == 200
    )
    assert turns.cancelled == ["turn1"] and "conn=" not in recorder.sent
    routes.handle(event("turn.cancel", {"action": "turn.cancel", "turn_id": "gone"}))
    assert [e["error"] for e in recorder.sent["conn="]] == ["not_found"]


def test_headers_and_cookies_are_read_leniently() -> None:
    headers = lower_headers({"headers": {"Cookie": "x=1; previously_session=abc", "Origin": "https://a"}})
    assert headers["origin"] == "https://a"
    assert cookies_of(headers) == {"x": "1", "previously_session": "abc"}
    assert cookies_of({"cookie": "=;;bad\x00"}) == {}


def persona_event(
    route: str, body: Any = None, headers: dict[str, str] | None = None, persona: str | None = None
) -> dict[str, Any]:
    e = event(route, body, {"X-Access-Key": "key", **(headers or {})})
    if persona is not None:
        e["queryStringParameters"] = {"persona": persona}
    return e


@pytest.fixture
def cast() -> Iterator[tuple[WsRoutes, dict[str, FakeTurns], Recorder, S3RunStore]]:
    """Routes over two personas (each with its own turns), their choice kept in a real run store."""
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="runs")
        runs = S3RunStore(s3, "runs")
        turns = {"nell": FakeTurns(runs), "jia": FakeTurns(runs)}
        recorder = Recorder()

        def pick(asked: str | None, remembered: str | None, visitor: str | None = None) -> WsTarget:
            if asked is not None and asked not in turns:
                raise InvalidInput(f"Unknown demo persona {asked!r}.")
            pid = asked or (remembered if remembered in turns else "nell")
            return WsTarget(turns[pid], runs, lambda a: TurnInput(message=a.message, timezone=a.timezone))

        nell = pick("nell", None)
        routes = WsRoutes(
            nell.turns,
            runs,
            lambda cid: ConnectionPusher(recorder, [cid]),
            lambda headers, cookies, peer: 200 if headers.get("x-access-key") == "key" else 401,
            nell.to_input,
            personas=pick,
            notes=runs,
        )
        yield routes, turns, recorder, runs


START = {"action": "turn.start", "message": "hello"}


def test_a_connection_keeps_the_persona_it_named_for_its_messages(cast: Any) -> None:
    routes, turns, _, runs = cast
    assert routes.handle(persona_event("$connect", persona="jia"))["statusCode"] == 200
    assert runs.connection_note("conn=") == "jia"
    assert runs.turn_ids() == []  # the note is no turn: recovery never sees it
    routes.handle(event("turn.start", START))  # as API Gateway sends it: no headers, no query
    assert [t.message for t in turns["jia"].started] == ["hello"] and turns["nell"].started == []
    routes.handle(event("$disconnect"))
    assert runs.connection_note("conn=") is None
    routes.handle(event("turn.start", START))  # a connection with no choice reads the default
    assert len(turns["nell"].started) == 1 and len(turns["jia"].started) == 1


def test_the_cookie_chooses_when_the_url_does_not_and_the_url_wins(cast: Any) -> None:
    routes, turns, _, runs = cast
    jar = {"Cookie": "previously_persona=jia"}
    assert routes.handle(persona_event("$connect", headers=jar))["statusCode"] == 200
    assert runs.connection_note("conn=") == "jia"
    assert routes.handle(persona_event("$connect", headers=jar, persona="nell"))["statusCode"] == 200
    assert runs.connection_note("conn=") == "nell"
    stale = {"Cookie": "previously_persona=gone-since"}
    assert routes.handle(persona_event("$connect", headers=stale))["statusCode"] == 200
    routes.handle(event("turn.start", START))
    assert len(turns["nell"].started) == 1 and turns["jia"].started == []


def test_an_unknown_persona_on_the_url_is_refused_and_nothing_is_noted(cast: Any) -> None:
    routes, _, _, runs = cast
    for bad in ("zed", "", "../jia"):
        assert routes.handle(persona_event("$connect", persona=bad))["statusCode"] == 400
    assert runs.connection_note("conn=") is None
    # Admission comes first: without the key the answer is 401, whatever the persona.
    refused = event("$connect")
    refused["queryStringParameters"] = {"persona": "zed"}
    assert routes.handle(refused)["statusCode"] == 401


def test_a_connection_keeps_its_visitor_for_its_messages_and_a_forged_one_counts_as_none() -> None:
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="runs")
        runs = S3RunStore(s3, "runs")
        seen: list[tuple[str | None, str | None, str | None]] = []
        own = FakeTurns(runs)

        def pick(asked: str | None, remembered: str | None, visitor: str | None = None) -> WsTarget:
            seen.append((asked, remembered, visitor))
            return WsTarget(own, runs, lambda a: TurnInput(message=a.message, timezone=a.timezone))

        routes = WsRoutes(
            own,
            runs,
            lambda cid: ConnectionPusher(Recorder(), [cid]),
            lambda h, c, p: 200,
            lambda a: TurnInput(message=a.message, timezone=a.timezone),
            personas=pick,
            notes=runs,
        )
        visitor = "f" * 32
        jar = {"Cookie": f"previously_visitor={visitor}"}
        assert routes.handle(persona_event("$connect", headers=jar))["statusCode"] == 200
        assert runs.connection_choice("conn=") == (None, visitor)
        routes.handle(event("turn.start", START))  # no headers: the note names the visitor
        assert seen[-1] == (None, None, visitor) and len(own.started) == 1
        routes.handle(event("$disconnect"))
        forged = {"Cookie": "previously_visitor=../../demo/nell"}
        assert routes.handle(persona_event("$connect", headers=forged))["statusCode"] == 200
        assert seen[-1] == (None, None, None) and runs.connection_choice("conn=") == (None, None)
        routes.new_visitor = lambda: "e" * 32  # a demo: a connection without one gets a fresh id
        assert routes.handle(persona_event("$connect", headers=forged))["statusCode"] == 200
        assert runs.connection_choice("conn=") == (None, "e" * 32)
