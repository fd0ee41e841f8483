"""An EventSink over a RunStore: gap-free seq numbers, stamped with step, attempt (and item).

The run store numbers each event as it stores it (its `append` is the turn's one seq allocator),
so a retried step, the next step in another process and the parallel tool calls of a round all
continue one gap-free sequence, and every event a follower has seen is already stored.
"""

from __future__ import annotations

from typing import Any

from core.turn.events import Event, EventType, envelope
from core.turn.runstore import RunStore


class RunStoreSink:
    """The sink of one attempt of one step (thread-safe: tool calls emit from worker threads)."""

    def __init__(
        self, run_store: RunStore, turn_id: str, step: str, attempt: int, item: int | None = None
    ) -> None:
        self.run_store = run_store
        self.turn_id = turn_id
        self.step = step
        self.attempt = attempt
        self.item = item

    def emit(self, type: EventType, **fields: Any) -> Event:
        """Store the event; the run store gives it the next seq."""
        event = envelope(self.turn_id, 0, type, self.step, self.attempt, fields, self.item)
        return self.run_store.append(self.turn_id, [event])[0]


class RunStoreSinks:
    """The in-process sink factory: a sink for (turn, step, attempt[, item]), for whoever asks.

    Sinks hold no counter (the run store numbers), so the runner, the step and the parallel
    tool calls of a round may each ask for their own.
    """

    def __init__(self, run_store: RunStore) -> None:
        self.run_store = run_store

    def __call__(self, turn_id: str, step: str, attempt: int, item: int | None = None) -> RunStoreSink:
        return RunStoreSink(self.run_store, turn_id, step, attempt, item)
