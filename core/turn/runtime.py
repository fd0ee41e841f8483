"""The one turn service: turns recorded in the run store, started by a launcher.

Starting, reading, waiting and cancelling are the same wherever a turn runs; only how it is set
going differs — a thread of this process (core/turn/local_service.py) or a Step Functions
execution (functions/aws/turns.py). A launcher also says when a turn it started can no longer
end by itself (its thread or process died, its execution failed): the service then records the
end the turn never wrote, so nothing reads as `running` for ever.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from core.clock import IdSource
from core.errors import InvalidInput, NotFound, TransientError
from core.reltime import zone
from core.turn.events import Event, envelope
from core.turn.runstore import RunStore, status_of
from core.turn.service import TurnInput, TurnState

REQUEST_KEY = "request"  # core/turn/steps/common.py reads it back
CANCEL_KEY = "cancel"
_ID_ATTEMPTS = 5
POLL_SECONDS = 2.0


class TurnIdTaken(Exception):
    """The launcher already knows this turn id (pick another)."""


class Launcher(Protocol):
    """How turns are set going, and how a dead one is told apart from a running one."""

    def launch(self, turn_id: str, request: TurnInput) -> None:
        """Start running the turn (its request is already in the run store); TurnIdTaken to retry."""
        ...

    def lost(self, turn_id: str, events: list[Event]) -> Event | None:
        """For a turn whose events say `running`: the terminal event to record when nothing will
        ever end it (None while it may still be running). Built with `ending_event`."""
        ...


def check_request(request: TurnInput) -> None:
    """Refuse a request no turn can be made of, saying what to fix."""
    if not request.message.strip() and not request.attachments:
        raise InvalidInput("The message is empty: say something or attach a picture.")
    if zone(request.timezone or "UTC") is None:
        raise InvalidInput(
            f"Unknown time zone {request.timezone!r}: use an IANA name such as Europe/Berlin or UTC."
        )


def reply_from(events: list[Event]) -> str | None:
    """The reply as streamed: text deltas, minus those of step attempts that failed and were retried.

    A step runs once per tool round, each time from attempt 1; a `step.started` with a higher
    attempt voids only the text of the latest run of that step (the attempt that failed).
    """
    segments: list[tuple[str, list[str]]] = []
    for event in events:
        if event["type"] == "step.started":
            if int(event.get("attempt", 1)) > 1:
                last = next(
                    (i for i in range(len(segments) - 1, -1, -1) if segments[i][0] == event["step"]), None
                )
                if last is not None:
                    del segments[last]
            segments.append((str(event["step"]), []))
        elif event["type"] == "text.delta":
            if not segments or segments[-1][0] != event["step"]:
                segments.append((str(event["step"]), []))
            segments[-1][1].append(str(event.get("text", "")))
    return "".join(text for _, texts in segments for text in texts) or None


def ending_event(turn_id: str, events: list[Event], type: str, fields: dict[str, object]) -> Event:
    """A terminal event for a turn that will not write its own: numbered on, under its last step."""
    last = next((e for e in reversed(events) if e["type"] == "step.started"), None)
    step = str(last["step"]) if last else "runner"
    attempt = int(last["attempt"]) if last else 1
    item = last.get("item") if last else None
    seq = int(events[-1]["seq"]) + 1 if events else 1
    return envelope(turn_id, seq, type, step, attempt, dict(fields), item)


class RunStoreTurns:
    """`TurnService` over a run store and a launcher."""

    def __init__(
        self,
        runs: RunStore,
        ids: IdSource,
        launcher: Launcher,
        *,
        poll_seconds: float = POLL_SECONDS,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.runs = runs
        self.ids = ids
        self.launcher = launcher
        self.poll_seconds = poll_seconds
        self._monotonic = monotonic

    def start(self, request: TurnInput) -> str:
        """Record the request, launch the turn, return its id at once (InvalidInput: nothing recorded)."""
        check_request(request)
        for _ in range(_ID_ATTEMPTS):
            turn_id = self.ids.turn_id()
            if self.runs.exists(turn_id):
                continue
            self.runs.put(turn_id, REQUEST_KEY, request.to_json())
            try:
                self.launcher.launch(turn_id, request)
            except TurnIdTaken:
                continue
            return turn_id
        raise TransientError("Could not find a free turn id; send the message again.")

    def state(self, turn_id: str, after: int = 0) -> TurnState:
        """Status, events after `after`, and the reply once the turn ended; NotFound for an unknown id."""
        if not self.runs.exists(turn_id):
            raise NotFound(f"No turn {turn_id!r} (runs expire after a while).")
        events = self.runs.events(turn_id)
        if status_of(events) == "running":
            events = self._settle(turn_id, events)
        status = status_of(events)
        reply = reply_from(events) if status != "running" else None
        started = next((e for e in events if e["type"] == "turn.started"), {})
        newer = [e for e in events if e["seq"] > after]
        return TurnState(turn_id, status, newer, reply, started.get("slice_id"))

    def _settle(self, turn_id: str, events: list[Event]) -> list[Event]:
        """Record the end of a turn its launcher says will never end by itself."""
        if self.launcher.lost(turn_id, events) is None:
            return events
        events = self.runs.events(turn_id)  # read again: it may have ended meanwhile
        if status_of(events) != "running":
            return events
        ending = self.launcher.lost(turn_id, events)
        if ending is None:
            return events
        self.runs.append(turn_id, [ending])
        return [*events, ending]

    def wait(self, turn_id: str, after: int, timeout: float) -> TurnState:
        """Block until there is something after `after`, the turn ends, or `timeout` passes."""
        deadline = self._monotonic() + timeout
        while True:
            state = self.state(turn_id, after)
            remaining = deadline - self._monotonic()
            if state.events or state.status != "running" or remaining <= 0:
                return state
            self.runs.wait(turn_id, after, min(remaining, self.poll_seconds))

    def cancel(self, turn_id: str) -> None:
        """Ask a running turn to stop: the flag respond and tools check (a no-op once it ended)."""
        if self.state(turn_id).status == "running":
            self.runs.put(turn_id, CANCEL_KEY, True)
