"""An EventSink over a RunStore: gap-free seq numbers, stamped with step and attempt.

A sink numbers on from the last seq the run store holds when it is created, so a retried step
(or the next step, in another process) continues the sequence instead of reusing a number a
client already saw. Events are stored one append at a time, in order, so every event a
follower has seen is already in the run store.
"""

from __future__ import annotations

import threading
from typing import Any

from core.turn.events import Event, EventType, envelope
from core.turn.runstore import RunStore


def last_seq(run_store: RunStore, turn_id: str) -> int:
    """The highest seq stored for a turn (0 when it has no events yet)."""
    events = run_store.events(turn_id)
    return int(events[-1]["seq"]) if events else 0


class RunStoreSink:
    """The sink of one attempt of one step (thread-safe: tool calls emit from worker threads)."""

    def __init__(self, run_store: RunStore, turn_id: str, step: str, attempt: int) -> None:
        self.run_store = run_store
        self.turn_id = turn_id
        self.step = step
        self.attempt = attempt
        self._lock = threading.Lock()
        self._seq = last_seq(run_store, turn_id)

    def emit(self, type: EventType, **fields: Any) -> Event:
        """Stamp the event with the next seq and store it."""
        with self._lock:
            self._seq += 1
            event = envelope(self.turn_id, self._seq, type, self.step, self.attempt, fields)
            self.run_store.append(self.turn_id, [event])
            return event


class RunStoreSinks:
    """The in-process sink factory: one sink per (turn, step, attempt), shared by whoever asks.

    The runner (step.started / step.done) and the step itself ask for the sink of the same
    attempt and must share its counter; only the latest sink of each turn is kept, since a
    turn's steps run one after another.
    """

    def __init__(self, run_store: RunStore) -> None:
        self.run_store = run_store
        self._lock = threading.Lock()
        self._latest: dict[str, RunStoreSink] = {}

    def __call__(self, turn_id: str, step: str, attempt: int) -> RunStoreSink:
        with self._lock:
            sink = self._latest.get(turn_id)
            if sink is None or (sink.step, sink.attempt) != (step, attempt):
                sink = RunStoreSink(self.run_store, turn_id, step, attempt)
                self._latest[turn_id] = sink
            return sink

    def forget(self, turn_id: str) -> None:
        """Drop the turn's sink once it has ended."""
        with self._lock:
            self._latest.pop(turn_id, None)
