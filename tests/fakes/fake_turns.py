"""A scripted TurnService for API tests: events are pushed by the test (or a whole reply at once).

It implements the `core.turn.service.TurnService` protocol over a real `MemoryRunStore`, so the
API's waiting and following code runs exactly as it does against the in-process runner.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from core.clock import IdSource, SequentialIds
from core.errors import NotFound, PreviouslyError
from core.turn.events import envelope
from core.turn.runstore import MemoryRunStore, status_of
from core.turn.service import TurnInput, TurnState


@dataclass
class ScriptedTurns:
    """Start records the request and emits `turn.started`; `reply` (when set) finishes the turn at once."""

    runs: MemoryRunStore = field(default_factory=MemoryRunStore)
    ids: IdSource = field(default_factory=lambda: SequentialIds("turn"))
    reply: str | None = "Hello back."
    slice_id: str = "2026-08-11-1115"
    refuse: PreviouslyError | None = None
    started: list[TurnInput] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    _seq: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self, request: TurnInput) -> str:
        if self.refuse is not None:
            raise self.refuse
        turn_id = self.ids.turn_id()
        self.started.append(request)
        self.runs.put(turn_id, "request", request.to_json())
        self.emit(
            turn_id,
            "turn.started",
            slice_id=self.slice_id,
            slice_opened=False,
            slice_closed=None,
            user_turn_id=f"u-{turn_id}",
        )
        if self.reply is not None:
            self.finish(turn_id, self.reply)
        return turn_id

    def emit(self, turn_id: str, type: str, step: str = "respond", **fields: Any) -> dict[str, Any]:
        """Append one event (next seq) to the run store."""
        with self._lock:
            seq = self._seq.get(turn_id, 0) + 1
            self._seq[turn_id] = seq
            event = envelope(turn_id, seq, type, step, 1, fields)
            self.runs.append(turn_id, [event])
        return event

    def finish(self, turn_id: str, reply: str) -> None:
        """Stream `reply` as two text deltas and end the turn."""
        half = len(reply) // 2
        for part in (reply[:half], reply[half:]):
            self.emit(turn_id, "text.delta", text=part)
        self.runs.put(turn_id, "reply", reply)
        self.emit(
            turn_id, "turn.done", step="finalize", status="done", agent_turn_id=f"a-{turn_id}", usage={}
        )

    def state(self, turn_id: str, after: int = 0) -> TurnState:
        if not self.runs.exists(turn_id):
            raise NotFound(f"There is no turn {turn_id}.")
        return self._state(turn_id, self.runs.events(turn_id, after))

    def wait(self, turn_id: str, after: int, timeout: float) -> TurnState:
        if not self.runs.exists(turn_id):
            raise NotFound(f"There is no turn {turn_id}.")
        return self._state(turn_id, self.runs.wait(turn_id, after, timeout))

    def cancel(self, turn_id: str) -> None:
        """Record the request; a running turn ends `interrupted` with the text so far."""
        if not self.runs.exists(turn_id):
            raise NotFound(f"There is no turn {turn_id}.")
        self.cancelled.append(turn_id)
        if status_of(self.runs.events(turn_id, 0)) == "running":
            self.emit(
                turn_id, "turn.done", step="finalize", status="interrupted", agent_turn_id=None, usage={}
            )

    def _state(self, turn_id: str, events: list[dict[str, Any]]) -> TurnState:
        status = status_of(self.runs.events(turn_id, 0))
        return TurnState(turn_id, status, events, self.runs.get(turn_id, "reply"), self.slice_id)
