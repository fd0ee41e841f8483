"""How adapters start and follow turns: the one interface the API, the CLI and the WebSocket use.

The in-process implementation runs the step table on a worker thread; on AWS the same
interface starts a Step Functions execution and reads the run store.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Protocol

from core.media.images import Attachment
from core.turn.events import Event


@dataclass(frozen=True)
class TurnInput:
    """One user message and the client context it arrived with (docs/API.md "Turns": `POST /api/turns`)."""

    message: str
    timezone: str = "UTC"
    client_slice_id: str | None = None
    agent_turns_seen: int = 0
    model: str | None = None
    thinking: bool | None = None
    effort: str | None = None
    locale: str | None = None
    # Where to push events on AWS (API Gateway WebSocket connection id); None locally.
    connection_id: str | None = None
    # Pictures already checked and re-encoded (core/media/images.py), saved with the user's turn.
    attachments: tuple[Attachment, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TurnInput:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["attachments"] = tuple(Attachment.from_json(a) for a in known.get("attachments") or ())
        return cls(**known)


@dataclass(frozen=True)
class TurnState:
    """A turn as a client sees it: status, events after a seq, and the reply once finished."""

    turn_id: str
    status: str  # running | done | interrupted | error
    events: list[Event]
    reply: str | None = None
    slice_id: str | None = None


class TurnService(Protocol):
    """Start a turn, read it, wait for more of it."""

    def start(self, request: TurnInput) -> str:
        """Record the request, start the turn in the background, return its turn id at once."""
        ...

    def state(self, turn_id: str, after: int = 0) -> TurnState:
        """The turn's status and its events with seq > after; NotFound for an unknown id."""
        ...

    def wait(self, turn_id: str, after: int, timeout: float) -> TurnState:
        """Like `state`, but block up to `timeout` seconds for new events or the end."""
        ...

    def cancel(self, turn_id: str) -> None:
        """Ask a running turn to stop: the reply so far is kept as `[partial] …`, running tools end
        `interrupted`, the turn ends with `turn.done` status `interrupted`. No-op once it ended."""
        ...
