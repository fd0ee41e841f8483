"""`TurnService` in this process: each turn runs the step table on a worker thread.

Used by `previously chat`, the local server and the tests. State and waiting come from the run
store, so a client that reconnects (or another command) sees exactly what was streamed.
Cancelling sets a flag in the run store; the respond step checks it between stream events.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from core.errors import InvalidInput, NotFound, TransientError
from core.reltime import zone
from core.turn.deps import TurnDeps
from core.turn.events import Event
from core.turn.failures import failure_code, failure_message
from core.turn.runner import run_turn
from core.turn.runstore import status_of
from core.turn.service import TurnInput, TurnState
from core.turn.steps import FIRST_STEP, FLOW, STEP_TABLE
from core.turn.steps.common import CANCEL_KEY, REQUEST_KEY

_ID_ATTEMPTS = 5


def reply_from(events: list[Event]) -> str | None:
    """The reply as streamed: text deltas of each step's latest attempt only."""
    latest: dict[str, int] = {}
    for event in events:
        latest[event["step"]] = max(latest.get(event["step"], 0), int(event.get("attempt", 1)))
    parts = [
        str(e.get("text", ""))
        for e in events
        if e["type"] == "text.delta" and int(e.get("attempt", 1)) == latest.get(e["step"])
    ]
    return "".join(parts) or None


def check_request(request: TurnInput) -> None:
    """Refuse a request no turn can be made of, saying what to fix."""
    if not request.message.strip():
        raise InvalidInput("The message is empty: say something.")
    if zone(request.timezone or "UTC") is None:
        raise InvalidInput(
            f"Unknown time zone {request.timezone!r}: use an IANA name such as Europe/Berlin or UTC."
        )


class LocalTurnService:
    """Starts turns on threads and reads them back from the run store."""

    def __init__(self, deps: TurnDeps, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.deps = deps
        self._sleep = sleep
        self._threads: dict[str, threading.Thread] = {}
        self._lock = threading.Lock()
        # Turns arriving together would each find no active slice and race to open one; like the
        # original's per-slice mutex, prepare runs one at a time in this process (other processes
        # are kept honest by the storage's conflict handling).
        self._table = _serialised(STEP_TABLE, "prepare", threading.Lock())

    def start(self, request: TurnInput) -> str:
        """Record the request, start the turn on a thread, return its id at once.

        InvalidInput (nothing recorded) for an empty message or an unknown time zone.
        """
        check_request(request)
        turn_id = self._new_turn_id()
        self.deps.run_store.put(turn_id, REQUEST_KEY, request.to_json())
        thread = threading.Thread(target=self._run, args=(turn_id,), name=f"turn-{turn_id}", daemon=True)
        with self._lock:
            self._threads = {k: t for k, t in self._threads.items() if t.is_alive()}
            self._threads[turn_id] = thread
        thread.start()
        return turn_id

    def _new_turn_id(self) -> str:
        for _ in range(_ID_ATTEMPTS):
            turn_id = self.deps.ids.turn_id()
            if not self.deps.run_store.exists(turn_id):
                return turn_id
        raise TransientError("Could not find a free turn id; send the message again.")

    def _run(self, turn_id: str) -> None:
        try:
            run_turn(turn_id, self.deps, self._table, FLOW, first=FIRST_STEP, sleep=self._sleep)
        except Exception as exc:  # a thread has no caller to raise to: record the failure as an event
            self.deps.log.error("turn %s crashed", turn_id, exc_info=exc)
            sink = self.deps.sink_for(turn_id, "runner", 1)
            sink.emit("turn.error", code=failure_code(exc), message=failure_message("turn", exc, False))
        finally:
            forget = getattr(self.deps.sink_for, "forget", None)
            if forget is not None:
                forget(turn_id)

    def state(self, turn_id: str, after: int = 0) -> TurnState:
        """Status, events after `after`, and the reply once the turn ended."""
        if not self.deps.run_store.exists(turn_id):
            raise NotFound(f"No turn {turn_id!r}.")
        events = self.deps.run_store.events(turn_id)
        status = status_of(events)
        started = next((e for e in events if e["type"] == "turn.started"), {})
        reply = reply_from(events) if status != "running" else None
        newer = [e for e in events if e["seq"] > after]
        return TurnState(turn_id, status, newer, reply, started.get("slice_id"))

    def wait(self, turn_id: str, after: int, timeout: float) -> TurnState:
        """Block until there are events after `after` or `timeout` passes."""
        if not self.deps.run_store.exists(turn_id):
            raise NotFound(f"No turn {turn_id!r}.")
        self.deps.run_store.wait(turn_id, after, timeout)
        return self.state(turn_id, after)

    def cancel(self, turn_id: str) -> None:
        """Ask the turn to stop; a no-op once it ended."""
        if self.state(turn_id).status == "running":
            self.deps.run_store.put(turn_id, CANCEL_KEY, True)

    def join(self, turn_id: str, timeout: float | None = None) -> bool:
        """Wait for the turn's thread to finish (tests, the CLI); False when it is still running."""
        with self._lock:
            thread = self._threads.get(turn_id)
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def run(self, request: TurnInput, timeout: float | None = None) -> TurnState:
        """Start a turn and wait for it to end; its whole state."""
        turn_id = self.start(request)
        self.join(turn_id, timeout)
        return self.state(turn_id)


def _serialised(table: dict[str, Any], step: str, lock: threading.Lock) -> dict[str, Any]:
    """`table` with `step` running under `lock`."""
    spec = table[step]

    def run(state: Any, deps: TurnDeps) -> Any:
        with lock:
            return spec.run(state, deps)

    return {**table, step: replace(spec, run=run)}
