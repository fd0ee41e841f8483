"""The WebSocket routes on API Gateway: the local `/api/ws` protocol, over Lambda.

`$connect` admits a browser page of this deployment with a live session cookie (or a script with
the access key) and refuses everyone else before the socket opens (functions/api/guard.py).
A message's `action` picks the route:
`turn.start` starts an execution with this connection id in its input, so the step functions
push the turn's events straight back; `turn.follow` replays what the run store holds after a seq
and registers the connection so the running steps push to it too (a client may see a seq twice
around that moment, never miss one); `turn.cancel` is the stop button. Replies are the local
server's messages: `{"type": "turn.accepted", "turn_id"}` and `{"type": "error", "error", "message"}`.

In a demo with several personas a connection reads the persona it named at `$connect`
(`?persona=` on the socket's URL, else the picker's cookie, else the default; an unknown
`?persona=` is refused with 400), and in every demo the visitor's own overlay of it (the
`previously_visitor` cookie the HTTP API set). API Gateway sends later messages without
headers, so the choice is kept in the run store under the connection id until `$disconnect`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from typing import Any, Protocol

from core.errors import InvalidInput, PreviouslyError
from core.storage.visitor import visitor_id
from core.turn.runstore import RunStore
from core.turn.service import TurnInput, TurnService
from functions.api.schemas import WsFollow, WsStart
from functions.api.ws_protocol import WsRefusal, parse_action
from functions.aws.push import ConnectionPusher
from functions.compose.demo import PERSONA_COOKIE, PERSONA_PARAM, VISITOR_COOKIE

# `$connect`'s headers, cookies and source address → 200, or the status of the refusal.
Admit = Callable[[Mapping[str, str], Mapping[str, str], str | None], int]


@dataclass(frozen=True)
class WsTarget:
    """What one persona's connections act on: its turns, its runs, its way of reading a start."""

    turns: TurnService
    runs: RunStore
    to_input: Callable[[WsStart], TurnInput]


# A persona's target from `(?persona=, cookie, visitor id)`: functions/compose/demo.py `persona_deps`
# (InvalidInput for an unknown `?persona=`, the default for an unknown cookie; a demo visitor's
# own overlay for a visitor id).
PickPersona = Callable[[str | None, str | None, str | None], WsTarget]


class ConnectionNotes(Protocol):
    """Where a connection's persona and visitor wait for its messages (the S3 run store)."""

    def note_connection(
        self, connection_id: str, persona: str | None, visitor: str | None = None
    ) -> None: ...

    def connection_choice(self, connection_id: str) -> tuple[str | None, str | None]: ...

    def forget_connection(self, connection_id: str) -> None: ...


def lower_headers(event: Mapping[str, Any]) -> dict[str, str]:
    """The request's headers with lowercase names (API Gateway keeps the client's spelling)."""
    headers = event.get("headers") or {}
    return {str(k).lower(): str(v) for k, v in headers.items()}


def cookies_of(headers: Mapping[str, str]) -> dict[str, str]:
    """The Cookie header as a dict ({} when absent or malformed)."""
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(headers.get("cookie", ""))
    except CookieError:
        return {}
    return {name: morsel.value for name, morsel in jar.items()}


def response(status: int) -> dict[str, Any]:
    return {"statusCode": status}


@dataclass
class WsRoutes:
    """Route handling with every dependency injected (the Lambda entry wires the real ones).
    `turns`, `runs` and `to_input` are the default persona's; with several personas, `personas`
    picks a connection's own and `notes` remembers its choice between events."""

    turns: TurnService
    runs: RunStore
    pusher_for: Callable[[str], ConnectionPusher]
    admit: Admit
    to_input: Callable[[WsStart], TurnInput]
    personas: PickPersona | None = None
    notes: ConnectionNotes | None = None
    # In a demo: a fresh visitor id for a connection without a well-formed visitor cookie, so
    # its turns land in an overlay of its own, never in the persona's shared one.
    new_visitor: Callable[[], str] | None = None

    def handle(self, event: Mapping[str, Any]) -> dict[str, Any]:
        """One API Gateway WebSocket event → the integration response."""
        context = event.get("requestContext") or {}
        route = context.get("routeKey")
        connection_id = str(context.get("connectionId") or "")
        if route == "$connect":
            headers = lower_headers(event)
            query = event.get("queryStringParameters") or {}
            peer = (context.get("identity") or {}).get("sourceIp")
            return response(self.connect(connection_id, headers, cookies_of(headers), query, peer))
        if route == "$disconnect":
            if self.notes is not None and connection_id:
                self.notes.forget_connection(connection_id)
            return response(200)
        if not connection_id:
            return response(400)
        self.message(connection_id, str(event.get("body") or ""))
        return response(200)

    def connect(
        self,
        connection_id: str,
        headers: Mapping[str, str],
        cookies: Mapping[str, str],
        query: Mapping[str, str],
        peer: str | None = None,
    ) -> int:
        """The `$connect` status: the refusal's (401, 403, 421, 429) unless admitted, 400 for an
        unknown `?persona=`."""
        status = self.admit(headers, cookies, peer)
        if status != 200:
            return status
        if self.personas is None:
            return 200
        asked, remembered = query.get(PERSONA_PARAM), cookies.get(PERSONA_COOKIE)
        visitor = visitor_id(cookies.get(VISITOR_COOKIE))
        if visitor is None and self.new_visitor is not None:
            visitor = self.new_visitor()
        try:
            self.personas(asked, remembered, visitor)
        except InvalidInput:
            return 400
        choice = asked if asked is not None else remembered
        if (choice is not None or visitor is not None) and self.notes is not None and connection_id:
            self.notes.note_connection(connection_id, choice, visitor)
        return 200

    def target(self, connection_id: str) -> WsTarget:
        """The persona (and demo visitor) this connection chose at `$connect` (the default
        without a choice)."""
        if self.personas is None:
            return WsTarget(self.turns, self.runs, self.to_input)
        noted = self.notes.connection_choice(connection_id) if self.notes is not None else (None, None)
        return self.personas(None, *noted)

    def message(self, connection_id: str, text: str) -> None:
        """Act on one client message; refusals go back to the client, never raise."""
        pusher = self.pusher_for(connection_id)
        try:
            action = parse_action(text)
        except WsRefusal as refusal:
            self._error(pusher, refusal.code, str(refusal))
            return
        try:
            target = self.target(connection_id)
            if isinstance(action, WsStart):
                request = dataclasses.replace(target.to_input(action), connection_id=connection_id)
                turn_id = target.turns.start(request)
                pusher.push([{"type": "turn.accepted", "turn_id": turn_id}])
            elif isinstance(action, WsFollow):
                self.follow(target, pusher, connection_id, action.turn_id, action.after)
            else:
                target.turns.cancel(action.turn_id)
        except PreviouslyError as exc:
            self._error(pusher, exc.code, str(exc))

    @staticmethod
    def follow(
        target: WsTarget, pusher: ConnectionPusher, connection_id: str, turn_id: str, after: int
    ) -> None:
        """Replay the stored events after `after`, then keep the connection on the running turn."""
        state = target.turns.state(turn_id, after)
        pusher.push(state.events)
        last = state.events[-1]["seq"] if state.events else after
        if state.status != "running":
            return
        add = getattr(target.runs, "add_follower", None)
        if add is not None:
            add(turn_id, connection_id)
        # Anything stored between the replay and the registration, which the steps will not resend.
        pusher.push(target.turns.state(turn_id, last).events)

    @staticmethod
    def _error(pusher: ConnectionPusher, code: str, message: str) -> None:
        pusher.push([{"type": "error", "error": code, "message": message}])
