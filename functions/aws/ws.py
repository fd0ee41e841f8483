"""The WebSocket routes on API Gateway: the local `/api/ws` protocol, over Lambda.

`$connect` admits a browser with a live session cookie (or a script with the access key) and
refuses everyone else before the socket opens. A message's `action` picks the route:
`turn.start` starts an execution with this connection id in its input, so the step functions
push the turn's events straight back; `turn.follow` replays what the run store holds after a seq
and registers the connection so the running steps push to it too (a client may see a seq twice
around that moment, never miss one); `turn.cancel` is the stop button. Replies are the local
server's messages: `{"type": "turn.accepted", "turn_id"}` and `{"type": "error", "error", "message"}`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from typing import Any

from core.errors import PreviouslyError
from core.turn.runstore import RunStore
from core.turn.service import TurnInput, TurnService
from functions.api.schemas import WsFollow, WsStart
from functions.api.ws_protocol import WsRefusal, parse_action
from functions.aws.push import ConnectionPusher

Admit = Callable[[Mapping[str, str], Mapping[str, str]], bool]


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
    """Route handling with every dependency injected (the Lambda entry wires the real ones)."""

    turns: TurnService
    runs: RunStore
    pusher_for: Callable[[str], ConnectionPusher]
    admit: Admit
    to_input: Callable[[WsStart], TurnInput]

    def handle(self, event: Mapping[str, Any]) -> dict[str, Any]:
        """One API Gateway WebSocket event → the integration response."""
        context = event.get("requestContext") or {}
        route = context.get("routeKey")
        if route == "$connect":
            headers = lower_headers(event)
            return response(200 if self.admit(headers, cookies_of(headers)) else 401)
        if route == "$disconnect":
            return response(200)
        connection_id = str(context.get("connectionId") or "")
        if not connection_id:
            return response(400)
        self.message(connection_id, str(event.get("body") or ""))
        return response(200)

    def message(self, connection_id: str, text: str) -> None:
        """Act on one client message; refusals go back to the client, never raise."""
        pusher = self.pusher_for(connection_id)
        try:
            action = parse_action(text)
        except WsRefusal as refusal:
            self._error(pusher, refusal.code, str(refusal))
            return
        try:
            if isinstance(action, WsStart):
                request = dataclasses.replace(self.to_input(action), connection_id=connection_id)
                turn_id = self.turns.start(request)
                pusher.push([{"type": "turn.accepted", "turn_id": turn_id}])
            elif isinstance(action, WsFollow):
                self.follow(pusher, connection_id, action.turn_id, action.after)
            else:
                self.turns.cancel(action.turn_id)
        except PreviouslyError as exc:
            self._error(pusher, exc.code, str(exc))

    def follow(self, pusher: ConnectionPusher, connection_id: str, turn_id: str, after: int) -> None:
        """Replay the stored events after `after`, then keep the connection on the running turn."""
        state = self.turns.state(turn_id, after)
        pusher.push(state.events)
        last = state.events[-1]["seq"] if state.events else after
        if state.status != "running":
            return
        add = getattr(self.runs, "add_follower", None)
        if add is not None:
            add(turn_id, connection_id)
        # Anything stored between the replay and the registration, which the steps will not resend.
        pusher.push(self.turns.state(turn_id, last).events)

    @staticmethod
    def _error(pusher: ConnectionPusher, code: str, message: str) -> None:
        pusher.push([{"type": "error", "error": code, "message": message}])
