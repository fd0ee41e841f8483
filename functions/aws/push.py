"""Push a turn's events to browsers over the API Gateway WebSocket (post_to_connection).

Every message is a JSON array of events, in seq order. Pushing is best effort: a client that
went away (GoneException) is dropped from the list and never fails a step; any other error is
logged and the events stay readable from the run store (`GET /api/turns/{id}`, `turn.follow`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from core.turn.events import Event

log = logging.getLogger(__name__)
# API Gateway accepts up to 128 KB per message; stay well below with room for framing.
MAX_MESSAGE_BYTES = 96 * 1024
ENVELOPE_KEYS = ("turn_id", "seq", "type", "step", "attempt")


def encode_batches(events: list[Event], limit: int = MAX_MESSAGE_BYTES) -> list[bytes]:
    """JSON arrays of consecutive events, each under `limit` bytes.

    An event too large on its own travels as its envelope with `"truncated": true`, so the client
    sees every seq and knows to read the full event from the run store.
    """
    messages: list[bytes] = []
    current: list[bytes] = []
    size = 2
    for event in events:
        item = _encode(event)
        if len(item) + 2 > limit:
            stub: dict[str, Any] = {k: event[k] for k in ENVELOPE_KEYS if k in event}
            item = _encode({**stub, "truncated": True})
        if current and size + len(item) + 1 > limit:
            messages.append(b"[" + b",".join(current) + b"]")
            current, size = [], 2
        current.append(item)
        size += len(item) + 1
    if current:
        messages.append(b"[" + b",".join(current) + b"]")
    return messages


def _encode(event: Event) -> bytes:
    return json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class ConnectionPusher:
    """Posts batches to a set of connections; forgets the ones that are gone."""

    def __init__(
        self,
        client: Any,
        connections: Iterable[str] = (),
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

    def push(self, events: list[Event]) -> None:
        """Send the events to every live connection; never raises."""
        if not events or not self.connections:
            return
        messages = encode_batches(events)
        for cid in list(self.connections):
            for message in messages:
                if not self._post(cid, message):
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
