"""Push messages to browsers over the API Gateway WebSocket (post_to_connection).

The messages are those of the local server's `/api/ws`: one JSON object each — a turn event,
`{"type": "turn.accepted", "turn_id"}`, or `{"type": "error", "error", "message"}`. Pushing is
best effort: a client that went away (GoneException) is dropped and never fails a step; any other
error is logged, and the events stay readable from the run store (`GET /api/turns/{id}`,
`turn.follow`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

log = logging.getLogger(__name__)
# API Gateway accepts up to 128 KB per message; stay below it with room to spare.
MAX_MESSAGE_BYTES = 120 * 1024
ENVELOPE_KEYS = ("turn_id", "seq", "type", "step", "attempt", "item")


def encode_message(message: dict[str, Any], limit: int = MAX_MESSAGE_BYTES) -> bytes:
    """The message as UTF-8 JSON; an event too large to send travels as its envelope + `truncated`."""
    data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if len(data) <= limit:
        return data
    stub: dict[str, Any] = {k: message[k] for k in ENVELOPE_KEYS if k in message}
    return json.dumps({**stub, "truncated": True}, separators=(",", ":")).encode("utf-8")


class ConnectionPusher:
    """Posts messages to a set of connections; forgets the ones that are gone."""

    def __init__(
        self,
        client: Any,
        connections: Iterable[str | None] = (),
        on_gone: Callable[[str], None] | None = None,
    ) -> None:
        self.client = client
        self.connections: list[str] = list(dict.fromkeys(c for c in connections if c))
        self.gone: set[str] = set()
        self._on_gone = on_gone

    def add(self, connection_ids: Iterable[str]) -> None:
        """Also push to these connections (followers), unless already known to be gone."""
        for cid in connection_ids:
            if cid and cid not in self.gone and cid not in self.connections:
                self.connections.append(cid)

    def push(self, messages: list[dict[str, Any]]) -> None:
        """Send each message, in order, to every live connection; never raises."""
        if not messages or not self.connections:
            return
        encoded = [encode_message(m) for m in messages]
        for cid in list(self.connections):
            for data in encoded:
                if not self._post(cid, data):
                    break

    def _post(self, connection_id: str, data: bytes) -> bool:
        try:
            self.client.post_to_connection(ConnectionId=connection_id, Data=data)
            return True
        except self.client.exceptions.GoneException:
            self._forget(connection_id)
        except (ClientError, BotoCoreError):  # best effort: the run store still has every event
            log.warning("push to %s failed", connection_id, exc_info=True)
        return False

    def _forget(self, connection_id: str) -> None:
        self.gone.add(connection_id)
        if connection_id in self.connections:
            self.connections.remove(connection_id)
        if self._on_gone is not None:
            try:
                self._on_gone(connection_id)
            except (ClientError, BotoCoreError):
                log.warning("could not forget follower %s", connection_id, exc_info=True)
